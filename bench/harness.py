"""Timing whole commands the way a user (or an agent host) runs them.

Every figure is the median (p50) wall time of fresh processes, printed next to
``python3 -c pass`` measured in the same run, so numbers from different machines
compare as ratios.  Used by every ``bench/bench_*.py`` script.

:func:`installed` switches the commands (and ``python3 -c pass``) to a throwaway venv with
okfpro installed the way users install it (``pip install .``, not editable): in a development
venv the editable install's import finder runs in *every* process, ``python3 -c pass`` included
(~12 ms here), which says nothing about what users pay.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

PYTHON = sys.executable
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _private_cache() -> None:
    """Every bench (and every process it starts) keeps okfpro's caches in a directory of its own,
    removed when it ends: the workspaces are temporary, so their parse caches, analysis states
    and indexes in ``~/.cache/okfpro`` would be orphans (~390 MB a ``bench_hooks`` run)."""
    import atexit
    import shutil
    import tempfile

    cache = tempfile.mkdtemp(prefix="okfpro-bench-cache-")
    os.environ["XDG_CACHE_HOME"] = cache
    atexit.register(shutil.rmtree, cache, True)


_private_cache()


@dataclass
class Timing:
    label: str
    p50: float
    runs: int
    cpu: float | None = None  # p50 of the child's user+system CPU seconds: far steadier than wall on a busy machine
    base: Timing | None = None  # python3 -c pass run just before each of this row's runs (interleaved(paired=True))

    def ratio(self, baseline: float) -> float:
        """p50 over python3 -c pass's: the one run in turn with this row when there is one, else ``baseline``."""
        base = self.base.p50 if self.base is not None else baseline
        return self.p50 / base if base > 0 else float("nan")

    def row(self, baseline: float, base_cpu: float | None = None) -> str:
        out = f"{self.label:<58} p50 {self.p50 * 1000:8.1f} ms   {self.ratio(baseline):6.1f} x python3 -c pass"
        if self.base is not None:
            out += f" ({self.base.p50 * 1000:.1f} ms)"
            base_cpu = self.base.cpu
        if self.cpu is not None and base_cpu:
            out += f"   | CPU {self.cpu * 1000:7.1f} ms {self.cpu / base_cpu:5.1f} x"
        return out


def measure(cmd: list[str], *, runs: int = 7, stdin: bytes | None = None, env: dict[str, str] | None = None,
            cwd: str | None = None, label: str | None = None, warmup: int = 1, expect: tuple[int, ...] | None = None,
            paired: bool = True) -> Timing:
    """Run ``cmd`` ``warmup + runs`` times; return the p50 of the timed runs (and, ``paired``,
    of ``python3 -c pass`` run just before each: :func:`interleaved`)."""
    return interleaved([Run(cmd, stdin=stdin, env=env, cwd=cwd, label=label, expect=expect)], runs=runs,
                       warmup=warmup, paired=paired)[0]


@dataclass
class Run:
    """One command to time, as :func:`measure` takes it."""

    cmd: list[str]
    stdin: bytes | None = None
    env: dict[str, str] | None = None
    cwd: str | None = None
    label: str | None = None
    expect: tuple[int, ...] | None = None
    before: Callable[[], object] | None = None  # run before each timed run, not timed (a cache dropped, say)


def interleaved(cases: list[Run], *, runs: int = 7, warmup: int = 1, paired: bool = False) -> list[Timing]:
    """Time several commands in turn (a, b, a, b, ...), ``warmup + runs`` rounds; one :class:`Timing`
    each.  Whatever drifts while they run (the load, the page cache, the clock) falls on all of them
    alike, so a ratio between them ("flat within 20 %") measures the commands, not the minute each ran in.
    ``paired``: ``python3 -c pass`` runs just before each run of each command, and each Timing's
    ``base`` is its own pairs' p50, so its ratio to ``pass`` is taken in the same minutes too."""
    base = Run(passing(), label="python3 -c pass")
    order = [c for case in cases for c in ((base, case) if paired else (case,))]
    got = _rounds(order, runs, warmup)
    if not paired:
        return got
    for k in range(0, len(got), 2):
        got[k + 1].base = got[k]
    return got[1::2]


