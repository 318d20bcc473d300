"""``lint``: the curation report — 26 checks, pinned severities, stats.

Pure and advisory: it never rejects a bundle.  ``healthy`` means "no ``warn``
finding".  Checks are registered in one table (:data:`CHECKS`, in report
order); severities are API (:data:`SEVERITIES`).  Findings come out in check
order, and within a check in the order the check walks the bundle (concepts by
path; ``not_in_index`` by index, then concept path).

Two clocks, one name: ``stale_after=`` (the ``--stale-after`` flag) is the
*reader's* age cutoff on ``generated_at`` and feeds ``stale``; the
``stale_after:`` *field* is the author's expiry and feeds ``expired``.  A
clock-gated check that was selected but cannot run (no ``today`` for
``expired``, no cutoff for ``stale``) is named in ``stats.skipped_checks``,
never reported as healthy by omission.
"""

from __future__ import annotations

import datetime as _dt
import re

from okfpro.core import graph as _graph
from okfpro.core import links as _links
from okfpro.core.concept import TRUST_TIERS, Bundle, Concept, Entry, cached_property, citations_text
from okfpro.core.record import Frozen, Value, set_field
from okfpro.core.validate import is_attested_computation, log_headings
from okfpro.core.views import ruby_text
from okfpro.core.yamlsafe import is_blank, to_text

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds on the hook paths
    from typing import Any, Callable, Iterable, Iterator

    Finding = tuple[Any, ...]  # (path | None, message, metric | None)

# --- actors (§7) -----------------------------------------------------------------
_AGENT = re.compile(r"\A\S+/\S+\Z")
_HUMAN = re.compile(r"\Ahuman:\S+\Z")
_PROCESS = re.compile(r"\Aprocess:\S+\Z")

_COMPUTATION_HEADING = re.compile(r"\A#{1,6}\s+Computation\s*\Z", re.I)
_ANY_HEADING = re.compile(r"\A#{1,6}\s")
_RUBY_SPACE = " \t\n\v\f\r\0"  # what the reference strips from a body before measuring it
_DAY_SHAPE = re.compile(r"\A\d{4}-\d{2}-\d{2}\Z")
_CUTOFF_AGE = re.compile(r"\A(\d+)([dw])\Z")
_CUTOFF_MOMENT = re.compile(r"\A(\d{4})-(\d{2})-(\d{2})(?:T(.+))?\Z")


def where(c: Concept) -> str:
    """The path a per-concept finding names: the concept's id plus ``.md`` (as the reference reports
    it; the file path itself unless frontmatter overrides the id)."""
    return f"{c.id}.md"


def _strip_md(path: str) -> str:
    return path[:-3] if path.endswith(".md") else path


def _is_actor(value: str) -> bool:
    return bool(_AGENT.match(value) or _HUMAN.match(value) or _PROCESS.match(value))


class Options(Value):
    __slots__ = _fields = ("today", "min_body", "cutoff")

    def __init__(self, today: _dt.date | None, min_body: int, cutoff: _dt.date | None) -> None:
        self.today = today
        self.min_body = min_body
        self.cutoff = cutoff


