"""``memory remember`` and ``memory recall`` without click: one option table, one body per verb.

A host or a script runs these two verbs as fresh processes, often once per turn, and
importing click costs about as much as the whole recall does at 10,000 entries.  So their
options are written ONCE, here (:data:`REMEMBER`, :data:`RECALL`): the click commands of
``okfpro memory`` are built from these tables (okfpro/cli/memory.py), and
:func:`direct` — called by okfpro/__main__.py before click is imported — reads the same
tables.  :func:`direct` only takes the plain spellings (``--opt VALUE``, ``--opt=VALUE``,
flags, positional words, in any order); whatever else it meets (``--help``, ``--``, an
unknown or repeated option, a value click would refuse, a non-UTF-8 terminal, shell
completion) it hands the whole command to click untouched, so help, usage errors and
their exit codes are click's own.  tests/test_memverbs.py compares both doors on the same
command lines (parsed values, output, exit codes).  Design: .okf/design/lean-memory-verbs.md.
"""

from __future__ import annotations

import os
import sys

from okfpro.core import mempolicy as _mempolicy
from okfpro.core.scope import TIERS, Scope

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds on the fresh-process paths
    from pathlib import Path
    from typing import Any, Callable, NoReturn


class Opt:
    """One option: its flag, the parameter it fills, and what it takes.

    ``kind``: ``flag`` (a switch), ``choice`` (one of ``choices``), ``count`` (an integer
    ≥ 0), ``text`` (any value, shown as ``metavar``)."""

    __slots__ = ("flag", "dest", "kind", "default", "choices", "help", "metavar", "show_default")

    def __init__(self, flag: str, dest: str, kind: str, default: Any = None, *, choices: tuple[str, ...] = (),
                 help: str | None = None, metavar: str | None = None, show_default: bool = False) -> None:
        self.flag, self.dest, self.kind, self.default = flag, dest, kind, default
        self.choices, self.help, self.metavar, self.show_default = choices, help, metavar, show_default


class Verb:
    """A verb's positional parameter (``many``: one or more words, else exactly one) and options."""

    __slots__ = ("name", "argument", "many", "metavar", "options")

    def __init__(self, name: str, argument: str, many: bool, options: tuple[Opt, ...], metavar: str | None = None) -> None:
        self.name, self.argument, self.many, self.options, self.metavar = name, argument, many, options, metavar


_TIER = Opt("--tier", "tier", "choice", "user", choices=TIERS, help="Tier to file it under.", show_default=True)

REMEMBER = Verb("remember", "text", False, (
    _TIER,
    Opt("--kind", "kind", "choice", "event", choices=_mempolicy.KINDS, help="What sort of memory this is.",
        show_default=True),
    Opt("--source", "source", "choice", "user", choices=_mempolicy.SOURCES, show_default=True,
        help="Who says so: a user-confirmed memory is never superseded by an agent-inferred one."),
    Opt("--confidence", "confidence", "choice", "medium", choices=_mempolicy.CONFIDENCE, show_default=True),
    Opt("--visibility", "visibility", "choice", "private", choices=_mempolicy.VISIBILITY, show_default=True),
    Opt("--valid-until", "valid_until", "text", metavar="YYYY-MM-DD", help="Hidden from recall from this day on."),
    Opt("--review-at", "review_at", "text", metavar="YYYY-MM-DD", help="Flag for review from this day on."),
    Opt("--supersede", "supersede", "text", metavar="ID",
        help="Replace memory ID (or, with 'auto', the closest overlapping one)."),
    Opt("--contradicts", "contradicts", "text", metavar="ID",
        help="Declare a contradiction with memory ID (or 'auto'): filed as conflicted, nothing replaced."),
    Opt("--json", "as_json", "flag", False, help="Print the decision as JSON."),
))

RECALL = Verb("recall", "words", True, (
    Opt("--json", "as_json", "flag", False, help="Machine-readable output."),
    Opt("--limit", "limit", "count", 20, help="At most N passages (0: all).", show_default=True),
    Opt("--all", "include_hidden", "flag", False,
        help="Include superseded, expired and archived memories (hidden by default)."),
))


