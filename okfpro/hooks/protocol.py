"""The hook door: ``okfpro hook EVENT`` and ``okfpro hook check NAME``.

One event, one process: read the host's JSON event from stdin once, find the
bundle once, run every check that applies to that event and tool, answer once.

Answers (the strongest wins: block > ask > context > pass):

* pass    — exit 0, nothing printed;
* block   — the messages on stderr, exit 2;
* ask     — stdout ``{"hookSpecificOutput": {"hookEventName": "PreToolUse",
  "permissionDecision": "ask", "permissionDecisionReason": ...}}``, exit 0;
* context — the SessionStart banner (plain stdout for Claude Code), exit 0.

This process never exits 1: the hosts read 1 as "carry on", so a crash inside a
gate becomes a refusal (exit 2) and a crash inside feedback becomes a note.  The
identity marker ``okfpro-enforcer v1`` is the first stderr line whenever a check
is about to run; the launchers refuse a process that does not print it.

Keep this module's imports to the standard library's light modules: no click,
no pygit2, no PyYAML where avoidable (``python3 -X importtime -m okfpro hook pre-tool-use``).
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from okfpro.core.event import Event

MARKER = "okfpro-enforcer v1"
OUTPUT_CAP = 9_900  # hosts cap every output string at 10,000 characters

USAGE = (
    "usage: okfpro hook EVENT [--agent claude|codex|gemini]   (JSON event on stdin)\n"
    "       okfpro hook check NAME [--agent ...]\n"
    "EVENT: session-start pre-tool-use post-tool-use stop user-prompt-submit session-end\n"
    "NAME:  guard-verified journal-guard shell-guard check-okf cap-check reconcile-search "
    "post-edit stop-gate session-context"
)

FEEDBACK_EVENTS = ("session-start", "user-prompt-submit", "session-end")


def _err(text: str) -> None:
    try:
        sys.stderr.write(text if text.endswith("\n") else text + "\n")
        sys.stderr.flush()
    except Exception:  # noqa: BLE001
        pass


def _out(text: str) -> None:
    data = text.encode("utf-8", errors="replace")
    stream = getattr(sys.stdout, "buffer", None)
    if stream is not None:
        stream.write(data)
        stream.flush()
    else:  # pragma: no cover
        sys.stdout.write(text)
        sys.stdout.flush()


def _cap(text: str) -> str:
    if len(text) <= OUTPUT_CAP:
        return text
    marker = "\n[… truncated by okfpro to stay under the host's 10,000-character limit]"
    return text[: OUTPUT_CAP - len(marker)] + marker


def parse_args(args: list[str]) -> tuple[str | None, str | None, str | None, str | None]:
    """(event, check name, agent, refusal message)."""
    from okfpro.hooks.checks import CHECKS, EVENTS, HOOK_NAMES

    agent = None
    rest: list[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--agent" and i + 1 < len(args):
            agent = args[i + 1]
            i += 2
            continue
        if a.startswith("--agent="):
            agent = a.split("=", 1)[1]
            i += 1
            continue
        rest.append(a)
        i += 1
    from okfpro.hooks.adapters import DIALECTS

    if agent is not None and agent not in DIALECTS:
        return None, None, None, f"ENFORCEMENT MISCONFIGURED — unknown agent '{agent}'. Known: {', '.join(DIALECTS)}."
    if not rest:
        return None, None, None, "ENFORCEMENT MISCONFIGURED — no event named.\n" + USAGE
    flags = [a for a in rest if a.startswith("-")]
    if flags:
        return None, None, None, (
            f"ENFORCEMENT MISCONFIGURED — '{flags[0]}' is refused at the hook door: a hook reads an event on "
            "stdin and answers it; help and options live on the other verbs (okfpro --help).\n" + USAGE
        )
    if rest[0] == "check":
        if len(rest) != 2:
            return None, None, None, "ENFORCEMENT MISCONFIGURED — 'okfpro hook check' takes exactly one NAME.\n" + USAGE
        name = rest[1]
        if name not in HOOK_NAMES:
            return None, None, None, _unknown(name, HOOK_NAMES)
        return CHECKS[name].door, name, agent, None
    if len(rest) != 1:
        return None, None, None, (
            f"ENFORCEMENT MISCONFIGURED — one EVENT expected, got {len(rest)} arguments; reading the first "
            "and ignoring the rest would be a wrong answer with a clean exit code.\n" + USAGE
        )
    event = rest[0]
    if event in HOOK_NAMES:  # the reference's spelling: `hook CHECK`
        return CHECKS[event].door, event, agent, None
    if event not in EVENTS:
        return None, None, None, _unknown(event, EVENTS + HOOK_NAMES)
    return event, None, agent, None


def _unknown(name: str, known: tuple[str, ...]) -> str:
    return (
        f"ENFORCEMENT MISCONFIGURED — no hook named '{name}'. Known: {', '.join(known)}. "
        "(A CI verb such as audit or validate at the hook door would read no event and always say clean, "
        "so it is refused here.)"
    )


def main(args: list[str]) -> int:
    try:
        return _main(args)
    except BaseException as exc:  # noqa: BLE001 - the last net: never exit 1
        try:
            _err(f"ENFORCEMENT ERROR — okfpro hook failed ({type(exc).__name__}: {exc}); nothing was checked, so the call is refused.")
        except BaseException:  # noqa: BLE001
            pass
        return 2


def _main(args: list[str]) -> int:
    event_name, check_name, agent, refusal = parse_args(list(args))
    if refusal is not None:
        _err(refusal)
        return 2
    assert event_name is not None
    _err(MARKER)
    label = check_name or event_name

    from okfpro.hooks import adapters

    event = read_stdin()
    dialect = adapters.detect(event, agent)
    if event.error is not None:
        return _unreadable(event_name, label, event.error, dialect)
    events = adapters.normalize(event, dialect)

    from okfpro.hooks.answer import Answer, strongest
    from okfpro.hooks.checks import CHECKS, for_event
    from okfpro.hooks.context import Ctx

    answers: list[Answer] = []
    notes: list[str] = []
    for ev in events:
        ctx = Ctx(ev)
        selected = [CHECKS[check_name]] if check_name else for_event(event_name, ev.tool_name)
        for check in selected:  # slow work (a child process) starts before any check runs
            check.begin(ctx)
        for check in selected:
            answers.append(_run_one(check, ctx))
        notes.extend(ctx.notes)
    return _emit(strongest(answers), event_name, dialect, notes)


def read_stdin() -> Event:
    """Read stdin once (bytes) and parse it; an unreadable stream becomes an error event.  The
    event's ``cwd``, when the host sends none, is this process's working directory."""
    from okfpro.core.event import Event, brief, parse

    try:
        here = os.getcwd()
    except OSError:
        here = "/"
    try:
        stream = getattr(sys.stdin, "buffer", None)
        if stream is None:
            return Event(error="there is no standard input to read", here=here)
        data = stream.read()
    except (OSError, ValueError) as exc:
        return Event(error=f"standard input could not be read ({brief(exc)})", here=here)
    return parse(data, here)


def _run_one(check, ctx):
    """One check; a crash answers by the row's own crash policy (``okfpro.hooks.checks``)."""
    from okfpro.hooks.answer import Answer

    try:
        answer = check.run(ctx)
        if not isinstance(answer, Answer):
            raise TypeError(f"returned {type(answer).__name__}, not an answer")
        return answer
    except BaseException as exc:  # noqa: BLE001
        if isinstance(exc, KeyboardInterrupt):
            raise
        return check.crashed(ctx, f"{type(exc).__name__}: {str(exc)[:300]}")