class Context:
    """Everything the checks share, computed once per run."""

    def __init__(self, bundle: Bundle, options: Options) -> None:
        self.bundle = bundle
        self.options = options
        self.concepts = bundle.concepts
        self.existing = bundle.all_paths

    @cached_property
    def graph(self) -> _graph.Graph:
        return _graph.build(self.bundle)

    @cached_property
    def indexes(self) -> list[tuple[Entry, list[tuple[str, str]]]]:
        """Each ``index.md`` (by path) with its ``.md`` link targets as (raw, resolved path)."""
        out = []
        for entry in sorted(self.bundle.indexes, key=lambda e: e.path):
            targets = []
            for raw in _links.scan(entry.content).targets():
                resolved = _graph.resolve_to_path(raw, entry.path)
                if resolved is not None:
                    targets.append((raw, resolved))
            out.append((entry, targets))
        return out

    @cached_property
    def listed(self) -> set[str]:
        """Ids named by any index.md link (the resolved target without ``.md``)."""
        return {_strip_md(resolved) for _, targets in self.indexes for _, resolved in targets}

    @cached_property
    def orphans(self) -> list[Concept]:
        g = self.graph
        return [c for c in self.concepts if not g.in_edges.get(c.id) and c.id not in self.listed]

    @cached_property
    def unlinked(self) -> list[Concept]:
        g = self.graph
        return [c for c in self.concepts if not g.in_edges.get(c.id) and not g.out_edges.get(c.id)]

    @cached_property
    def stubs(self) -> list[tuple[Concept, int]]:
        out = []
        for c in self.concepts:
            size = len(c.body.strip(_RUBY_SPACE))
            if size < self.options.min_body:
                out.append((c, size))
        return out

    @cached_property
    def missing(self) -> dict[str, tuple[int, list[str]]]:
        """Missing in-bundle ``.md`` link targets -> (reference count, citing concept ids)."""
        refs: dict[str, int] = {}
        citing: dict[str, dict[str, None]] = {}
        for c in self.concepts:
            for _, resolved in _graph.resolved_links(c):
                if resolved is None or resolved in self.existing:
                    continue
                refs[resolved] = refs.get(resolved, 0) + 1
                citing.setdefault(resolved, {})[c.id] = None
        return {target: (count, list(citing[target])) for target, count in refs.items()}

    @cached_property
    def islands(self) -> list[list[str]]:
        comps = self.graph.components
        return sorted((members for members in comps[1:] if len(members) >= 2), key=lambda m: m[0])


# --- the checks -------------------------------------------------------------------
def check_orphan(ctx: Context) -> Iterator[Finding]:
    for c in ctx.orphans:
        yield where(c), "nothing links here and no index.md lists it", None


def check_not_in_index(ctx: Context) -> Iterator[Finding]:
    # A concept "lives" in the directory of its id (``dir``), and an index lists it when one of
    # its links resolves to ``<id>.md`` — the reference's identity view.
    by_dir: dict[str, list[Concept]] = {}
    for c in ctx.concepts:
        by_dir.setdefault(c.dir, []).append(c)
    for entry, targets in ctx.indexes:
        head, _, _ = entry.path.rpartition("/")
        listed = {_strip_md(resolved) for _, resolved in targets}
        for c in by_dir.get(head or ".", ()):
            if c.id not in listed:
                yield where(c), f"its directory's {entry.path} does not list it", {"index": entry.path}


def check_disconnected_component(ctx: Context) -> Iterator[Finding]:
    for members in ctx.islands:
        yield None, f"{len(members)} concepts link only among themselves, apart from the main graph", {
            "members": members,
            "size": len(members),
        }


def check_unlinked(ctx: Context) -> Iterator[Finding]:
    for c in ctx.unlinked:
        yield where(c), "no links in or out: it floats outside the graph", None


def check_missing_concept(ctx: Context) -> Iterator[Finding]:
    for target, (refs, citing) in sorted(ctx.missing.items(), key=lambda kv: (-kv[1][0], kv[0])):
        yield target, f"linked {refs} time(s) from {len(citing)} concept(s), but no such file exists", {
            "references": refs,
            "sources": citing,
        }


def check_broken_index_entry(ctx: Context) -> Iterator[Finding]:
    for entry, targets in ctx.indexes:
        for raw, resolved in targets:
            if resolved not in ctx.existing:
                yield entry.path, f"lists {raw}, which does not exist", {"target": resolved}


def check_stub(ctx: Context) -> Iterator[Finding]:
    limit = ctx.options.min_body
    for c, size in ctx.stubs:
        yield where(c), f"body has only {size} character(s); --min-body is {limit}", {"chars": size, "min": limit}


