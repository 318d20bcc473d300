"""The workspace scaffold: ``okfpro init`` and ``okfpro upgrade`` write ``template/`` into a directory.

The template is split by ownership, not subject:

* ``template/owned/`` — tool-owned files (the agent skill and its guides, the pre-commit config,
  the CI workflow), plus the hook launchers, which are copied from the repository's ``hooks/``
  directory into ``.claude/hooks/``.  ``upgrade`` rewrites these.
* ``template/seed/`` — the adopter's files (the ``.okf/`` bundle, ``CLAUDE.md``, ``AGENTS.md``,
  ``README.md``, ``.gitignore``, ``.tmp/``, ``okfpro.toml``), written once and never overwritten.
  ``gitignore`` is stored without its dot and written as ``.gitignore``.
* ``template/wiring/<agent>/`` — the hook wiring for one agent host (seeded, like ``seed/``).

``init`` never overwrites: a collision is staged beside the file as ``<path>.okfpro-new``
(refreshed, never stacked) unless the content is identical or the file is inside ``.okf/`` (then it
is kept, silently).  Every file is written atomically; the set is not, so idempotence is the safety.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from okfpro.core.record import Frozen, Value, set_field
from okfpro.io.atomic import atomic_write
from okfpro.io.roots import git_fence, root_kind
from okfpro.io.wiring import JSON_WIRING, MERGEABLE, hooks_by_event

NEW_SUFFIX = ".okfpro-new"
AGENTS = ("claude", "codex", "gemini")
DEFAULT_AGENT = "claude"
LAUNCHER_DIR = ".claude/hooks"
# The launchers run the okfpro of the interpreter named in this file (see hooks/_launch.py); it is
# machine-local, so the seeded .gitignore ignores it and every init / upgrade refreshes it.
PIN_FILE = f"{LAUNCHER_DIR}/okfpro-python"
BUNDLE_DIR = ".okf"
SCRIPT_MODE = 0o755
FILE_MODE = 0o644
# Files of the agent-host wiring that mark an agent as already wired (used by ``upgrade``).
WIRING_MARKERS = {
    "claude": ".claude/settings.json",
    "codex": ".codex/hooks.json",
    "gemini": ".gemini/settings.json",
}
_DOTLESS = {"gitignore": ".gitignore"}
_SKIP_NAMES = {"__pycache__", ".DS_Store"}


class ScaffoldError(Exception):
    """The scaffold cannot run: a refusal, a missing template, an unwritable destination."""


def _package_dir() -> Path:
    return Path(__file__).resolve().parent.parent


def template_root() -> Path:
    """Where the template lives: inside the installed package, else beside a source checkout."""
    packaged = _package_dir() / "_template"
    if (packaged / "seed").is_dir():
        return packaged
    checkout = _package_dir().parent / "template"
    if (checkout / "seed").is_dir():
        return checkout
    raise ScaffoldError(
        f"okfpro's workspace template is missing from this installation (looked in {packaged} and {checkout}); "
        "reinstall okfpro"
    )


def template_hooks(host: str) -> dict[str, list[dict[str, Any]]]:
    """The hook entries ``init``/``upgrade`` write for ``host``, by event."""
    return hooks_by_event(json.loads((template_root() / "wiring" / host / JSON_WIRING[host]).read_text(encoding="utf-8")))


def launcher_root() -> Path:
    """Where the hook launcher scripts live: inside the installed package, else the checkout's hooks/."""
    packaged = _package_dir() / "_launchers"
    if packaged.is_dir() and any(packaged.glob("*.py")):
        return packaged
    checkout = _package_dir().parent / "hooks"
    if checkout.is_dir():
        return checkout
    raise ScaffoldError(f"okfpro's hook launchers are missing from this installation (looked in {packaged} and {checkout})")


class Item(Frozen):
    """One file the scaffold writes: destination (relative, POSIX), bytes, mode, ownership.

    ``machine`` marks machine-local state (the interpreter pin): refreshed by every run, never staged.
    """

    __slots__ = _fields = ("rel", "data", "mode", "owned", "machine")
    rel: str
    data: bytes
    mode: int
    owned: bool
    machine: bool

    def __init__(self, rel: str, data: bytes, mode: int, owned: bool, machine: bool = False) -> None:
        set_field(self, "rel", rel)
        set_field(self, "data", data)
        set_field(self, "mode", mode)
        set_field(self, "owned", owned)
        set_field(self, "machine", machine)


