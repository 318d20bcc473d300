"""What one file contributes to post-edit's conformance answer, split into what it decides alone and
what depends on other files — the facts the incremental post-edit keeps per file.  Pure.

Every finding here is produced by the validator's and the linter's own code, run on a one-file
bundle: a finding that depends on other files is computed as a *candidate* (with nothing existing,
every in-bundle reference is missing; with no links and no index listing, every concept is an
orphan) and kept with the condition that makes it real.  ``okfpro.io.analysis`` decides the
conditions from the whole bundle's facts.  See ``.okf/design/incremental-post-edit.md``.

A post-edit answer shows validate's errors and warnings and lint's ``warn`` findings (``stale``
left out).  Of lint's warn checks, :data:`OWN` look at one concept only, :data:`CROSS` at others
too; :data:`SUPPORTED` is False when lint's table grows a warn check neither list names, and the
incremental path then refuses to answer (a full run does).
"""

from __future__ import annotations


from okfpro.core import graph as _graph
from okfpro.core import lint as _lint
from okfpro.core import links as _links
from okfpro.core.concept import Bundle, Concept, Entry
from okfpro.core.validate import _Validator

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds on the hook paths
    from typing import Any, Callable

EXCLUDED = ("stale",)  # post-edit leaves the reader's cutoff out
OWN = ("unattributed_claim", "incomplete_computation", "undefined_reference")
CROSS = ("orphan", "not_in_index", "broken_index_entry", "broken_source", "broken_attestation_ref")
WARN_ORDER = tuple(cid for cid, c in _lint.CHECKS.items() if c.severity == "warn" and cid not in EXCLUDED)
WARN_RANK = {cid: n for n, cid in enumerate(WARN_ORDER)}
SUPPORTED = set(WARN_ORDER) == set(OWN) | set(CROSS)
OPTIONS = _lint.Options(today=None, min_body=50, cutoff=None)  # no warn check reads these


class _Nothing:
    """An ``existing`` set that holds no path: every in-bundle reference becomes a candidate."""

    def __contains__(self, item: object) -> bool:
        return False


NOTHING = _Nothing()


def strip_md(path: str) -> str:
    return path[:-3] if path.endswith(".md") else path


def index_of(directory: str) -> str:
    """The ``index.md`` that lists the concepts living in ``directory`` (a concept's ``dir``)."""
    return "index.md" if directory == "." else f"{directory}/index.md"


def kind_of(item: Concept | Entry) -> str:
    """``c`` concept, ``i`` index, ``l`` log, ``u`` unparseable — validate reports them in the order c, i/l, u."""
    if isinstance(item, Concept):
        return "c"
    if item.error is not None:
        return "u"
    return "i" if item.path.rsplit("/", 1)[-1] == "index.md" else "l"


def _validated(item: Concept | Entry) -> tuple[list[tuple[str, str]], list[tuple[str, str, str]], list[tuple[str, str, str]]]:
    """(errors, warnings without broken links, broken-link candidates as (target, warning))."""
    bundle = Bundle(root="")
    bundle.add(item)
    v = _Validator(bundle)
    v.existing = NOTHING  # type: ignore[assignment]  # a set that holds nothing, whatever is asked
    r = v.run()
    errors = [(e["path"], e["message"]) for e in r.errors]
    own: list[tuple[str, str, str]] = []
    broken: list[tuple[str, str, str]] = []
    for w in r.warnings:
        (broken if w["check"] == "broken_link" else own).append((w["path"], w["message"], w["check"]))
    return errors, own, broken


def _link_targets(item: Concept | Entry) -> list[str]:
    """The resolved targets validate's broken-link warnings follow, in its order (None-free)."""
    if isinstance(item, Concept):
        pairs = _graph.resolved_links(item)
    elif not item.utf8_ok:
        return []
    else:
        pairs = [(raw, _graph.resolve_to_path(raw, item.path)) for raw in _links.scan(item.content).targets()]
    return [res for _, res in pairs if res is not None]


def _ctx(bundle: Bundle) -> _lint.Context:
    ctx = _lint.Context(bundle, OPTIONS)
    ctx.existing = NOTHING  # type: ignore[assignment]  # a set that holds nothing, whatever is asked
    return ctx