def check_missing_title(ctx: Context) -> Iterator[Finding]:
    for c in ctx.concepts:
        if is_blank(c.frontmatter.get("title")):
            yield where(c), "no title (recommended)", None


def check_missing_description(ctx: Context) -> Iterator[Finding]:
    for c in ctx.concepts:
        if is_blank(c.frontmatter.get("description")):
            yield where(c), "no description (recommended)", None


def check_missing_generated(ctx: Context) -> Iterator[Finding]:
    for c in ctx.concepts:
        if "generated" not in c.frontmatter and "timestamp" not in c.frontmatter:
            yield where(c), "no generated (who produced this, and when)", None


def check_expired(ctx: Context) -> Iterator[Finding]:
    today = ctx.options.today
    if today is None:
        return
    for c in ctx.concepts:
        day = stale_after_day(c.frontmatter.get("stale_after"))
        if day is not None and today >= day:
            days = (today - day).days
            yield where(c), f"past its stale_after date {day.isoformat()} ({days} day(s) ago)", {
                "days_past": days,
                "stale_after": day.isoformat(),
            }


def stale_after_day(value: Any) -> _dt.date | None:
    """The ``stale_after`` field as a day: a YAML date, or strict ``YYYY-MM-DD`` text (blanks around
    it tolerated); a timestamp or anything else is no day (validate warns about it)."""
    if isinstance(value, _dt.datetime):
        return None
    if isinstance(value, _dt.date):
        return value
    if value is None or isinstance(value, (list, dict)):
        return None
    text = to_text(value).strip()
    if not _DAY_SHAPE.match(text):
        return None
    try:
        return _dt.date.fromisoformat(text)
    except ValueError:
        return None


def check_stale(ctx: Context) -> Iterator[Finding]:
    cutoff = ctx.options.cutoff
    if cutoff is None:
        return
    for c in ctx.concepts:
        at = _moment_day(c.generated_at)
        if at is not None and at < cutoff:
            # the metric is the reference's text for both moments (its Time#to_s: a cutoff day is
            # local midnight), the message ours
            yield where(c), f"generated {at.isoformat()}, before the --stale-after cutoff {cutoff.isoformat()}", {
                "generated_at": ruby_text(c.generated_at),
                "cutoff": ruby_text(_dt.datetime.combine(cutoff, _dt.time()).astimezone()),
            }


def check_uncited_external(ctx: Context) -> Iterator[Finding]:
    for c in ctx.concepts:
        if c.sources or citations_text(c.body) is not None:
            continue
        external = c.links.external_targets()
        if external:
            yield where(c), f"{len(external)} external link(s) in the body and no sources", {
                "external_count": len(external)
            }


def _source_resources(c: Concept) -> list[str]:
    out: list[str] = []
    for entry in c.native_sources:
        value = entry.get("resource")
        if value is not None and not isinstance(value, (list, dict)):
            out.append(to_text(value))
    for entry in c.legacy_citations:
        out.append(entry["resource"])
    return list(dict.fromkeys(out))


def check_broken_source(ctx: Context) -> Iterator[Finding]:
    for c in ctx.concepts:
        for raw in _source_resources(c):
            resolved = _links.resolve(raw, c.path)
            if resolved is not None and resolved not in ctx.existing:
                yield where(c), f"source {raw} points into the bundle at a file that does not exist", {
                    "target": resolved
                }


def _source_ids(c: Concept) -> list[str]:
    out = []
    for entry in c.native_sources:
        value = entry.get("id")
        if not is_blank(value) and not isinstance(value, (list, dict)):
            out.append(to_text(value).strip())
    return out


def check_unattributed_claim(ctx: Context) -> Iterator[Finding]:
    for c in ctx.concepts:
        ids = _source_ids(c)
        if not ids:
            continue
        known = {i.lower() for i in ids}
        scan = c.links
        for label in scan.footnote_refs:
            if label not in known and label not in scan.footnote_defs:
                yield where(c), f"footnote [^{label}] matches no sources[].id and has no definition", {"label": label}