class Report(Value):
    _fields = ("dest", "verb", "written", "rewritten", "staged", "left_alone", "merged", "backups", "not_active",
               "git_initialised", "agents", "merge_driver", "after_merge")
    dest: Path
    verb: str
    written: list[str]
    rewritten: list[str]
    staged: list[str]
    left_alone: list[str]
    merged: list[str]
    backups: list[str]
    not_active: list[tuple[str, str]]  # (file, why): wiring that is off
    git_initialised: bool
    agents: tuple[str, ...]
    merge_driver: str  # what registering `okfpro merge-file` did (okfpro/io/mergewiring.py)
    after_merge: list[str]  # what kept the after-merge hooks out

    def __init__(self, dest: Path, verb: str, written: list[str] | None = None, rewritten: list[str] | None = None,
                 staged: list[str] | None = None, left_alone: list[str] | None = None,
                 merged: list[str] | None = None, backups: list[str] | None = None,
                 not_active: list[tuple[str, str]] | None = None, git_initialised: bool = False,
                 agents: tuple[str, ...] = (), merge_driver: str = "", after_merge: list[str] | None = None) -> None:
        self.dest = dest
        self.verb = verb
        self.written = [] if written is None else written
        self.rewritten = [] if rewritten is None else rewritten
        self.staged = [] if staged is None else staged
        self.left_alone = [] if left_alone is None else left_alone
        self.merged = [] if merged is None else merged
        self.backups = [] if backups is None else backups
        self.not_active = [] if not_active is None else not_active
        self.git_initialised = git_initialised
        self.agents = agents
        self.merge_driver = merge_driver
        self.after_merge = [] if after_merge is None else after_merge

    def as_json(self) -> dict:
        return {
            "root": str(self.dest),
            "verb": self.verb,
            "agents": list(self.agents),
            "written": self.written,
            "rewritten": self.rewritten,
            "staged": self.staged,
            "left alone": self.left_alone,
            "merged": self.merged,
            "backups": self.backups,
            "not active": [{"path": rel, "reason": why} for rel, why in self.not_active],
            "git initialised": self.git_initialised,
            "merge driver": self.merge_driver,
            "after-merge hooks not written": self.after_merge,
        }


def _walk(base: Path) -> list[tuple[str, Path]]:
    out: list[tuple[str, Path]] = []
    if not base.is_dir():
        return out
    for dirpath, dirnames, filenames in os.walk(base):
        dirnames[:] = sorted(d for d in dirnames if d not in _SKIP_NAMES)
        for name in sorted(filenames):
            if name in _SKIP_NAMES or name.endswith((".pyc", ".pyo")):
                continue
            full = Path(dirpath) / name
            rel = full.relative_to(base).as_posix()
            out.append((rel, full))
    return out


def _mode_of(path: Path) -> int:
    """Scripts (``*.py`` / ``*.sh`` not starting with ``_``) get their run bit; everything else 0644."""
    if path.suffix in (".py", ".sh") and not path.name.startswith("_"):
        return SCRIPT_MODE
    return FILE_MODE


def launcher_items() -> list[Item]:
    """The hook launchers, copied from hooks/ into ``.claude/hooks/`` with their run bit."""
    items = []
    for rel, full in _walk(launcher_root()):
        if "/" in rel or rel.startswith(".") or rel == "__init__.py" or rel.endswith(".md"):
            continue
        items.append(Item(f"{LAUNCHER_DIR}/{rel}", full.read_bytes(), _mode_of(full), owned=True))
    if items:
        # line 2: this interpreter runs okfpro (it is running init), so the launchers may answer inside it
        pin = (os.path.abspath(sys.executable) + "\none-process\n").encode("utf-8")
        items.append(Item(PIN_FILE, pin, FILE_MODE, owned=True, machine=True))
    return items


WORKFLOW = ".github/workflows/okfpro.yml"
_INSTALL_MARK = b"__OKFPRO_INSTALL_STEP__"


