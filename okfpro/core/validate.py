"""``validate``: OKF v0.2 §11 conformance, plus shape warnings.

Pure: works on a :class:`~okfpro.core.concept.Bundle` already read.

Errors are the only hard failures and come in the reference's three classes:

1. a concept-position file without usable frontmatter (the parse reason), or a
   file whose bytes are not UTF-8;
2. a concept whose ``type`` is blank;
3. a reserved file out of shape: a nested ``index.md`` with frontmatter, a root
   ``index.md`` with keys other than ``okf_version``, a ``log.md`` ``## ``
   heading that is not a calendar-valid ``YYYY-MM-DD``.

Everything else is a warning with a stable ``check`` id and a ``source``
(``spec`` when OKF's text states the rule, ``convention`` when it is the
reference's own stricter shape).  Every family check reads the *raw* key and
fires only when the key is present, so a pure v0.1 bundle validates silently.

Order follows the reference: concepts (by path), then reserved files, then
unparseable files.
"""

from __future__ import annotations

import datetime as _dt
import re

from okfpro.core import graph as _graph
from okfpro.core import links as _links
from okfpro.core.concept import (
    KNOWN_SPEC_VERSIONS,
    STATUS_VOCABULARY,
    Bundle,
    Concept,
    Entry,
    ParseError,
    split,
)
from okfpro.core.yamlsafe import is_blank, to_text

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds on the hook paths
    from typing import Any

# check id -> source.  The table is the API: every warning goes through it.
CONVENTION_CHECKS = frozenset(
    {
        "verified_entry_by",
        "source_usage_count",
        "source_usage_window_shape",
        "parameter_name",
        "executor_resource",
        "attester_resource",
    }
)
WARNING_CHECKS = (
    "recommended_title",
    "recommended_description",
    "tags_shape",
    "timestamp_format",
    "generated_shape",
    "generated_by",
    "generated_at_format",
    "verified_shape",
    "verified_entry_shape",
    "verified_entry_by",
    "verified_entry_at_format",
    "sources_shape",
    "source_entry_shape",
    "source_resource",
    "source_last_modified",
    "source_usage_count",
    "source_usage_window_shape",
    "usage_window_shape",
    "usage_window_date",
    "status_vocabulary",
    "stale_after_format",
    "runtime_required",
    "parameters_shape",
    "parameter_entry_shape",
    "parameter_name",
    "executor_shape",
    "executor_resource",
    "attester_shape",
    "attester_resource",
    "okf_version_unknown",
    "broken_link",
)

ATTESTED_COMPUTATION = "Attested Computation"
_INDEX_FENCE = re.compile(r"\A---[ \t]*\n")
_STRICT_DAY = re.compile(r"\A\d{4}-\d{2}-\d{2}\Z")
# A moment: ISO date with an optional ``T`` time and zone (surrounding blanks tolerated).
_MOMENT = re.compile(
    r"\A\s*(-?\d{4,})-(\d\d)-(\d\d)"
    r"(?:[Tt](\d\d):(\d\d)(?::(\d\d)(?:[.,]\d+)?)?)?"
    r"(?:[Zz]|[-+]\d\d(?::?\d\d)?)?\s*\Z"
)
# Other ISO 8601 calendar spellings a strict ISO date parser accepts.
_BASIC_DAY = re.compile(r"\A\s*(\d{4})(\d\d)(\d\d)(?:[Tt]\d\d(?:\d\d(?:\d\d)?)?(?:[Zz]|[-+]\d\d(?:\d\d)?)?)?\s*\Z")
_ORDINAL_DAY = re.compile(r"\A\s*(\d{4})-?(\d{3})\s*\Z")
_WEEK_DAY = re.compile(r"\A\s*(\d{4})-?[Ww](\d\d)-?(\d)\s*\Z")


def is_day(value: Any) -> bool:
    """A calendar day: a YAML date (not a timestamp) or strict, valid ``YYYY-MM-DD`` text."""
    if isinstance(value, _dt.datetime):
        return False
    if isinstance(value, _dt.date):
        return True
    text = to_text(value)
    if not _STRICT_DAY.match(text):
        return False
    return _valid_date(int(text[:4]), int(text[5:7]), int(text[8:10]))