def check_unused_source(ctx: Context) -> Iterator[Finding]:
    for c in ctx.concepts:
        cited = set(c.links.footnote_refs)
        for sid in _source_ids(c):
            if sid.lower() not in cited:
                yield where(c), f"source {sid!r} is not cited by any [^{sid}] footnote", {"id": sid}


def check_unprefixed_actor(ctx: Context) -> Iterator[Finding]:
    for c in ctx.concepts:
        actors: list[tuple[str, str]] = []
        gen = c.frontmatter.get("generated")
        if isinstance(gen, dict):
            actors.append(("generated.by", to_text(gen.get("by")).strip()))
        for entry in c.verified:
            actors.append(("verified.by", to_text(entry.get("by")).strip()))
        for name, by in actors:
            if by and not _is_actor(by):
                yield where(c), f"{name} {by!r} is not in a §7 form (agent/version, human:id, process:id)", {
                    "by": by,
                    "field": name,
                }


def computation_fence(body: str) -> bool:
    """Whether a fenced code block opens inside a ``# Computation`` section (§10.3's inline form).

    The section starts at a ``Computation`` heading (any level) and ends at the next heading of
    any level; a heading inside a fence is text.
    """
    if "omputation" not in body:
        return False
    fenced = False
    inside = False
    for line in body.split("\n"):
        stripped = line.strip()
        if stripped.startswith(("```", "~~~")):
            if inside and not fenced:
                return True
            fenced = not fenced
            continue
        if fenced:
            continue
        if _COMPUTATION_HEADING.match(stripped):
            inside = True
        elif inside and _ANY_HEADING.match(stripped):
            inside = False
    return False


def check_incomplete_computation(ctx: Context) -> Iterator[Finding]:
    for c in ctx.concepts:
        if not is_attested_computation(c):
            continue
        provided = []
        if not is_blank(c.frontmatter.get("computation")):
            provided.append("computation")
        if computation_fence(c.body):
            provided.append("body")
        if len(provided) == 1:
            continue
        if provided:
            message = "gives its computation twice (a computation: path and a # Computation fence); keep one"
        else:
            message = "gives no computation (no computation: path, no fenced block under # Computation)"
        yield where(c), message, {"provided": provided}


def check_broken_attestation_ref(ctx: Context) -> Iterator[Finding]:
    for c in ctx.concepts:
        if not is_attested_computation(c):
            continue
        fm = c.frontmatter
        refs: list[tuple[str, Any]] = [("computation", fm.get("computation"))]
        for key in ("executor", "attester"):
            value = fm.get(key)
            if isinstance(value, dict):
                refs.append((f"{key}.resource", value.get("resource")))
        for name, value in refs:
            if is_blank(value) or isinstance(value, (list, dict)):
                continue
            raw = to_text(value)
            resolved = _links.resolve(raw, c.path)
            if resolved is not None and resolved not in ctx.existing:
                yield where(c), f"{name} {raw} names a file that does not exist in the bundle", {
                    "field": name,
                    "target": resolved,
                }


def check_legacy_timestamp(ctx: Context) -> Iterator[Finding]:
    paths = sorted(where(c) for c in ctx.concepts if "timestamp" in c.frontmatter)
    if paths:
        yield None, (
            f"{len(paths)} concept(s) still carry the v0.1 timestamp field; write it as "
            "generated: {by: <who>, at: <the timestamp>} (only you know the actor)"
        ), {"concepts": paths}


def check_legacy_citations(ctx: Context) -> Iterator[Finding]:
    paths = sorted(where(c) for c in ctx.concepts if has_citations_section(c.body))
    if paths:
        yield None, (
            f"{len(paths)} concept(s) still have a v0.1 '# Citations' section; move it into sources: "
            "(resource, optional id/title), cite claims with [^id] footnotes, then drop the section"
        ), {"concepts": paths}