def ci_install(dest: Path) -> tuple[str | None, str]:
    """(the install step's command for the CI workflow of the workspace at DEST, or None; where it came
    from): okfpro.toml's ``[ci] requirement``, else what this machine installed (okfpro.io.installed)."""
    import shlex

    try:
        import tomllib

        with open(dest / "okfpro.toml", "rb") as handle:
            configured = tomllib.load(handle).get("ci", {}).get("requirement")
        if isinstance(configured, str) and configured.strip():
            return f"python -m pip install {shlex.quote(configured.strip())}", "okfpro.toml [ci] requirement"
    except (OSError, ValueError):
        pass
    from okfpro.io.installed import pip_install

    return pip_install(portable=True)


def _install_step(dest: Path) -> bytes:
    import shlex

    command, why = ci_install(dest)
    if command is not None:
        return command.encode()
    message = (f"okfpro: no installable okfpro for CI: {why}. Set [ci] requirement in okfpro.toml "
               "(e.g. a git URL with a commit) and run okfpro upgrade.")
    return f"echo {shlex.quote('::error::' + message)}; exit 1".encode()


def template_items(agents: tuple[str, ...] = (DEFAULT_AGENT,), dest: Path | None = None) -> list[Item]:
    """Every file ``init`` writes, in a stable order: owned tree, launchers, seed tree, wiring."""
    root = template_root()
    items: list[Item] = []
    for rel, full in _walk(root / "owned"):
        data = full.read_bytes()
        if rel == WORKFLOW and _INSTALL_MARK in data:
            data = data.replace(_INSTALL_MARK, _install_step(dest if dest is not None else Path(".")))
        items.append(Item(rel, data, _mode_of(full), owned=True))
    items.extend(launcher_items())
    for rel, full in _walk(root / "seed"):
        rel = _DOTLESS.get(rel, rel)
        items.append(Item(rel, full.read_bytes(), _mode_of(full), owned=False))
    for agent in agents:
        if agent not in AGENTS:
            raise ScaffoldError(f"unknown agent {agent!r}; known: {', '.join(AGENTS)}")
        for rel, full in _walk(root / "wiring" / agent):
            items.append(Item(rel, full.read_bytes(), _mode_of(full), owned=False))
    seen: set[str] = set()
    unique: list[Item] = []
    for item in items:
        if item.rel not in seen:
            seen.add(item.rel)
            unique.append(item)
    return unique


def _inside_bundle(rel: str) -> bool:
    return rel == BUNDLE_DIR or rel.startswith(BUNDLE_DIR + "/")


def check_destination(dest: Path) -> None:
    """The one refusal: DEST is already a bundle at its own root and has no ``.okf/`` bundle."""
    if dest.exists() and not dest.is_dir():
        raise ScaffoldError(f"{dest} exists and is not a directory")
    if not dest.is_dir():
        return
    kind = root_kind(dest)
    if kind is None or (dest / BUNDLE_DIR / "index.md").is_file():
        return
    raise ScaffoldError(
        f"{dest} is already an OKF bundle at its own root ({kind}: index.md"
        + (" declares okf_version" if kind == "strong" else " beside board.md or log.md")
        + "), and it has no .okf/. Writing the workspace here would give this repository two bundle roots.\n"
        "Move the bundle under .okf/ first, keeping its history, then run this again:\n"
        "  mkdir .okf && git mv index.md board.md log.md <the bundle's other files and folders> .okf/"
    )


def _blocked_parent(dest: Path, rel: str) -> str | None:
    """A path component on the way to ``rel`` that exists and is not a directory."""
    parts = rel.split("/")[:-1]
    here = dest
    for part in parts:
        here = here / part
        if here.is_symlink() or (here.exists() and not here.is_dir()):
            return here.relative_to(dest).as_posix()
    return None


def _same(path: Path, data: bytes) -> bool:
    try:
        if path.is_symlink() or not path.is_file():
            return False
        return path.read_bytes() == data
    except OSError:
        return False


def _write(dest: Path, rel: str, data: bytes, mode: int) -> None:
    target = dest / rel
    target.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(target, data, mode=mode)