class MemoryCtx:
    """The memory verbs' door (okfpro/memory/door.py), opened as the hooks open it, and the
    surface they print through (``echo``, ``fail``: click's, or :func:`direct`'s).

    The identity is the hooks' resolution (okfpro/io/identity.py): host resolver,
    configuration, environment (``OKFPRO_TENANT`` / ``_USER`` / ``_AGENT`` / ``_SESSION``),
    then the labelled development fallback — never the text being remembered.  In
    ``multi-user`` mode an unresolved identity is refused (exit 2), never the local scope.
    The CLI does not bind a session: binding is the agent session's business.
    """

    def __init__(self, workspace: Path | None, echo: Callable[..., Any], fail: Callable[..., NoReturn]) -> None:
        self.named = workspace  # --workspace, else the one rule from the working directory
        self.echo = echo
        self.fail = fail

    def open(self) -> tuple[Any, Scope]:
        store, res, _cfg = self.open_as()
        return store, res.scope

    def open_as(self) -> tuple[Any, Any, Any]:
        """(store, identity resolution, configuration) — for verbs that ask who is acting."""
        from okfpro.cli.common import memory_scope

        return memory_scope(self.named, self.fail)

    def today(self) -> Any:
        from okfpro.cli.common import today

        return today(self.fail)


def actor(scope: Scope) -> str:
    return scope.user or "local"


def remember(obj: MemoryCtx, text: str, tier: str, kind: str, source: str, confidence: str, visibility: str,
             valid_until: str | None, review_at: str | None, supersede: str | None, contradicts: str | None,
             as_json: bool) -> int:
    from okfpro.cli.common import dumps
    from okfpro.memory.policy import remember as remember_

    echo = obj.echo
    if text == "-":
        raw = sys.stdin.buffer.read()
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            obj.fail(f"standard input is not valid UTF-8 (byte {exc.start}); nothing was remembered")
    store, scope = obj.open()
    result = remember_(
        store, scope, text, tier=tier, kind=kind, source=source, confidence=confidence, visibility=visibility,
        valid_until=valid_until, review_at=review_at,
        supersede=(True if supersede == "auto" else supersede or False),
        contradicts=(True if contradicts == "auto" else contradicts or False),
        today=obj.today(), audit_root=store.base, actor=actor(scope),
    )
    decision = result.decision
    if as_json:
        echo(dumps(result.to_json()))
    elif decision.decision == "skip":
        echo(f"already remembered ({decision.reason}); nothing written")
    elif result.written:
        note = f" — {decision.reason}" if decision.decision != "create" else ""
        echo(f"remembered {result.id} as {result.entry_id} ({tier}, {decision.decision}){note}")
        redacted = sum(n for _, n in result.redactions)
        if redacted:
            echo(f"  {redacted} secret(s) redacted before writing", err=True)
    if decision.decision == "reject":
        obj.fail(decision.reason)
    if result.error and not result.written and decision.decision != "skip":
        obj.fail(result.error)
    if result.error:
        echo(f"okfpro memory: warning: {result.error}", err=True)
    return 0


def recall(obj: MemoryCtx, words: tuple[str, ...], as_json: bool, limit: int, include_hidden: bool) -> int:
    from okfpro.cli.common import dumps
    from okfpro.memory.views import recall_payload

    echo = obj.echo
    query = " ".join(words)
    store, scope = obj.open()
    payload, shown, diagnostics = recall_payload(store, scope, query, limit=limit, include_hidden=include_hidden,
                                                 today=obj.today())
    if as_json:
        echo(dumps(payload))
    else:
        for passage, rec, status in shown:
            e = passage.entry
            echo(f"[{e.tier}] {e.date} {e.time} {rec.kind}/{status} {rec.id}  ({e.id})")
            for line in rec.text.splitlines() or [""]:
                echo(f"    {line}")
        for d in diagnostics:
            echo(f"okfpro memory: {d.source}: {d.message}", err=True)
    return 0