def has_citations_section(body: str) -> bool:
    return citations_text(body) is not None


def check_duplicate_title(ctx: Context) -> Iterator[Finding]:
    groups: dict[str, list[Concept]] = {}
    for c in ctx.concepts:
        key = to_text(c.frontmatter.get("title")).strip().lower()
        if key:
            groups.setdefault(key, []).append(c)
    for members in groups.values():
        if len(members) < 2:
            continue
        title = to_text(members[0].frontmatter.get("title"))
        ids = sorted(c.id for c in members)
        yield None, f"{len(members)} concepts share the title {title!r}", {"concepts": ids, "title": title}


def check_unused_reference_def(ctx: Context) -> Iterator[Finding]:
    for c in ctx.concepts:
        for label in c.links.unused_defs():
            yield where(c), f"reference definition [{label}] is never used", {"label": label}


def check_undefined_reference(ctx: Context) -> Iterator[Finding]:
    for c in ctx.concepts:
        for label in dict.fromkeys(c.links.undefined_refs()):
            yield where(c), f"reference link [{label}] has no definition, so it goes nowhere", {"label": label}


def check_self_link(ctx: Context) -> Iterator[Finding]:
    for c in ctx.concepts:
        own = f"{c.id}.md"
        count = sum(1 for _, resolved in _graph.resolved_links(c) if resolved == own)
        if count:
            yield where(c), f"links to itself ({count} time(s))", {"count": count}


def check_log_order(ctx: Context) -> Iterator[Finding]:
    for entry in sorted(ctx.bundle.logs, key=lambda e: e.path):
        if not entry.utf8_ok:
            continue
        # Shape-valid headings only (a calendar-invalid one is already validate's error).
        dates = [h for h in log_headings(entry.content) if _DAY_SHAPE.match(h)]
        if any(dates[i] < dates[i + 1] for i in range(len(dates) - 1)):
            yield entry.path, f"day headings are not newest-first (§9): {', '.join(dates)}", {"dates": dates}


class Check(Frozen):
    __slots__ = _fields = ("id", "severity", "category", "run", "clock")
    id: str
    severity: str
    category: str
    run: Callable[[Context], Iterable[Finding]]
    clock: str | None  # "today" or "cutoff" for the clock-gated checks

    def __init__(self, id: str, severity: str, category: str, run: Callable[[Context], Iterable[Finding]],
                 clock: str | None = None) -> None:
        for name, value in zip(self._fields, (id, severity, category, run, clock)):
            set_field(self, name, value)


# The one table: report order, pinned severity, category, implementation.
CHECKS: dict[str, Check] = {
    c.id: c
    for c in (
        Check("orphan", "warn", "reachability", check_orphan),
        Check("not_in_index", "warn", "reachability", check_not_in_index),
        Check("disconnected_component", "info", "reachability", check_disconnected_component),
        Check("unlinked", "info", "reachability", check_unlinked),
        Check("missing_concept", "info", "backlog", check_missing_concept),
        Check("broken_index_entry", "warn", "backlog", check_broken_index_entry),
        Check("stub", "info", "completeness", check_stub),
        Check("missing_title", "info", "completeness", check_missing_title),
        Check("missing_description", "info", "completeness", check_missing_description),
        Check("missing_generated", "info", "completeness", check_missing_generated),
        Check("expired", "info", "freshness", check_expired, clock="today"),
        Check("stale", "warn", "freshness", check_stale, clock="cutoff"),
        Check("uncited_external", "info", "provenance", check_uncited_external),
        Check("broken_source", "warn", "provenance", check_broken_source),
        Check("unattributed_claim", "warn", "provenance", check_unattributed_claim),
        Check("unused_source", "info", "provenance", check_unused_source),
        Check("unprefixed_actor", "info", "provenance", check_unprefixed_actor),
        Check("incomplete_computation", "warn", "attestation", check_incomplete_computation),
        Check("broken_attestation_ref", "warn", "attestation", check_broken_attestation_ref),
        Check("legacy_timestamp", "info", "migration", check_legacy_timestamp),
        Check("legacy_citations", "info", "migration", check_legacy_citations),
        Check("duplicate_title", "info", "hygiene", check_duplicate_title),
        Check("unused_reference_def", "info", "hygiene", check_unused_reference_def),
        Check("undefined_reference", "warn", "hygiene", check_undefined_reference),
        Check("self_link", "info", "hygiene", check_self_link),
        Check("log_order", "info", "hygiene", check_log_order),
    )
}
SEVERITIES: dict[str, str] = {cid: check.severity for cid, check in CHECKS.items()}
CHECK_IDS: tuple[str, ...] = tuple(CHECKS)


