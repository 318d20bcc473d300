"""The doors' pure half: audit's checks in one table, records' verdict, the unverified rows.

Pure: the disk (and Git) is read once by :mod:`okfpro.io.audit` into :class:`Facts`; every
audit check is one function of those facts returning a list of messages, registered in
:data:`CHECKS`, and the report is their concatenation in the table's order (:func:`run`).
"""

from __future__ import annotations

import datetime as _dt
import re

from okfpro.core import board as _board
from okfpro.core import log as _log
from okfpro.core.record import Value

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds on the hook paths
    from typing import Any, Callable, Iterable

    from okfpro.core.concept import Bundle
    from okfpro.core.pairing import Facts as PairingFacts

CATEGORIES = ("layout", "wiring", "structure", "validate", "lint", "snapshot", "budget", "board", "pairing")
# The closed core: (bundle-relative path, kind, why it is needed).
CORE: tuple[tuple[str, str, str], ...] = (
    ("board.md", "file", "the one page of state"),
    ("log.md", "file", "delta memory, where the snapshot lands"),
    ("journal", "dir", "the backward record"),
    ("areas/corpus.md", "file", "the standard this corpus is kept at"),
)
LINT_EXCEPT = ("stale",)  # the reader's age cutoff is opt-in; audit never invents one


# --- audit: the facts and the table --------------------------------------------------


class Facts(Value):
    """What ``okfpro audit`` read from the disk for one start directory (okfpro/io/audit.py)."""

    _fields = ("start", "start_kind", "has_nested", "wiring", "today", "bundle", "present", "escaped", "log_text",
               "board_text", "promise", "pairing")
    start: str
    start_kind: str | None  # the start directory's own root kind, if it is a bundle root
    has_nested: bool  # the start directory also holds .okf/index.md
    wiring: list[str]  # an okfpro workspace's doors that are not wired ([] elsewhere)
    today: _dt.date
    bundle: Bundle | None  # None: no bundle found from the start directory
    present: dict[str, bool]  # CORE path -> exists on disk
    escaped: list[str]  # state files resolving outside the bundle
    log_text: str | None  # None: absent, or never read (it escapes the bundle)
    board_text: str | None
    promise: list[str]  # what the Stop gate asks of uncommitted changes
    pairing: PairingFacts | None  # read when board.md is

    def __init__(self, start: str, start_kind: str | None, has_nested: bool, wiring: list[str], today: _dt.date,
                 bundle: Bundle | None = None, present: dict[str, bool] | None = None,
                 escaped: list[str] | None = None, log_text: str | None = None, board_text: str | None = None,
                 promise: list[str] | None = None, pairing: PairingFacts | None = None) -> None:
        self.start = start
        self.start_kind = start_kind
        self.has_nested = has_nested
        self.wiring = wiring
        self.today = today
        self.bundle = bundle
        self.present = {} if present is None else present
        self.escaped = [] if escaped is None else escaped
        self.log_text = log_text
        self.board_text = board_text
        self.promise = [] if promise is None else promise
        self.pairing = pairing


def _layout(f: Facts) -> list[str]:
    return layout(f.start, f.start_kind, f.has_nested)


def _structure(f: Facts) -> list[str]:
    if f.bundle is None:
        return [no_bundle(f.start)]
    return structure(f.present) + f.escaped


def _validate(f: Facts) -> list[str]:
    from okfpro.core.validate import validate

    return validate_findings(validate(f.bundle)) if f.bundle is not None else []


def _lint(f: Facts) -> list[str]:
    from okfpro.core.lint import lint

    return lint_findings(lint(f.bundle, today=f.today, except_=list(LINT_EXCEPT))) if f.bundle is not None else []


def _snapshot(f: Facts) -> list[str]:
    return snapshot_findings(f.log_text) + f.promise if f.log_text is not None else []


def _pairing(f: Facts) -> list[str]:
    from okfpro.core.pairing import failures

    if f.board_text is None or f.pairing is None:
        return []
    return pairing_findings(failures(_board.parse(f.board_text).rows, f.pairing))


# Every audit check, in report order: (category, check).  A new invariant is one row here.
CHECKS: tuple[tuple[str, Callable[[Facts], list[str]]], ...] = (
    ("layout", _layout),
    ("wiring", lambda f: f.wiring),
    ("structure", _structure),
    ("validate", _validate),
    ("lint", _lint),
    ("snapshot", _snapshot),
    ("budget", lambda f: budget_findings(f.board_text) if f.board_text is not None else []),
    ("board", lambda f: board_findings(f.board_text) if f.board_text is not None else []),
    ("pairing", _pairing),
)


def run(facts: Facts) -> list[tuple[str, str]]:
    """Every finding of ``okfpro audit``, as (category, message), in the order of :data:`CHECKS`."""
    return [(category, m) for category, check in CHECKS for m in check(facts)]


# --- audit categories ---------------------------------------------------------------


def layout(start: str, start_kind: str | None, has_nested: bool) -> list[str]:
    """Ambiguous layout: the start directory is itself a bundle root and also holds ``.okf/``."""
    if start_kind is not None and has_nested:
        return [
            f"{start} is a bundle at its own root ({start_kind}) and also holds .okf/; two roots in one "
            "place leave every tool guessing which one is meant. Keep one."
        ]
    return []


