"""Session-wide test environment: a Git identity and a pinned, hermetic home.

Tests run real Git (pygit2 and the git CLI); a CI machine may have no global
identity, so one is set here for every process the tests start.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tests.helpers import REPO, cache_dir


def _tmp_in_memory() -> None:
    """The run's temporary files (``tmp_path``, ``tempfile``, and every process the tests start,
    through ``TMPDIR``) on the RAM disk ``/dev/shm`` when it is ours to use and has 2 GiB free.

    The tests create thousands of repositories, bundles and stores; on a disk every fsync of okfpro
    and Git waits for the device (three memory test files: 78 s wall on ext4, 25 s here, at load 7).
    No test asserts durability across a power cut, so nothing is weaker.  One directory per run,
    ``/dev/shm/okfpro-tests-<uid>/run-<pid>-*``; xdist's workers inherit it through the environment;
    a run whose process is gone is removed when the next run starts.  ``OKFPRO_TESTS_TMP=system``
    keeps the system's temporary directory."""
    if os.environ.get("OKFPRO_TESTS_TMP"):
        return  # chosen already: by the xdist controller, or by hand ("system")
    base = f"/dev/shm/okfpro-tests-{os.getuid()}"
    try:
        free = shutil.disk_usage("/dev/shm").free
        if free < 2 << 30:
            return
        os.makedirs(base, mode=0o700, exist_ok=True)
        st = os.lstat(base)
        if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid() or st.st_mode & 0o077:
            return  # not ours alone: keep the system's
        for name in os.listdir(base):
            pid = name.split("-")[1] if name.startswith("run-") and name.count("-") >= 2 else ""
            if pid.isdigit() and not _alive(int(pid)):
                shutil.rmtree(os.path.join(base, name), ignore_errors=True)
        run = tempfile.mkdtemp(prefix=f"run-{os.getpid()}-", dir=base)
    except OSError:
        return
    os.environ["TMPDIR"] = os.environ["OKFPRO_TESTS_TMP"] = run
    tempfile.tempdir = None  # read TMPDIR again


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


_tmp_in_memory()

# With PYTHONDONTWRITEBYTECODE set, every run would compile and assertion-rewrite all test modules
# again in every worker (~5 s of CPU each, measured).  Keep that bytecode in a cache directory outside
# the checkout instead.  The processes the tests start (okfpro verbs and hooks, launchers, Git's
# drivers and server hooks: ~700 Python processes in the inner loop) inherit the same: with the variable
# set they compiled every okfpro module without bytecode beside it on every start (3 in 4 of them here:
# ~6 ms more CPU per hook process, ~40 ms per `okfpro search`, measured).  PYTHONPYCACHEPREFIX writes
# nothing beside any source, so a workspace stays as clean; test_qa_regressions' bytecode test drops
# both variables, as a host's environment has neither.
os.environ.setdefault("OKFPRO_TESTS_CACHE", str(cache_dir()))
if sys.dont_write_bytecode and sys.pycache_prefix is None:
    sys.pycache_prefix = str(cache_dir("pycache"))
    sys.dont_write_bytecode = False
if os.environ.get("PYTHONDONTWRITEBYTECODE") and not os.environ.get("PYTHONPYCACHEPREFIX"):
    os.environ["PYTHONPYCACHEPREFIX"] = sys.pycache_prefix or str(cache_dir("pycache"))
    del os.environ["PYTHONDONTWRITEBYTECODE"]

os.environ.setdefault("GIT_AUTHOR_NAME", "okfpro tests")
os.environ.setdefault("GIT_AUTHOR_EMAIL", "tests@okfpro.invalid")
os.environ.setdefault("GIT_COMMITTER_NAME", "okfpro tests")
os.environ.setdefault("GIT_COMMITTER_EMAIL", "tests@okfpro.invalid")
os.environ.pop("OKFPRO_TODAY", None)
# Caches of bundles outside a workspace go to the user's cache directory: a private one per run.
os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="okfpro-test-cache-")
# The bundle registry: a private, empty one per run (never the developer's own).
os.environ["OKFPRO_HOME"] = tempfile.mkdtemp(prefix="okfpro-test-home-")
for _var in ("OKFPRO_TENANT", "OKFPRO_USER", "OKFPRO_AGENT", "OKFPRO_SESSION", "OKFPRO_BUNDLE", "OKFPRO_NO_CACHE"):
    os.environ.pop(_var, None)