class UnknownCheck(ValueError):
    """An ``--only`` / ``--except`` id that names no check."""


def _ids(value: Iterable[str] | str | None, flag: str) -> list[str] | None:
    if value is None:
        return None
    items = value.split(",") if isinstance(value, str) else list(value)
    out = [item.strip() for item in items if item and item.strip()]
    unknown = [item for item in out if item not in CHECKS]
    if unknown:
        raise UnknownCheck(
            f"unknown check id(s) for {flag}: {', '.join(unknown)} (known: {', '.join(CHECK_IDS)})"
        )
    return out


def select(only: Iterable[str] | str | None = None, except_: Iterable[str] | str | None = None) -> list[str]:
    """The check ids to run, in report order; :class:`UnknownCheck` for an id that names no check."""
    only_ids = _ids(only, "--only")
    except_ids = _ids(except_, "--except") or []
    return [cid for cid in CHECK_IDS if (only_ids is None or cid in only_ids) and cid not in except_ids]


def parse_today(value: _dt.date | str | None) -> _dt.date | None:
    if value is None or isinstance(value, _dt.date) and not isinstance(value, _dt.datetime):
        return value
    if isinstance(value, _dt.datetime):
        return value.date()
    text = str(value).strip()
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
        raise ValueError(f"{value!r} is not a YYYY-MM-DD date")
    try:
        return _dt.date.fromisoformat(text)
    except ValueError:
        raise ValueError(f"{value!r} is not a calendar day") from None


def parse_cutoff(value: Any, today: _dt.date | None) -> tuple[_dt.date | None, bool]:
    """A ``--stale-after`` value -> (cutoff day or None, needs-today-but-has-none).

    Accepts ``90d`` / ``12w`` (counted back from ``today``), an ISO date, or a full
    ISO timestamp (``2026-01-01T10:00:00Z``; its day is the cutoff).  Raises
    ValueError for anything else (a bare number included).
    """
    if value is None:
        return None, False
    if isinstance(value, _dt.datetime):
        return value.date(), False
    if isinstance(value, _dt.date):
        return value, False
    text = str(value).strip()
    age = _CUTOFF_AGE.match(text)
    if age:
        if today is None:
            return None, True
        amount = int(age.group(1)) * (7 if age.group(2) == "w" else 1)
        try:
            return today - _dt.timedelta(days=amount), False
        except OverflowError:
            raise ValueError(f"--stale-after {text!r} reaches before year 1") from None
    moment = _CUTOFF_MOMENT.match(text)
    if moment:
        try:
            day = _dt.date(int(moment.group(1)), int(moment.group(2)), int(moment.group(3)))
        except ValueError:
            raise ValueError(f"--stale-after {text!r} is not a calendar day") from None
        if moment.group(4) is not None:
            try:
                _dt.datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))
            except ValueError:
                raise ValueError(f"--stale-after {text!r} is not an ISO 8601 timestamp") from None
        return day, False
    raise ValueError(
        f"--stale-after {text!r}: give an age like 90d or 12w, an ISO date (2026-01-01) or a full ISO timestamp"
    )