def _ensure_git(dest: Path) -> bool:
    """Initialise a Git repository in DEST unless it already sits inside one."""
    if git_fence(dest.resolve()) is not None:
        return False
    try:
        import pygit2

        pygit2.init_repository(str(dest), bare=False)
        return True
    except Exception:  # pragma: no cover - pygit2 missing or broken: fall back to the CLI
        import subprocess

        try:
            subprocess.run(["git", "init", "-q", str(dest)], check=True, capture_output=True)
        except (OSError, subprocess.CalledProcessError) as exc:
            raise ScaffoldError(f"could not initialise a Git repository in {dest}: {exc}") from exc
        return True


def install(dest: str | os.PathLike, *, agents: tuple[str, ...] = (DEFAULT_AGENT,), upgrade: bool = False) -> Report:
    """Write the template into DEST (``init``), or refresh it (``upgrade``).

    ``init``: never overwrite; stage collisions as ``<path>.okfpro-new`` (identical content and
    files inside ``.okf/`` are left alone).  ``upgrade``: rewrite tool-owned files, write missing
    seeded files, leave every existing seeded file alone.
    """
    target = Path(dest)
    check_destination(target)
    items = template_items(agents, target)
    blocked = sorted({b for item in items if (b := _blocked_parent(target, item.rel))})
    if blocked:
        raise ScaffoldError(
            "cannot write the workspace: "
            + ", ".join(blocked)
            + (" is" if len(blocked) == 1 else " are")
            + " in the way (a file or symlink where the template needs a directory). Nothing was written."
        )
    target.mkdir(parents=True, exist_ok=True)
    report = Report(dest=target.resolve(), verb="upgrade" if upgrade else "init", agents=tuple(agents))
    if not upgrade:
        report.git_initialised = _ensure_git(target)
    for item in items:
        path = target / item.rel
        exists = path.exists() or path.is_symlink()
        if not exists:
            _write(target, item.rel, item.data, item.mode)
            report.written.append(item.rel)
            continue
        if item.rel == ".gitignore" and path.is_file() and not path.is_symlink():
            _complete_ignores(target, item, report)  # the owner's lines kept, okfpro's added (issue 38.3)
            continue
        if _same(path, item.data):
            if item.owned and item.mode == SCRIPT_MODE and not os.access(path, os.X_OK):
                os.chmod(path, item.mode)
            report.left_alone.append(item.rel)
            continue
        if item.rel in MERGEABLE and path.is_file() and not path.is_symlink() and not (
            upgrade and item.owned and _is_template_copy(path)
        ):
            _merge_into(target, item, report, stage=not upgrade)
            continue
        if (upgrade and item.owned or item.machine) and path.is_file() and not path.is_symlink():
            _write(target, item.rel, item.data, item.mode)
            (report.rewritten if upgrade else report.written).append(item.rel)
            continue
        if upgrade or _inside_bundle(item.rel):
            report.left_alone.append(item.rel)
            continue
        staged = item.rel + NEW_SUFFIX
        staged_path = target / staged
        if staged_path.is_dir() and not staged_path.is_symlink():
            raise ScaffoldError(f"cannot stage {staged}: a directory of that name is in the way")
        if staged_path.is_symlink():
            staged_path.unlink()
        _write(target, staged, item.data, item.mode)
        report.staged.append(staged)
    _register_merge_driver(target, report)
    return report


def _register_merge_driver(dest: Path, report: Report) -> None:
    """``.gitattributes`` routes the writer files to ``okfpro merge-file``; the repo's config names it."""
    from okfpro.io.mergewiring import register

    had = (dest / ".gitattributes").is_file()
    added, changed, problem, hooks = register(dest)
    if added:
        (report.merged if had else report.written).append(".gitattributes")
    elif had:
        report.left_alone.append(".gitattributes")
    if problem is not None:
        report.merge_driver = f"not active: {problem}"
    else:
        report.merge_driver = "configured (merge.okfpro in .git/config)" if changed else "already configured"
    report.after_merge = hooks


