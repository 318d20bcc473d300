"""The doors' pure half: audit's categories, records' verdict, the unverified rows.

Pure: the caller reads the disk (and Git) and hands each function what it needs.
Every audit category is one function returning a list of messages, so the shell
makes exactly one call per category and the report is their concatenation in
the fixed order of :data:`CATEGORIES`.
"""

from __future__ import annotations

import datetime as _dt
import re
from typing import Any, Iterable

from okfpro.core import board as _board
from okfpro.core import log as _log

CATEGORIES = ("layout", "structure", "validate", "lint", "snapshot", "budget", "board", "pairing")
# The closed core: (bundle-relative path, kind, why it is needed).
CORE: tuple[tuple[str, str, str], ...] = (
    ("board.md", "file", "the one page of state"),
    ("log.md", "file", "delta memory, where the snapshot lands"),
    ("journal", "dir", "the backward record"),
    ("areas/corpus.md", "file", "the standard this corpus is kept at"),
)
LINT_EXCEPT = ("stale",)  # the reader's age cutoff is opt-in; audit never invents one
_WIDTH = max(len(c) for c in (*CATEGORIES, "records"))


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
            "line `okfpro snapshot` prints."
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


def render_findings(findings: list[tuple[str, str]]) -> str:
    """One line per finding, prefixed by its padded category."""
    lines = []
    for category, message in findings:
        first, *rest = message.split("\n")
        lines.append(f"  {category:<{_WIDTH}}  {first}")
        lines.extend(f"  {'':<{_WIDTH}}  {more}" for more in rest)
    return "\n".join(lines)


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