def _unreadable(event_name: str, label: str, reason: str, dialect: str) -> int:
    if event_name == "session-start":
        from okfpro.hooks.adapters import context_output
        from okfpro.hooks.banner import unavailable

        _out(context_output(dialect, event_name, unavailable(reason)))
        return 0
    if event_name in FEEDBACK_EVENTS:
        _err(f"okfpro: '{label}' could not read its input: {reason}. Nothing was added.")
        from okfpro.hooks.adapters import quiet_output

        _out(quiet_output(dialect))
        return 0
    _err(
        f"ENFORCEMENT DEGRADED — '{label}' could not read its input: {reason}. No check ran, so nothing "
        "here has been checked, and the call is refused."
    )
    return 2


def _emit(answer, event_name: str, dialect: str, notes: list[str]) -> int:
    from okfpro.hooks import adapters

    if notes:
        _err("\n".join(f"okfpro: {n}" for n in notes))
    if answer.messages:
        from okfpro.core.frames import neutralise
        from okfpro.hooks.answer import Answer

        # every answer quotes text from the bundle, memory or the event: none of it may open or close a host frame
        answer = Answer(answer.kind, [neutralise(m, host_only=True) for m in answer.messages])
    kind = answer.kind
    if kind in ("block", "ask"):
        if kind == "ask" and event_name == "pre-tool-use":
            out, err, code = adapters.ask_output(dialect, _cap(answer.text))
        else:  # only PreToolUse can ask; anywhere else an ask refuses
            out, err, code = adapters.block_output(dialect, _cap(answer.text))
        if err:
            _err(err)
        if out:
            _out(out)
        return code
    if kind == "context":
        _out(adapters.context_output(dialect, event_name, _cap(answer.text)))
        return 0
    quiet = adapters.quiet_output(dialect)
    if quiet:
        _out(quiet)
    return 0
