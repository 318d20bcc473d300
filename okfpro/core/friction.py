"""Friction: bundle edits done by hand that a verb could have done (pure part).

Recorded events are small dicts ``{"at", "via", "what"[, "detail"]}``; this module
classifies a shell command, decides whether it is okfpro's own write (not
friction), names what would have covered an event, and summarises a log.
Nothing here touches the disk — ``okfpro.io.friction`` does that.
"""

from __future__ import annotations

import re

from collections import Counter


TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds on the hook paths
    from typing import Any, Iterable

# Shell mutators (shared with the shell guard).  The redirection pattern must not
# fire on reads: ``2>/dev/null`` or PowerShell's ``> $null`` (only the real sinks under /dev/ — ``/dev/../x`` is a
# file), ``-->`` and ``=>`` (arrows), ``>&2`` (fd duplication).  ``>|`` and ``&>`` write.
_SINK = r"(?:/dev/(?:null|stdout|stderr|tty|fd/[0-9]+)|\$null)(?![^\s|&;)<>])"  # $null: PowerShell's sink
REDIRECT = re.compile(r"(?<![-=])(?<![-=]>)>{1,2}\|?[ \t]*(?!" + _SINK + r")[^|&\s>]")
REDIRECT_TARGET = re.compile(
    r"(?<![-=])(?<![-=]>)>{1,2}\|?[ \t]*(?!" + _SINK + r")(\"[^\"]*\"|'[^']*'|[^|&\s>;<()]+)"
)
# inline code of an interpreter (python -c, perl -e, node -e, ruby -e, a here-doc fed to one ...)
# writes when it reaches for anything that can write, run or hide a name; reading is left alone
INTERPRETER = re.compile(
    r"(?<![\w.-])(?:python[0-9.]*|pypy[0-9.]*|perl|node|nodejs|ruby|php|deno|bun|lua[0-9.]*|Rscript|osascript"
    r"|pwsh|powershell|tclsh|julia)(?![\w-])"
)
WRITE_API = re.compile(
    r"write|append|renam|replace|unlink|remove|rmtree|rmdir|move|copy|truncat|symlink|link\(|chmod|mkdir|touch"
    r"|system|exec|eval|spawn|popen|subprocess|child_process|shell|`|\bqx|__import__|getattr|importlib|compile"
    r"|chr\(|\\x|\\u|\\[0-7]{3}|decode|b64|base64|sysopen|\bfs\.(?!read|exists|stat)|FileUtils|\bIO\.(?!read)|\bFile\.(?!read|exist|basename|dirname|join|expand_path|size|file\?|directory\?)|open\s*\([^()]*,"
    r"|>|-[a-zA-Z]*i\b|--in-place",
    re.I,
)
MUTATORS = (
    REDIRECT,
    re.compile(r"\btee\b"),
    re.compile(r"\b(?:sed|perl|ruby|python3?|node|awk)\b[^|;]*-i\b"),
    re.compile(r"\b(?:g?sed|perl|ruby)\b[^|;&]*\s(?:-[a-zA-Z]*i|--in-place)"),
    re.compile(r"\bg?awk\b[^|;&]*\s-i\s*inplace"),
    re.compile(r"\b(?:cp|mv|rm|install|truncate|dd|rsync|ln|touch|unlink|shred|patch|unzip|sponge)\b"),
    re.compile(r"\bfind\b[^|;&]*\s-(?:delete|exec|execdir|ok|fprint|fprintf|fls)\b"),
    re.compile(r"\bgit\s+(?:checkout|restore|mv|rm|apply|am|stash|reset|clean)\b"),
    re.compile(r"\bcurl\b[^|;&]*\s-(?:[a-zA-Z]*[oO]\b|-output\b|-remote-name)|\bwget\b"),
    re.compile(r"\btar\b[^|;&]*\s-?[a-zA-Z]*x"),
    re.compile(r"\b(?:File\.write|File\.open|open\([^)]*['\"]w)"),
)


def has_mutator(command: str) -> bool:
    """A write in POSIX shell words, inline interpreter code, or PowerShell/cmd.exe words (``okfpro.core.pwsh``)."""
    from okfpro.core import pwsh

    return any(p.search(command) for p in MUTATORS) or runs_writing_code(command) or pwsh.writes(command)


def runs_writing_code(command: str) -> bool:
    """An interpreter runs inline code that can write (or hide what it does)."""
    return INTERPRETER.search(command) is not None and WRITE_API.search(command) is not None