def _found(cid: str, ctx: _lint.Context) -> list[tuple[Any, ...]]:
    return [(cid, path, message, metric) for path, message, metric in _lint.CHECKS[cid].run(ctx)]


def facts(item: Concept | Entry) -> dict[str, Any]:
    """The per-file facts: everything post-edit needs of this file, with no other file read.

    Keys: ``k`` kind; ``err`` validate errors; ``warn`` validate warnings of the file alone;
    ``blink`` broken-link candidates ``(target, warning)``; ``lint`` own lint findings; and by kind —
    concept: ``id``, ``dir``, ``edges`` (resolved link and source targets), ``refs`` (broken source
    and attestation candidates ``(target, finding)``), ``orphan`` and ``nii`` (the orphan and
    not-in-index findings, real when nothing links/lists it); index: ``listed`` (the ids its links
    name), ``refs`` (broken index entry candidates).  Findings are ``(check, path, message, key)``.
    """
    errors, warnings, broken = _validated(item)
    targets = _link_targets(item)
    out: dict[str, Any] = {
        "k": kind_of(item),
        "err": errors,
        "warn": warnings,
        "blink": list(zip(targets, broken)) if len(targets) == len(broken) else None,
        "lint": [],
    }
    if out["blink"] is None:  # the validator and this reading disagree: never guess
        raise ValueError(f"{item.path}: broken-link candidates do not line up with the link targets")
    if out["k"] == "c":
        c = item
        assert isinstance(c, Concept)
        ctx = _ctx(Bundle(root="", concepts=[c]))
        out["id"], out["dir"] = c.id, c.dir
        out["lint"] = [(check, p, m, c.path) for cid in OWN for check, p, m, _ in _found(cid, ctx)]
        out["edges"] = sorted({res for _, res in (*_graph.resolved_links(c), *_graph.resolved_sources(c)) if res})
        out["refs"] = [
            (metric["target"], (cid, p, m, c.path))
            for cid in ("broken_source", "broken_attestation_ref")
            for cid, p, m, metric in _found(cid, ctx)
        ]
        ctx.__dict__["orphans"] = [c]
        (orphan,) = _found("orphan", ctx)
        index = index_of(c.dir)
        ctx.__dict__["indexes"] = [(Entry(index, ""), [])]
        (nii,) = _found("not_in_index", ctx)
        out["orphan"] = orphan[:3] + (c.path,)
        out["nii"] = nii[:3] + (index,)  # not_in_index reports by index, then concept
    elif out["k"] == "i":
        assert isinstance(item, Entry)
        bundle = Bundle(root="", reserved=[item])
        ctx = _ctx(bundle)
        (_, targets_of), = ctx.indexes
        out["listed"] = sorted({strip_md(res) for _, res in targets_of})
        out["refs"] = [(metric["target"], (cid, p, m, item.path)) for cid, p, m, metric in _found("broken_index_entry", ctx)]
    return out


def stem(path: str) -> str:
    """A finding's path as post-edit matches it with the edited file: no leading ``/``, no ``.md``."""
    p = str(path).lstrip("/")
    return p[:-3] if p.endswith(".md") else p


def exist_targets(f: dict[str, Any]) -> set[str]:
    """Every path whose existence decides one of this file's findings."""
    return {t for t, _ in f["blink"]} | {t for t, _ in f.get("refs", ())}


def active(f: dict[str, Any], exists: Callable[[str], bool], inbound: bool, listed: bool,
           index_lists: bool | None) -> tuple[list[Any], list[Any], list[Any]]:
    """The file's real findings: ``(errors, warnings, lint findings)``.

    ``exists(path)``; for a concept: ``inbound`` (another concept links here), ``listed`` (an
    index.md names its id), ``index_lists`` (its directory's index.md names it; None: no such index).
    """
    warnings = list(f["warn"]) + [w for t, w in f["blink"] if not exists(t)]
    found = list(f["lint"]) + [x for t, x in f.get("refs", ()) if not exists(t)]
    if f["k"] == "c":
        if not inbound and not listed:
            found.append(f["orphan"])
        if index_lists is False:
            found.append(f["nii"])
    return list(f["err"]), warnings, found


__all__ = ["facts", "active", "exist_targets", "index_of", "strip_md", "stem", "SUPPORTED", "WARN_ORDER", "WARN_RANK"]