def clock(cmd: list[str], *, stdin: bytes | None = None, env: dict[str, str] | None = None,
          cwd: str | None = None) -> tuple[subprocess.CompletedProcess[bytes], float, float]:
    """Run ``cmd`` once (stdout discarded, stderr kept): the process, its wall seconds and its
    user + system CPU seconds (its children's included)."""
    import resource

    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(cmd, input=stdin, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - start
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return proc, elapsed, r1.ru_utime + r1.ru_stime - r0.ru_utime - r0.ru_stime


def _rounds(cases: list[Run], runs: int, warmup: int) -> list[Timing]:
    samples: list[list[float]] = [[] for _ in cases]
    cpus: list[list[float]] = [[] for _ in cases]
    envs = [{**os.environ, **(case.env or {})} for case in cases]
    for i in range(warmup + runs):
        for k, case in enumerate(cases):
            if case.before is not None:
                case.before()
            proc, elapsed, used = clock(case.cmd, stdin=case.stdin, env=envs[k], cwd=case.cwd)
            if case.expect is not None and proc.returncode not in case.expect:
                raise RuntimeError(f"{case.cmd} exited {proc.returncode}: {proc.stderr.decode(errors='replace')[-500:]}")
            if i >= warmup:
                samples[k].append(elapsed)
                cpus[k].append(used)
    return [Timing(case.label or " ".join(case.cmd), statistics.median(s), runs, statistics.median(c))
            for case, s, c in zip(cases, samples, cpus)]


def passing() -> list[str]:
    """``python3 -c pass`` with the timed interpreter (:func:`installed` may have switched it)."""
    return [PYTHON, "-c", "pass"]


def baseline(runs: int = 15) -> Timing:
    return measure(passing(), runs=runs, label="python3 -c pass", paired=False)


def report(title: str, timings: list[Timing], base: Timing) -> None:
    """The rows under ``title``, after ``base``; a row timed in pairs (:func:`interleaved`) gives its
    ratio to its own ``python3 -c pass`` (in brackets), taken in the same minutes as the row."""
    print(f"\n== {title} ==")
    print(base.row(base.p50, base.cpu))
    for t in timings:
        print(t.row(base.p50, base.cpu))
    sys.stdout.flush()


def okfpro(*args: str) -> list[str]:
    return [PYTHON, "-m", "okfpro", *args]


def script(*args: str) -> list[str]:
    """The ``okfpro`` console script, as users run it: pip's generated wrapper (it calls
    ``okfpro.__main__:entry``; no ``runpy``, which ``python -m`` imports; the wrapper of a pip
    older than 25.0 also imports ``re``), beside the timed interpreter."""
    return [os.path.join(os.path.dirname(PYTHON), "okfpro"), *args]


def launchers(ws: str | os.PathLike[str]) -> str:
    """Install the hook launchers into ``ws/.claude/hooks`` as ``okfpro init`` does (the files of
    ``hooks/`` with their run bit, the pin naming the timed interpreter and ``one-process``);
    returns that folder."""
    import shutil

    hooks = os.path.join(ws, ".claude", "hooks")
    os.makedirs(hooks, exist_ok=True)
    for name in sorted(os.listdir(os.path.join(REPO, "hooks"))):
        if name.endswith(".py"):
            shutil.copy2(os.path.join(REPO, "hooks", name), os.path.join(hooks, name))
    with open(os.path.join(hooks, "okfpro-python"), "w") as f:
        f.write(PYTHON + "\none-process\n")
    return hooks


def installed(workdir: str) -> str:
    """Point :func:`okfpro` and :func:`baseline` at a fresh venv under ``workdir`` holding a
    non-editable install of this working tree (built from a copy, so the tree gets no build
    files); its dependencies are the running interpreter's (a path line, not a site dir: that
    venv's own ``.pth`` files, the editable finder among them, do not run).  Returns its python."""
    import shutil
    import sysconfig

    global PYTHON
    venv = os.path.join(workdir, "venv")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", venv], check=True)
    python = os.path.join(venv, "bin", "python")
    site = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          check=True, capture_output=True, text=True).stdout.strip()
    src = os.path.join(workdir, "src")
    shutil.copytree(REPO, src, ignore=shutil.ignore_patterns(".git", "build", "dist", "*.egg-info", "__pycache__",
                                                             ".okf-memory", ".tmp", "node_modules"))
    # built in pip's isolated build environment: pyproject.toml's SPDX license string needs setuptools
    # 77 or later, which the running interpreter's own may not be
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", site, src], check=True)
    deps = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    with open(os.path.join(site, "_bench_deps.pth"), "w") as f:
        f.write("".join(d + "\n" for d in sorted(deps)))
    # the console script as pip writes it for a venv's install: pip's own script maker and template
    # (since pip 25.0, pypa/pip#13166, one that imports no `re`; distlib's, which older pips used, imports it)
    try:
        from pip._internal.operations.install.wheel import PipScriptMaker as ScriptMaker
    except ImportError:
        from pip._vendor.distlib.scripts import ScriptMaker

    maker = ScriptMaker(None, os.path.join(venv, "bin"), add_launchers=False)
    maker.executable, maker.clobber, maker.variants, maker.set_mode = python, True, {""}, True
    maker.make("okfpro = okfpro.__main__:entry")
    check = subprocess.run([python, "-c", "import okfpro, sys; print(okfpro.__file__)"], cwd=workdir,
                           check=True, capture_output=True, text=True).stdout.strip()
    if not check.startswith(site):
        raise SystemExit(f"the bench venv imports okfpro from {check}, not from its install in {site}")
    PYTHON = python
    return python


def install_arg(ap: object) -> None:
    """``--editable``: time the running interpreter's own install instead (see :func:`installed`)."""
    ap.add_argument("--editable", action="store_true",  # type: ignore[attr-defined]  # ap: an ArgumentParser
                    help="time this interpreter's okfpro (an editable install's finder slows every process, "
                         "python3 -c pass included) instead of a throwaway non-editable install")