def _is_template_copy(path: Path) -> bool:
    """A tool-owned file an earlier okfpro wrote and nobody extended (``upgrade`` may rewrite it whole)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    if not text.startswith("# Tool-owned"):
        return False

    try:
        import yaml

        data = yaml.safe_load(text) or {}
        ids = [h.get("id") for r in data.get("repos", []) for h in r.get("hooks", [])]
        return all(str(i).startswith("okfpro-") for i in ids)
    except Exception:  # noqa: BLE001 - unreadable: merge refuses and stages
        return False


def _merge_into(dest: Path, item: Item, report: Report, *, stage: bool) -> None:
    """Merge the template's wiring into the owner's file; stage it and say so when that cannot be done."""
    from okfpro.io.wiring import MergeError, backup_path, merge

    path = dest / item.rel
    try:
        existing = path.read_text(encoding="utf-8")
        merged = merge(item.rel, existing, item.data.decode("utf-8"))
    except (MergeError, UnicodeDecodeError, OSError) as exc:
        report.not_active.append((item.rel, str(exc)))
        if stage:
            staged = item.rel + NEW_SUFFIX
            _write(dest, staged, item.data, item.mode)
            report.staged.append(staged)
        else:
            report.left_alone.append(item.rel)
        return
    if merged is None:
        report.left_alone.append(item.rel)
        return
    backup = backup_path(path)
    if not any(b.startswith(item.rel + ".okfpro-backup") for b in report.backups) and not path.with_name(
        path.name + ".okfpro-backup"
    ).exists():
        atomic_write(backup, existing.encode("utf-8"), mode=FILE_MODE)
        report.backups.append(backup.relative_to(dest).as_posix())
    atomic_write(path, merged.encode("utf-8"), mode=item.mode)
    report.merged.append(item.rel)


IGNORE_HEAD = "# okfpro: scratch state, memory and this machine's files (okfpro init added these lines)"


def merge_ignores(existing: str, template: str) -> str | None:
    """The owner's ``.gitignore`` with the template's lines it lacks appended (in the template's order,
    under one comment); ``None`` when it lacks none.  Nothing of the owner's is changed or reordered."""
    have = {line.strip() for line in existing.splitlines()}
    lacking = [line for line in template.splitlines() if line.strip() and not line.startswith("#") and line.strip() not in have]
    if not lacking:
        return None
    lead = "" if not existing or existing.endswith("\n") else "\n"
    return existing + lead + ("\n" if existing.strip() else "") + IGNORE_HEAD + "\n" + "\n".join(lacking) + "\n"


def _complete_ignores(dest: Path, item: Item, report: Report) -> None:
    path = dest / item.rel
    try:
        raw = path.read_bytes()
        merged = merge_ignores(raw.decode("utf-8"), item.data.decode("utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        report.not_active.append((item.rel, f"cannot be read ({exc}); add okfpro's lines by hand: "
                                            + ", ".join(l for l in item.data.decode().splitlines() if l.strip())))
        return
    if merged is None:
        report.left_alone.append(item.rel)
        return
    atomic_write(path, merged.encode("utf-8"), mode=path.stat().st_mode & 0o777)
    report.merged.append(item.rel)


def ignores_staged(dest: Path) -> bool:
    """Does DEST's ``.gitignore`` ignore ``*.okfpro-new`` files (read from the tree)?"""
    try:
        lines = (dest / ".gitignore").read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return False
    return any(line.strip() in ("*" + NEW_SUFFIX, "*.okfpro-new", "/*.okfpro-new") for line in lines)


def missing_ignores(dest: Path) -> list[str]:
    """The template's .gitignore lines that DEST's own .gitignore lacks (a file it already had)."""
    try:
        want = (template_root() / "seed" / "gitignore").read_text(encoding="utf-8").splitlines()
        have = {line.strip() for line in (dest / ".gitignore").read_text(encoding="utf-8", errors="replace").splitlines()}
    except (OSError, ScaffoldError):
        return []
    return [line for line in want if line.strip() and not line.startswith("#") and line.strip() not in have]