def is_iso_moment(value: Any) -> bool:
    """ISO 8601 date or date-time: a YAML date/timestamp, or text a strict ISO parser accepts."""
    if isinstance(value, (_dt.date, _dt.datetime)):
        return True
    if value is None or isinstance(value, (list, dict, bool)):
        return False
    text = to_text(value)
    m = _MOMENT.match(text)
    if m:
        year, month, day = int(m.group(1)), int(m.group(2)), int(m.group(3))
        if not _valid_date(year, month, day):
            return False
        if m.group(4) is not None:
            hh, mm = int(m.group(4)), int(m.group(5))
            ss = int(m.group(6)) if m.group(6) else 0
            if hh > 24 or mm > 59 or ss > 60:
                return False
        return True
    m = _BASIC_DAY.match(text)
    if m:
        return _valid_date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    m = _ORDINAL_DAY.match(text)
    if m:
        year, ordinal = int(m.group(1)), int(m.group(2))
        days = 366 if _leap(year) else 365
        return 1 <= ordinal <= days
    m = _WEEK_DAY.match(text)
    if m:
        week, weekday = int(m.group(2)), int(m.group(3))
        try:
            _dt.date.fromisocalendar(int(m.group(1)), week, weekday)
        except ValueError:
            return False
        return True
    return False


def _leap(year: int) -> bool:
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


def _valid_date(year: int, month: int, day: int) -> bool:
    try:
        _dt.date(year, month, day)
    except ValueError:
        return False
    return True


def is_log_date(heading: str) -> bool:
    """A ``log.md`` day heading: strict ``YYYY-MM-DD`` and a real calendar day."""
    return bool(_STRICT_DAY.match(heading)) and _valid_date(int(heading[:4]), int(heading[5:7]), int(heading[8:10]))


def log_headings(content: str) -> list[str]:
    """The text of every ``## `` line of a log, stripped (fenced or not, as the reference reads it)."""
    out = []
    for line in content.split("\n"):
        if line.startswith("## "):
            out.append(line[3:].strip())
    return out


def fold_status(value: Any) -> str:
    return "" if value is None else to_text(value).strip().lower()


def is_attested_computation(concept: Concept) -> bool:
    return concept.type.strip() == ATTESTED_COMPUTATION


def _text_key(value: Any) -> str:
    return value if isinstance(value, str) else to_text(value)


def _stringify(mapping: dict[Any, Any]) -> dict[str, Any]:
    return {_text_key(k): v for k, v in mapping.items()}


class _Result:
    def __init__(self) -> None:
        self.errors: list[dict[str, str]] = []
        self.warnings: list[dict[str, str]] = []
        self.counts = {"concepts": 0, "indexes": 0, "logs": 0}

    def error(self, path: str, message: str) -> None:
        self.errors.append({"path": path, "message": message})

    def warn(self, path: str, check: str, message: str) -> None:
        self.warnings.append(
            {
                "path": path,
                "message": message,
                "check": check,
                "source": "convention" if check in CONVENTION_CHECKS else "spec",
            }
        )