def structure(present: dict[str, bool]) -> list[str]:
    """The closed core: each of :data:`CORE` must exist (``present`` maps path -> exists)."""
    out = []
    for path, kind, why in CORE:
        if not present.get(path, False):
            what = f"{path}/" if kind == "dir" else path
            out.append(f"{what} is missing — {why}. The core is closed; only roadmap.md may be deleted.")
    return out


def validate_findings(report: dict[str, Any]) -> list[str]:
    """Every validator error and every validator warning."""
    out = [f"{e['path']}: {e['message']}" for e in report.get("errors", [])]
    out += [f"{w['path']}: {w['message']} ({w['check']})" for w in report.get("warnings", [])]
    return out


def lint_findings(report: dict[str, Any]) -> list[str]:
    """Warn-level lint findings, and a confession of any check that could not run."""
    out = []
    for f in report.get("findings", []):
        if f.get("severity") == "warn":
            where = f.get("path") or "(bundle)"
            out.append(f"{where}: {f['message']} ({f['check']})")
    skipped = report.get("stats", {}).get("skipped_checks") or []
    if skipped:
        out.append(f"these checks could not run, so their silence means nothing: {', '.join(skipped)}")
    return out


def snapshot_findings(log_text: str) -> list[str]:
    """Malformed day headings, and a newest day that carries no Snapshot line."""
    parsed = _log.parse(log_text)
    out = list(_log.malformed_headings(parsed))
    newest = parsed.newest_day
    if newest is not None and parsed.snapshot_line(newest) is None:
        out.append(
            f"log.md's newest day, {newest}, has no Snapshot line; the day's last entry should be the "
            "line `okfpro snapshot` prints (`okfpro log-snapshot` appends today's)."
        )
    return out


def budget_findings(board_text: str) -> list[str]:
    return list(_board.cap_check(board_text))


def board_findings(board_text: str) -> list[str]:
    return list(_board.grammar(board_text))


def pairing_findings(messages: Iterable[str]) -> list[str]:
    return [_strip_lead(m, "pairing") for m in messages]


def _strip_lead(message: str, category: str) -> str:
    for lead in (f"— {category}: ", "— "):
        if message.startswith(lead):
            return message[len(lead):]
    return message


def no_bundle(start: str) -> str:
    return f"{start} holds no OKF bundle — no index.md, and none in .okf/."


# Files that belong to one machine or one run, never to the repository: the interpreter pin (a path on
# this machine), init's staged and backed-up copies, and the scratch directory's contents.
MACHINE_LOCAL = re.compile(
    r"\A(?:\.claude/hooks/okfpro-python|\.tmp/(?!\.gitkeep\Z).+|(?:.*/)?[^/]*\.okfpro-(?:new|backup(?:\.[0-9]+)?))\Z")


def machine_local_findings(tracked: Iterable[str]) -> list[str]:
    """One finding per path in the index (what the next commit holds) that is machine-local."""
    return [
        f"{path} is machine-local (this machine's interpreter pin, an okfpro-new/okfpro-backup copy or .tmp/ "
        f"scratch) and must not be committed: `git rm --cached -- '{path}'`; okfpro's .gitignore lines keep it out "
        "(`okfpro upgrade` adds them)."
        for path in tracked if MACHINE_LOCAL.match(path)
    ]


# --- records -------------------------------------------------------------------------

JOURNAL_DAY = re.compile(r"(?:\A|/)journal/([0-9]{4}-[0-9]{2}-[0-9]{2})\.md\Z")
_VERB = {"M": "modifies", "D": "deletes", "R": "modifies", "T": "replaces"}


def records_findings(changes: Iterable[tuple[str, str]], today: _dt.date) -> list[str]:
    """``changes`` are (status letter, path) from the staged diff (a rename gives its old path).

    A past journal day (before ``today``) that the commit modifies, deletes, renames away or
    replaces (typechange) is a finding; additions and today's or future days pass.
    """
    out = []
    day_today = today.isoformat()
    for status, path in changes:
        verb = _VERB.get(status[:1])
        if verb is None:
            continue
        m = JOURNAL_DAY.search(path)
        if m is None or not m.group(1) < day_today:
            continue
        out.append(
            f"this commit {verb} {path}, a past day that already exists in HEAD. Records are append-only; "
            "corrections go in today's entry, pointing back."
        )
    return out


# --- unverified ----------------------------------------------------------------------


def _text(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, (_dt.date, _dt.datetime)):
        return value.isoformat()
    return str(value)


def unverified_rows(concepts: Iterable[Any]) -> list[dict[str, Any]]:
    """Rows ``{id, by, at, trust}`` for every concept awaiting the owner's read, by id."""
    rows = [
        {"id": c.id, "by": c.generated_by, "at": _text(c.generated_at), "trust": c.trust}
        for c in concepts
        if c.awaiting_read
    ]
    rows.sort(key=lambda r: r["id"])
    return rows


def render_unverified(rows: list[dict[str, Any]]) -> str:
    if not rows:
        return "okfpro unverified — nothing awaits a read."
    lines = [
        f"okfpro unverified — {len(rows)} concept(s) awaiting the owner's read "
        "(the state is the truth, not a defect):"
    ]
    for r in rows:
        by = r["by"] or "an unnamed producer"
        at = f" on {r['at']}" if r["at"] else ""
        lines.append(f"  {r['id']}: generated by {by}{at} [{r['trust']}] — awaiting the owner's read")
    return "\n".join(lines)