def render(report: Report) -> str:
    """The human report: what was written, staged, left alone, and what to do next."""
    lines = [f"okfpro {report.verb} — {report.dest}"]
    if report.git_initialised:
        lines.append("  initialised a Git repository here")
    for label, paths in (
        ("wrote", report.written),
        ("merged", report.merged),
        ("backup", report.backups),
        ("rewrote", report.rewritten),
        ("staged", report.staged),
        ("kept", report.left_alone),
    ):
        for rel in paths:
            lines.append(f"  {label:<8} {rel}")
    counts = f"{len(report.written)} written, "
    if report.verb == "upgrade":
        counts += f"{len(report.rewritten)} rewritten, "
    if report.merged:
        counts += f"{len(report.merged)} merged, "
    counts += f"{len(report.staged)} staged, {len(report.left_alone)} left alone"
    lines.append(counts)
    if report.merge_driver.startswith("not active"):
        lines.append(f"Merge driver {report.merge_driver.upper()[:10]}{report.merge_driver[10:]}. Git merges the board, "
                     "log and journal as plain text here; fix that and run `okfpro upgrade`.")
    elif report.merge_driver:
        lines.append(f"Merge driver {report.merge_driver}: board, log and journal merge line by line, nothing lost.")
    lines.extend(f"After-merge hook not written: {why}." for why in report.after_merge)
    if ".gitignore" in report.merged:
        lines.append("Added okfpro's lines to your .gitignore (yours are kept as they were): the interpreter pin, "
                     "*.okfpro-new, the memory repository and .tmp/ stay out of `git add -A`.")
    wiring = [m for m in report.merged if m not in (".gitattributes", ".gitignore")]
    if wiring:
        lines.append(
            "Merged okfpro's hook entries into your " + ", ".join(wiring) + ": every key and entry of yours "
            "is kept (the original is in the *.okfpro-backup beside it); a re-run changes nothing."
        )
    for rel, why in report.not_active:
        lines.append(
            f"NOT ACTIVE — {rel}: {why}. okfpro's wiring for it was not merged, so that door is OFF until you fix the "
            f"file and run `okfpro upgrade`{' (the template is staged beside it as ' + rel + NEW_SUFFIX + ')' if rel + NEW_SUFFIX in report.staged else ''}. "
            "`okfpro audit` reports it until then."
        )
    if report.staged:
        lines.append(
            "Each *.okfpro-new file is the template's version of a file you already had; yours was not touched. "
            "Merge what you want from it into your file, then delete it."
        )
        if ignores_staged(report.dest):
            lines.append(".gitignore already ignores *.okfpro-new, so none of them will be committed by accident.")
        else:
            lines.append(".gitignore does not ignore *.okfpro-new: add that line, or take care not to commit them.")
    if ".gitignore" + NEW_SUFFIX in report.staged:
        lacking = missing_ignores(report.dest)
        if lacking:
            lines.append(
                "Your .gitignore lacks lines the workspace needs — without them `git add -A` commits scratch "
                "state (.tmp/), the memory repository, and this machine's interpreter pin. Add: "
                + ", ".join(lacking)
            )
    if "codex" in report.agents:
        lines.append(
            "Codex: Codex runs this project's hooks only after you trust the project and review the hooks "
            "(/hooks in Codex) — until then no okfpro gate runs under Codex. `okfpro doctor` reads their trust."
        )
    if "gemini" in report.agents:
        lines.append("Gemini CLI: it loads .gemini/settings.json (and so the hooks) only in a folder you have trusted.")
    if WORKFLOW in report.written + report.rewritten:
        command, why = ci_install(report.dest)
        if command is None:
            lines.append(f"CI: {WORKFLOW} cannot install okfpro yet — {why}. Its install step fails with that "
                         "message until you set [ci] requirement in okfpro.toml and run `okfpro upgrade`.")
    top = git_fence(report.dest.resolve()) if report.dest.is_dir() else None
    if top is not None and top != str(report.dest.resolve()):
        lines.append(
            f"Warning: {report.dest} is inside the Git repository at {top}, not at its root. Git runs the "
            "pre-commit hooks from the repository root, and the Codex wiring looks for .claude/hooks/ there, so "
            f"those doors are not active for this workspace. Make it a repository of its own (`git init "
            f"{report.dest}`), or run `okfpro init` at the repository root."
        )
    if report.verb == "init" and f"{BUNDLE_DIR}/board.md" in report.written:
        lines.append(
            f"Next, in {report.dest}: `pre-commit install` (the commit door; `pip install pre-commit` first if you "
            "do not have it), then `okfpro state` to see the board. After you change the bundle, "
            "`okfpro log-snapshot` appends today's Snapshot line to .okf/log.md: the commit door refuses a "
            "bundle change without it."
        )
    return "\n".join(lines)