class _Validator:
    def __init__(self, bundle: Bundle) -> None:
        self.bundle = bundle
        self.existing = bundle.all_paths
        self.r = _Result()

    def run(self) -> _Result:
        for concept in self.bundle.concepts:
            self.concept(concept)
        for entry in self.bundle.reserved:
            self.reserved(entry)
        for entry in self.bundle.unparseable:
            self.unparseable(entry)
        return self.r

    # --- concepts -------------------------------------------------------------
    def concept(self, c: Concept) -> None:
        r, path, fm = self.r, c.path, c.frontmatter
        r.counts["concepts"] += 1
        if is_blank(fm.get("type")):
            r.error(path, "frontmatter must include a non-empty type")
        if is_blank(fm.get("title")):
            r.warn(path, "recommended_title", "no title in the frontmatter (recommended)")
        if is_blank(fm.get("description")):
            r.warn(path, "recommended_description", "no description in the frontmatter (recommended)")
        if "tags" in fm and not isinstance(fm["tags"], list):
            r.warn(path, "tags_shape", "tags is not a list")
        if "timestamp" in fm:
            self.moment(path, "timestamp_format", "timestamp", fm["timestamp"])
        self.generated(c)
        self.verified(c)
        self.sources(c)
        self.usage_window(c)
        self.lifecycle(c)
        self.computation(c)
        self.resolved(path, _graph.resolved_links(c))

    def moment(self, path: str, check: str, name: str, value: Any) -> None:
        if not is_iso_moment(value):
            r_value = "" if value is None else to_text(value)
            self.r.warn(path, check, f"{name} is not an ISO 8601 date or date-time: {r_value!r}")

    def day(self, path: str, check: str, name: str, value: Any) -> None:
        if not is_day(value):
            r_value = "" if value is None else to_text(value)
            self.r.warn(path, check, f"{name} is not a calendar day written YYYY-MM-DD: {r_value!r}")

    def generated(self, c: Concept) -> None:
        fm = c.frontmatter
        if "generated" not in fm:
            return
        value = fm["generated"]
        if not isinstance(value, dict):
            self.r.warn(c.path, "generated_shape", "generated is not a mapping of {by, at}")
            return
        gen = _stringify(value)
        if is_blank(gen.get("by")):
            self.r.warn(c.path, "generated_by", "generated has no by (who or what produced this)")
        if "at" in gen:
            self.moment(c.path, "generated_at_format", "generated.at", gen["at"])

    def verified(self, c: Concept) -> None:
        fm = c.frontmatter
        if "verified" not in fm:
            return
        value = fm["verified"]
        if isinstance(value, dict):
            entries = [value]
        elif isinstance(value, list):
            entries = value
        else:
            self.r.warn(c.path, "verified_shape", "verified is neither a {by, at} mapping nor a list of them")
            return
        for i, entry in enumerate(entries):
            if not isinstance(entry, dict):
                self.r.warn(c.path, "verified_entry_shape", f"verified[{i}] is not a {{by, at}} mapping")
                continue
            ev = _stringify(entry)
            if is_blank(ev.get("by")):
                self.r.warn(c.path, "verified_entry_by", f"verified[{i}] has no by")
            if "at" in ev:
                self.moment(c.path, "verified_entry_at_format", f"verified[{i}].at", ev["at"])

    def sources(self, c: Concept) -> None:
        fm = c.frontmatter
        if "sources" not in fm:
            return
        value = fm["sources"]
        if not isinstance(value, list):
            self.r.warn(c.path, "sources_shape", "sources is not a list")
            return
        for i, entry in enumerate(value):
            if not isinstance(entry, dict):
                self.r.warn(c.path, "source_entry_shape", f"sources[{i}] is not a mapping")
                continue
            src = _stringify(entry)
            if is_blank(src.get("resource")):
                self.r.warn(c.path, "source_resource", f"sources[{i}] has no resource")
            if "last_modified" in src:
                self.day(c.path, "source_last_modified", f"sources[{i}].last_modified", src["last_modified"])
            count = src.get("usage_count")
            if "usage_count" in src and (not isinstance(count, int) or isinstance(count, bool)):
                self.r.warn(c.path, "source_usage_count", f"sources[{i}].usage_count is not a whole number")
            if "usage_window" in src and not isinstance(src["usage_window"], dict):
                self.r.warn(
                    c.path, "source_usage_window_shape", f"sources[{i}].usage_window is not a {{from, to}} mapping"
                )

    def usage_window(self, c: Concept) -> None:
        fm = c.frontmatter
        if "usage_window" not in fm:
            return
        value = fm["usage_window"]
        if not isinstance(value, dict):
            self.r.warn(c.path, "usage_window_shape", "usage_window is not a {from, to} mapping")
            return
        window = _stringify(value)
        for key in ("from", "to"):
            if key in window:
                self.day(c.path, "usage_window_date", f"usage_window.{key}", window[key])

    def lifecycle(self, c: Concept) -> None:
        fm = c.frontmatter
        if "status" in fm and fold_status(fm["status"]) not in STATUS_VOCABULARY:
            shown = "" if fm["status"] is None else to_text(fm["status"])
            self.r.warn(
                c.path,
                "status_vocabulary",
                f"status {shown!r} is outside the vocabulary ({', '.join(STATUS_VOCABULARY)})",
            )
        if "stale_after" in fm:
            self.day(c.path, "stale_after_format", "stale_after", fm["stale_after"])

    def computation(self, c: Concept) -> None:
        fm = c.frontmatter
        if is_attested_computation(c) and is_blank(fm.get("runtime")):
            self.r.warn(c.path, "runtime_required", "an Attested Computation needs a runtime")
        if "parameters" in fm:
            value = fm["parameters"]
            if not isinstance(value, list):
                self.r.warn(c.path, "parameters_shape", "parameters is not a list")
            else:
                for i, entry in enumerate(value):
                    if not isinstance(entry, dict):
                        self.r.warn(c.path, "parameter_entry_shape", f"parameters[{i}] is not a mapping")
                        continue
                    if is_blank(_stringify(entry).get("name")):
                        self.r.warn(c.path, "parameter_name", f"parameters[{i}] has no name")
        for key in ("executor", "attester"):
            if key not in fm:
                continue
            value = fm[key]
            if not isinstance(value, dict):
                self.r.warn(c.path, f"{key}_shape", f"{key} is not a mapping")
                continue
            if is_blank(_stringify(value).get("resource")):
                self.r.warn(c.path, f"{key}_resource", f"{key} has no resource")

    # --- links ----------------------------------------------------------------
    def links(self, path: str, scan: _links.LinkScan) -> None:
        self.resolved(path, [(raw, _graph.resolve_to_path(raw, path)) for raw in scan.targets()])

    def resolved(self, path: str, targets: list[tuple[str, str | None]]) -> None:
        for raw, resolved in targets:
            if resolved is None or resolved in self.existing:
                continue
            self.r.warn(path, "broken_link", f"link target does not exist: {raw} (a broken link is tolerated, §6.1)")

    # --- reserved and unparseable files ------------------------------------------
    def reserved(self, e: Entry) -> None:
        r = self.r
        if not e.utf8_ok:
            r.error(e.path, "file content is not valid UTF-8")
            return
        name = e.path.rsplit("/", 1)[-1]
        if name == "index.md":
            r.counts["indexes"] += 1
            self.index(e)
        else:
            r.counts["logs"] += 1
            for heading in log_headings(e.content):
                if not is_log_date(heading):
                    r.error(e.path, "log.md date headings must use YYYY-MM-DD")
        self.links(e.path, _links.scan(e.content))

    def index(self, e: Entry) -> None:
        if not _INDEX_FENCE.match(e.content):
            return
        if e.path != "index.md":
            self.r.error(e.path, "nested index.md must not include frontmatter")
            return
        try:
            fm, _ = split(e.content)
        except ParseError as exc:
            self.r.error(e.path, str(exc))
            return
        if any(key != "okf_version" for key in fm):
            self.r.error(e.path, "root index.md frontmatter may only include okf_version")
        if "okf_version" in fm:
            declared = fm["okf_version"]
            if not is_blank(declared) and to_text(declared).strip() not in KNOWN_SPEC_VERSIONS:
                self.r.warn(
                    e.path,
                    "okf_version_unknown",
                    f"okf_version {to_text(declared)!r} is not a version okfpro knows; read best-effort (§12)",
                )

    def unparseable(self, e: Entry) -> None:
        if not e.utf8_ok:
            self.r.error(e.path, "file content is not valid UTF-8")
            return
        self.r.counts["concepts"] += 1
        self.r.error(e.path, e.error or "cannot be read")
        self.links(e.path, _links.scan(e.content))


def validate(bundle: Bundle) -> dict[str, Any]:
    """The conformance report: ``{conformant, counts, errors, warnings}``."""
    r = _Validator(bundle).run()
    return {
        "conformant": not r.errors,
        "counts": dict(r.counts),
        "errors": r.errors,
        "warnings": r.warnings,
    }


__all__ = ["validate", "CONVENTION_CHECKS", "WARNING_CHECKS", "is_day", "is_iso_moment", "is_log_date"]
