"""The Stop gate (Rule 2): a session that changed Markdown in the bundle leaves it summarised.

Dirty Markdown under the bundle → the closed core present, ``board.md`` / ``log.md``
inside the bundle, today's Snapshot line present and agreeing with the bundle,
the board's grammar, every in-flight project paired with its evidence.
"""

from __future__ import annotations

import os

from okfpro.hooks.answer import Answer
from okfpro.hooks.context import Ctx
from okfpro.io.roots import within

TYPE_CHECKING = False
if TYPE_CHECKING:
    from okfpro.io.stopfacts import Briefings

GIT_TIMEOUT = 20.0  # seconds, from the start of the child


class GitStatus:
    """``git --no-optional-locks status --porcelain -z -- '*.md'`` under a bundle root, in a child started
    now and read later.  Without ``--no-optional-locks`` git rewrites ``.git/index`` whenever a file's
    stat data went stale with its content unchanged (a ``touch``, a checkout): a reader writing into
    the repository it was only asked about.  Such a file is then compared by content at each Stop.

    git answers every Stop: no answer is kept anywhere, so no file the agent can write (a cache under
    ``.tmp/``) can tell the gate a dirty tree is clean (tests/test_forged_cache.py).

    :meth:`result` is ``(non-empty, None)`` — or ``(True, why git could not say)``.  A git that
    fails (dubious ownership, a broken ``GIT_DIR``, no git at all) is not a clean tree and not a
    missing Snapshot line: the gate names the failure and refuses.  The child runs while the
    event's other checks do (:func:`start`); its answer is the one it would have given alone.
    """

    def __init__(self, root: str) -> None:
        from okfpro.io.roots import git_fence

        self.proc = None
        self.root = root
        self.answer: tuple[bool, str | None] | None = None
        if git_fence(root) is None and not os.environ.get("GIT_DIR"):
            self.answer = (True, None)  # no repository: nothing says what changed, so every check runs
            return
        from okfpro.io.spawn import Child

        try:
            self.proc = Child(["git", "-C", root, "--no-optional-locks", "status", "--porcelain", "-z", "--", "*.md"])
        except OSError as exc:
            self.answer = (True, f"git could not be run ({type(exc).__name__}: {exc})")

    def result(self) -> tuple[bool, str | None]:
        if self.answer is None:
            self.answer = self._collect()
        return self.answer

    def _collect(self) -> tuple[bool, str | None]:
        """git's answer."""
        from okfpro.io.spawn import TimedOut

        proc = self.proc
        assert proc is not None
        try:
            returncode, out, err = proc.communicate(GIT_TIMEOUT)
        except TimedOut:
            return True, f"git status did not answer within {GIT_TIMEOUT:g} s"
        if returncode != 0:
            said = [ln.strip() for ln in err.decode("utf-8", "replace").splitlines() if ln.strip()]
            first = next((ln for ln in said if ln.lower().startswith(("fatal", "error"))), said[0] if said else "")
            return True, f"git status exited {returncode}" + (f": {first[:300]}" if first else "")
        return bool(out), None


def dirty_markdown(root: str) -> tuple[bool, str | None]:
    """(``git status --porcelain -z -- '*.md'`` non-empty, None) — or (True, why git could not say)."""
    return GitStatus(root).result()


def start(ctx: Ctx) -> None:
    """Before the event's checks run: start the gate's ``git status`` child, so it runs while the
    memory capture does.  When the capture may write under the bundle root, the answer is
    settled here, before it writes, as when the gate ran first."""
    if ctx.event.stop_hook_active:
        return
    root = ctx.enclosing()
    if root is None:
        return
    status = ctx.memo[GitStatus] = GitStatus(root)
    if status.answer is None and not _capture_writes_outside(ctx, root):
        status.result()