def _moment_day(value: Any) -> _dt.date | None:
    if value is None:
        return None
    if isinstance(value, _dt.datetime):
        return value.date()
    if isinstance(value, _dt.date):
        return value
    text = to_text(value).strip()
    m = re.match(r"\A(\d{4})-(\d{2})-(\d{2})(?:[Tt ]|\Z)", text)
    if not m:
        return None
    try:
        return _dt.date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    except ValueError:
        return None


def lint(
    bundle: Bundle,
    *,
    today: _dt.date | str | None = None,
    only: Iterable[str] | str | None = None,
    except_: Iterable[str] | str | None = None,
    min_body: int = 50,
    stale_after: Any = None,
) -> dict[str, Any]:
    """Run the selected checks on ``bundle``; return ``{healthy, stats, findings}``.

    Raises :class:`UnknownCheck` (a ValueError) for an unknown id in ``only`` /
    ``except_``, and ValueError for a malformed ``today`` or ``stale_after``.
    """
    selected = select(only, except_)
    day = parse_today(today)
    cutoff, _ = parse_cutoff(stale_after, day)  # a relative cutoff with no day: skipped_checks
    if min_body < 0:
        raise ValueError("min_body must be zero or more")

    ctx = Context(bundle, Options(today=day, min_body=min_body, cutoff=cutoff))
    skipped: list[str] = []
    findings: list[dict[str, Any]] = []
    for cid in selected:
        check = CHECKS[cid]
        if check.clock == "today" and day is None:
            skipped.append(cid)
            continue
        if check.clock == "cutoff" and cutoff is None:
            skipped.append(cid)
            continue
        for path, message, metric in check.run(ctx):
            findings.append(
                {"check": cid, "severity": check.severity, "path": path, "message": message, "metric": metric}
            )
    return {
        "healthy": not any(f["severity"] == "warn" for f in findings),
        "stats": stats(ctx, skipped, findings),
        "findings": findings,
    }


def _frequency(values: Iterable[str]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for value in values:
        counts[value] = counts.get(value, 0) + 1
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def stats(ctx: Context, skipped: list[str], findings: list[dict[str, Any]]) -> dict[str, Any]:
    """The report's stats.  ``orphans``, ``loose``, ``stubs`` and ``backlog`` count the findings of
    their check (so a check left out by ``--only``/``--except`` counts 0), as the reference does."""
    g = ctx.graph
    bundle = ctx.bundle
    per_check: dict[str, int] = {}
    for f in findings:
        per_check[f["check"]] = per_check.get(f["check"], 0) + 1
    trust = {tier: 0 for tier in TRUST_TIERS}
    for c in ctx.concepts:
        trust[c.trust] = trust.get(c.trust, 0) + 1
    return {
        "concepts": len(ctx.concepts),
        "edges": len(g.edges),
        "indexes": len(bundle.indexes),
        "logs": len(bundle.logs),
        "skipped": len(bundle.unparseable),
        "skipped_checks": skipped,
        "orphans": per_check.get("orphan", 0),
        "loose": per_check.get("unlinked", 0),
        "stubs": per_check.get("stub", 0),
        "backlog": per_check.get("missing_concept", 0),
        "components": len(g.components),
        "hubs": [{"id": row["id"], "in_degree": row["inbound"]} for row in g.hubs(limit=5)],
        "types": _frequency(_graph.node_type(c) for c in ctx.concepts),
        "tags": _frequency(tag for c in ctx.concepts for tag in c.tags),  # repeats count, as the reference's
        "trust": trust,
        "status": _frequency(_effective_status(c) for c in ctx.concepts),
    }


def _effective_status(c: Concept) -> str:
    value = c.frontmatter.get("status")
    text = "" if value is None else to_text(value).strip().lower()
    return text or "stable"