@pytest.fixture(scope="session")
def okfpro_wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """This checkout's wheel, built once per worker (tests/test_packaging.py and tests/test_ci_workflow.py,
    one xdist group): ``pip wheel`` of a copy of the sources (so no ``build/`` or ``*.egg-info`` lands in
    the checkout), without build isolation when setuptools can build wheels offline, else with isolation.
    The isolated build from source is what pre-commit does in tests/test_precommit.py's language: python
    install."""
    base = tmp_path_factory.mktemp("pkg")
    src = base / "src"
    src.mkdir()
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")
    for name in ("pyproject.toml", "README.md", "okfpro", "template", "hooks"):
        origin = REPO / name
        if origin.is_dir():
            shutil.copytree(origin, src / name, ignore=ignore, symlinks=True)
        elif origin.exists():
            shutil.copy2(origin, src / name)
    dist = base / "dist"
    cmd = [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(dist), str(src)]
    if _offline_wheel_build_possible():
        cmd.insert(4, "--no-build-isolation")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    proc = subprocess.run(cmd, capture_output=True, text=True, env={**env, "PIP_DISABLE_PIP_VERSION_CHECK": "1"},
                          timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (built,) = dist.glob("okfpro-*.whl")
    return built


def _offline_wheel_build_possible() -> bool:
    """Can this interpreter's own setuptools build the wheel: 77 or later (pyproject.toml's SPDX
    license string), and ``wheel`` importable or setuptools 70.1 or later (which builds wheels itself)."""
    import setuptools

    version = tuple(int(x) for x in setuptools.__version__.split(".")[:2])
    if version < (77, 0):
        return False
    try:
        import wheel  # noqa: F401

        return True
    except ImportError:
        return version >= (70, 1)


@pytest.fixture
def today_env(monkeypatch: pytest.MonkeyPatch):
    """Pin okfpro's clock for a test: returns a setter."""

    def pin(day: str) -> None:
        monkeypatch.setenv("OKFPRO_TODAY", day)

    return pin


# Tests marked ``slow`` here rather than in their files (issue #12, the inner loop): each took
# 18 s or more in the full run of 2026-12-01 03:10 on two workers at load ~24 (a few seconds or
# more on a quiet machine: real servers, real hosts' doctors, many processes, drills).  Unmarked
# since, as their verbs run in-process (tests/helpers.invoke): read_only's read-only copy, memory_cli's
# policy and per-tier isolation, redact's seven shapes through memory remember, friction's verb.  A name
# that no longer matches a test of its collected file fails the run, so the list cannot rot.
SLOW = (
    "test_doctor.py::test_doctor_says_yes_only_when_the_whole_loop_runs",
    "test_doctor.py::test_doctor_text_report_and_bad_dir",
    "test_doctor.py::test_doctor_runs_every_host_command_and_names_what_is_off",
    "test_doctor.py::test_doctor_fails_the_old_gemini_quoting",
    "test_memory_index.py::test_index_equals_files",
    "test_recall_ranking.py::test_the_fused_ranking_of_the_index_equals_the_index_free_run",
    "test_hostile_yaml.py::test_every_reader_survives",
    "test_hostile_yaml.py::test_every_hostile_value_parses_to_something_every_reader_can_print",
    "test_hook_session.py::test_a_working_session_end_to_end",
    "test_mcp_isolation.py::test_a_broken_token_file_refuses_to_serve",
    "test_mcp_isolation.py::test_http_refuses_a_non_loopback_bind_without_tokens",
    "test_mcp_isolation.py::test_two_identities_on_one_memory_root_never_meet",
    "test_mcp.py::test_every_tool_answers_as_the_cli_does",
    "test_mcp.py::test_mcp_writer_and_cli_writer_at_once_lose_no_line",
    "test_memory_trust.py::test_forget_over_mcp_follows_the_same_erasure_policy",
    # the writers' drills: many processes killed or racing (the kill drill needs a quiet machine
    # to get any write through before its kills; it failed once at load 24)
    "test_writers.py::test_a_week_of_work",
    "test_writers.py::test_no_acknowledged_write_is_lost_while_tmp_is_deleted_and_git_clean_runs",
    "test_writers.py::test_writers_killed_mid_write_leave_nothing_in_the_bundle_and_lose_no_acknowledged_line",
    # the heaviest of the inner loop on 2026-12-01 07:48 (2.3-4 s CPU each, 8-18 s wall at load 11):
    # clones and a Git server racing purges and syncs, a real pre-commit install
    "test_memory_sync.py::test_concurrent_writes_merge_to_the_same_bytes_in_either_order",
    "test_memory_erasure_race.py::test_plain_git_push_of_a_stale_copy_is_refused_on_every_ref",
    "test_memory_erasure_race.py::test_a_tombstone_only_grows",
    "test_memory_erasure_race.py::test_entries_written_after_the_erasure_survive_the_race_as_a_new_root",
    "test_merge_driver.py::test_two_clones_capture_journal_and_log_the_same_day_and_pull_merges_everything",
    "test_scaffold.py::test_the_commit_door_uses_the_pin_without_an_activated_venv_and_names_the_cause",
)


def pytest_configure(config: pytest.Config) -> None:
    """``-m "not slow"`` is the inner loop (tests/helpers.quick): property tests run a quarter of their
    Hypothesis examples, mypy keeps its incremental cache.  ``OKFPRO_TESTS=full`` set beforehand keeps
    the whole run's strength; the whole run (what CI runs) is never quick."""
    if "not slow" in (config.option.markexpr or ""):
        os.environ.setdefault("OKFPRO_TESTS", "quick")


def pytest_report_header(config: pytest.Config) -> str | None:
    """Under ``OKFPRO_HOSTS=latest`` (tests/hostkit.py), the host releases the run found installed."""
    from tests import hostkit

    if not hostkit.latest():
        return None
    found = ", ".join(f"{p} {v or 'not installed yet'}" for p, v in hostkit.versions(hostkit.cache_dir()).items())
    return f"hosts: latest releases in {hostkit.cache_dir()}: {found}"


def _named(item: pytest.Item) -> str:
    return f"{item.path.name}::{getattr(item, 'originalname', item.name)}"


def _stale_slow_names(items: list[pytest.Item]) -> list[str]:
    """The names of ``SLOW`` whose file was collected but defines no such test function.  Asked of the
    modules themselves, not of ``items``: a node id or ``-k`` selects a few tests of a file, and the
    others are still there."""
    modules = {item.path.name: item.module for item in items if getattr(item, "module", None) is not None}
    stale = []
    for name in SLOW:
        file, _, func = name.partition("::")
        if file in modules and not callable(getattr(modules[file], func, None)):
            stale.append(name)
    return stale


@pytest.fixture
def _group_ignored() -> None:
    pytest.fail("pytest-xdist ignored this test's xdist_group under --dist loadgroup, so the group's shared "
                "fixtures are built on every worker: see the pytest bound in pyproject.toml")


def pytest_itemcollected(item: pytest.Item) -> None:
    """Mark the tests of ``SLOW`` as each is collected: before ``-k`` and ``-m`` deselect, so that
    ``-m "not slow"`` leaves them out."""
    if _named(item) in SLOW:
        item.add_marker(pytest.mark.slow)


@pytest.hookimpl(trylast=True)  # after pytest-xdist's own, which names each grouped test's group
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """A name of ``SLOW`` that is not a test of its collected file stops the run; the ``slow`` tests
    run first: under ``-n`` a 60 s test started last is a minute of one idle core.  Under ``--dist
    loadgroup`` a test marked ``xdist_group`` whose node id does not end in its group's name fails:
    pytest-xdist then ignores the groups without a word (it did with pytest 9.2, pyproject's bound) and
    their shared fixtures are built on every worker."""
    if getattr(config.option, "loadgroup", False):  # set in pytest-xdist's workers
        for item in items:
            if item.get_closest_marker("xdist_group") and "@" not in item.nodeid:
                item.fixturenames.insert(0, "_group_ignored")  # a collection error here loses its message
    stale = _stale_slow_names(items)
    if stale:
        raise pytest.UsageError(f"tests/conftest.py SLOW names tests that do not exist: {stale}")
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)  # stable: file order otherwise