def _capture_writes_outside(ctx: Ctx, root: str) -> bool:
    """True when this event's memory capture cannot write a file under ``root``: capture is
    off, the workspace's configuration is unreadable (nothing is written), there is no
    usable memory root, or the memory root and the bundle root are disjoint."""
    from okfpro.memory.door import DoorError

    try:
        door = ctx.memory_door()
    except DoorError:
        return True
    from okfpro.memory.capture import capture_on

    if not capture_on(door):
        return True
    from okfpro.memory.layout import resolve_memory_root

    memory, _problem = resolve_memory_root(door.workspace, door.config)
    if memory is None:
        return True
    mem, bundle = os.path.realpath(memory), os.path.realpath(root)
    return not (within(mem, bundle) or within(bundle, mem))


def snapshot_messages(ctx: Ctx, root: str, unverified: int | None = None, projs: list | None = None) -> list[str]:
    """Today's Snapshot line: present, and agreeing with the bundle it summarises
    (``unverified``: the count of unverified briefings, ``projs``: :func:`okfpro.io.workstate.projects`,
    when the caller has them)."""
    from okfpro.core import log as _log
    from okfpro.core import snapshot as _snapshot
    from okfpro.io import workstate

    log_text = workstate.read_optional(os.path.join(root, "log.md")) or ""
    line = _log.parse(log_text).snapshot_line(ctx.today_s)
    counters = workstate.snapshot_counters(root, ctx.today, projs=projs, unverified=unverified)
    if line is None:
        return [
            f"— log.md has no Snapshot line under {ctx.today_s}. Run `{_snapshot.WRITER}` before stopping: it "
            f"appends this line, computed from the bundle as it stands now:\n  {_snapshot.render(counters)}"
        ]
    problem = _snapshot.verify(counters, line)
    return [problem] if problem else []


def pairing_messages(ctx: Ctx, root: str, board_text: str, briefings: Briefings, projs: list | None = None) -> list[str]:
    """Every in-flight project paired with its evidence (``okfpro.core.pairing``).  Pairing reads
    only the briefings among the concepts, and of the bundle's entries only those the board's
    links name, so the rest of the bundle is neither parsed nor listed here."""
    from okfpro.core import board as _board
    from okfpro.core import pairing as _pairing
    from okfpro.hooks.protocol import OUTPUT_CAP
    from okfpro.io import workstate

    rows = _board.parse(board_text).rows
    facts = workstate.briefed_pairing_facts(root, briefings.unverified, briefings.verified, projs, rows)
    # past the answer's cut (the messages only grow when framed) nothing more could be shown
    return _pairing.failures(rows, facts, chars=OUTPUT_CAP)


def stop_gate(ctx: Ctx) -> Answer:
    if ctx.event.stop_hook_active:
        return Answer.pass_()
    root = ctx.enclosing()
    if root is None:
        return Answer.pass_()
    started = ctx.memo.pop(GitStatus, None)
    dirty, git_failed = (started if started is not None else GitStatus(root)).result()
    if git_failed:
        return Answer.block([
            "RULE 2 — before stopping: the Stop gate could not ask git what changed in the bundle, so it cannot "
            "tell whether this session left it summarised, and it refuses.",
            f"— git: {git_failed}",
            "Fix git for this repository (for 'dubious ownership': `git config --global --add safe.directory "
            "<the repository>`, or run as the repository's owner), then stop again.",
        ])
    if not dirty:
        return Answer.pass_()
    from okfpro.io import workstate

    broken = workstate.core_missing(root) or workstate.escaping_state_files(root)
    if broken:
        return Answer.block(["RULE 2 — before stopping:"] + [f"— structure: {m}" for m in broken])
    from okfpro.core import board as _board
    from okfpro.io.stopfacts import briefings as _briefings

    board_text = workstate.read_optional(os.path.join(root, "board.md")) or ""
    briefings = _briefings(root)  # read once: the Snapshot's counter and pairing share them
    projs = workstate.projects(root)  # so are the projects
    messages = snapshot_messages(ctx, root, len(briefings.unverified), projs)
    messages.extend(f"— board: {g}" for g in _board.grammar(board_text))
    messages.extend(pairing_messages(ctx, root, board_text, briefings, projs))
    if messages:
        return Answer.block(["RULE 2 — before stopping:"] + messages)
    return Answer.pass_()