BODIES: dict[str, tuple[Verb, Callable[..., int]]] = {"remember": (REMEMBER, remember), "recall": (RECALL, recall)}


# ------------------------------------------------------------------------ the click-free door


def parse(verb: Verb, args: list[str]) -> dict[str, Any] | None:
    """The parameters click would hand the command for ``args``, or None when this is not
    a plain command line (click then reads it: help, usage errors, every other spelling)."""
    by_flag = {o.flag: o for o in verb.options}
    values: dict[str, Any] = {}
    positional: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        i += 1
        if arg == "-" or not arg.startswith("-"):
            positional.append(arg)
            continue
        flag, eq, value = arg.partition("=")
        opt = by_flag.get(flag)
        if opt is None or opt.dest in values:  # unknown, --help, --, a short option; or repeated
            return None
        if opt.kind == "flag":
            if eq:
                return None
            values[opt.dest] = True
            continue
        if not eq:
            if i >= len(args) or args[i].startswith("-"):
                return None
            value = args[i]
            i += 1
        if opt.kind == "choice" and value not in opt.choices:
            return None
        if opt.kind == "count":
            if not (value.isascii() and value.isdigit()):
                return None
            values[opt.dest] = int(value)
            continue
        values[opt.dest] = value
    if not positional or (not verb.many and len(positional) != 1):
        return None
    params: dict[str, Any] = {verb.argument: tuple(positional) if verb.many else positional[0]}
    for opt in verb.options:
        params[opt.dest] = values.get(opt.dest, opt.default)
    return params


def _plain_stream(stream: Any) -> bool:
    enc = getattr(stream, "encoding", None) or ""
    return enc.lower().replace("_", "-") in ("utf-8", "utf8")


def _echo(message: str, err: bool = False) -> None:
    """click.echo without click: the text with its control characters shown escaped (okfpro/core/shown.py,
    as okfpro/cli/human.py does for every verb click runs)."""
    from okfpro.core.shown import shown

    stream = sys.stderr if err else sys.stdout
    stream.write(shown(message) + "\n")
    stream.flush()


def reader_gone() -> int:
    """stdout's reader went away (``okfpro memory recall kilo | head -1``): end quietly, as click
    ends a command whose output hits EPIPE (exit 1, no report).  What is still buffered would fail
    again at exit (exit 120, and a report from the interpreter's teardown): stdout's descriptor
    now writes to the null device.  Call from the ``except BrokenPipeError`` block
    (tests/test_closed_stdout.py)."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(null, sys.stdout.fileno())
        finally:
            os.close(null)
    except (OSError, ValueError, AttributeError):  # no descriptor to point (a stream in memory): nothing is flushed to one
        pass
    return 1


def direct(args: list[str]) -> int | None:
    """Run ``memory remember|recall ...`` (``args`` from the verb on) without click, or None
    when click must read this command line."""
    row = BODIES.get(args[0]) if args else None
    if row is None or "_OKFPRO_COMPLETE" in os.environ:
        return None
    if not (_plain_stream(sys.stdout) and _plain_stream(sys.stderr)):
        return None
    verb, body = row
    params = parse(verb, args[1:])
    if params is None:
        return None
    path = f"okfpro memory {verb.name}"

    def fail(reason: str, code: int = 2) -> NoReturn:
        _echo(f"{path}: {reason}", err=True)
        raise SystemExit(code)

    try:
        return body(MemoryCtx(None, _echo, fail), **params)
    except SystemExit as exc:
        code = exc.code
        return code if isinstance(code, int) else (0 if code is None else 2)
    except BrokenPipeError:  # stdout's reader went away (`| head -1`)
        return reader_gone()
    except (KeyboardInterrupt, EOFError):  # as click reports them
        from okfpro.cli.app import aborted

        sys.stderr.write("\n")
        return aborted()
    except Exception:  # a bug: the same report as the click door's
        from okfpro.cli.app import internal_error

        return internal_error(["memory"])