def only_redirects(command: str) -> bool:
    """Every write in the command is a plain redirection (so its targets say where it writes)."""
    from okfpro.core import pwsh

    return not runs_writing_code(command) and not any(p.search(command) for p in MUTATORS[1:]) and not pwsh.writes(command)


def redirect_targets(command: str) -> list[str]:
    """The files the redirections write, quotes stripped."""
    return [m.group(1).strip("'\"") for m in REDIRECT_TARGET.finditer(command)]


_SEGMENT_SPLIT = re.compile(r"&&|\|\||;|\n")
OWN_COMMAND = re.compile(
    r"\A\s*(?:[A-Za-z_]\w*=\S*\s+)*"
    r"(?:(?:env|time|nice|nohup|sudo|command|uv\s+run|pipx\s+run)\s+)*"
    r"(?:okfpro|python3?(?:\.\d+)?\s+-m\s+okfpro)\b"
)
_JOURNAL_DAY = re.compile(r"journal/[0-9]{4}-[0-9]{2}-[0-9]{2}\.md")

SHELL_COVER = "Edit or Write — the guards read a tool event, and a shell redirect is none"
BOARD_COVER = "okfpro capture / promote / demote"
DETAIL_MAX = 200


def classify_command(command: str) -> str:
    """What a shell command touches: ``board.md``, ``log.md``, ``journal`` or ``unclassified``."""
    if "board.md" in command:
        return "board.md"
    if "log.md" in command:
        return "log.md"
    if _JOURNAL_DAY.search(command):
        return "journal"
    return "unclassified"


def segments(command: str) -> list[str]:
    """Split on ``&&``, ``||``, ``;`` and newlines; a ``|`` pipeline stays one command."""
    return [s for s in _SEGMENT_SPLIT.split(command) if s.strip()]


def is_own(segment: str) -> bool:
    return OWN_COMMAND.match(segment) is not None


def is_own_command(command: str) -> bool:
    """True when the write is okfpro's own: not friction.

    Some segment runs okfpro, no other segment mutates anything, and the command
    does not touch ``board.md`` (okfpro's output piped into the board is still a
    hand edit of the board).
    """
    parts = segments(command)
    if not any(is_own(s) for s in parts):
        return False
    if any(has_mutator(s) for s in parts if not is_own(s)):
        return False
    return classify_command(command) != "board.md"


def detail_of(command: str) -> str:
    first = command.strip().splitlines()[0] if command.strip() else ""
    return first[:DETAIL_MAX]


def shell_event(command: str, day: str) -> dict[str, Any]:
    return {"at": day, "via": "shell", "what": classify_command(command), "detail": detail_of(command)}


def edit_event(what: str, day: str) -> dict[str, Any]:
    return {"at": day, "via": "edit", "what": what}


def covered_by(via: str, what: str) -> str | None:
    if via == "shell":
        return SHELL_COVER
    if via == "edit" and what == "board.md":
        return BOARD_COVER
    return None


def verb_covered(via: str, what: str) -> bool:
    cover = covered_by(via, what)
    return cover is not None and cover != SHELL_COVER


def summarize(events: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rows ``{via, what, count, "covered by"}``, most frequent first."""
    counts: Counter[tuple[str, str]] = Counter()
    for ev in events:
        via, what = ev.get("via"), ev.get("what")
        via = via if isinstance(via, str) else "?"
        what = what if isinstance(what, str) else "?"
        counts[(via, what)] += 1
    rows: list[dict[str, Any]] = [
        {"via": via, "what": what, "count": n, "covered by": covered_by(via, what)}
        for (via, what), n in counts.items()
    ]
    rows.sort(key=lambda r: (-r["count"], r["via"], r["what"]))
    return rows


def banner_lines(report: dict[str, Any]) -> list[str]:
    """The SessionStart friction line(s) for a report from ``okfpro.io.friction.report``."""
    out: list[str] = []
    if not report.get("available", True):
        out.append(
            "Friction: the recorder could not write to .tmp/ at some point, so the count is unknown "
            "rather than zero. `okfpro friction --clear` starts it again."
        )
    unreadable = int(report.get("unreadable") or 0)
    if unreadable:
        out.append(f"Friction: {unreadable} line(s) of the friction log could not be read — counted, not dropped.")
    covered = sum(r["count"] for r in summarize(report.get("events") or []) if verb_covered(r["via"], r["what"]))
    if covered:
        out.append(
            f"Friction: {covered} bundle edit(s) so far were made by hand where an `okfpro` verb exists. "
            "If one of them ought to be a verb, tell the maintainers — `okfpro friction --issue` drafts the "
            "report; `okfpro friction --clear` resets the count."
        )
    return out
