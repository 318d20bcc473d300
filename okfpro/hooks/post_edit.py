"""PostToolUse on a file inside a bundle: conformance, the board's cap and grammar, reconciliation.

``post-edit`` runs all three on one bundle read when an event is dispatched;
``check-okf``, ``cap-check`` and ``reconcile-search`` stay addressable on their own.
Heavy modules (the validator, the linter) are imported inside the checks.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

from okfpro.hooks.answer import Answer
from okfpro.hooks.context import Ctx
from okfpro.hooks.event import EDIT_TOOLS

def _same_stem(path: str, rel: str) -> bool:
    def stem(p: str) -> str:
        p = str(p).lstrip("/")
        return p[:-3] if p.endswith(".md") else p

    return stem(path) == stem(rel)


def full_findings(bundle: Any, today: Any) -> tuple[list, list, list, list]:
    """(validate errors, validate warnings, lint warn findings, skipped checks) of a whole bundle.

    Lint gets the clock (so nothing that needs a date is silently skipped) and leaves out
    ``stale`` (its cutoff is opt-in).
    """
    from okfpro.core.lint import lint
    from okfpro.core.validate import validate

    result = validate(bundle)
    report = lint(bundle, today=today, except_=["stale"])
    errors = [(e["path"], e["message"]) for e in result["errors"]]
    warnings = [(w["path"], w["message"], w["check"]) for w in result["warnings"]]
    findings = [(f["check"], f["path"], f["message"]) for f in report["findings"] if f["severity"] == "warn"]
    return errors, warnings, findings, list(report["stats"].get("skipped_checks") or [])


def analysed(ctx: Ctx, root: str, rel: str) -> dict[str, Any]:
    """One analysis per event: the findings (incremental when the state allows) and Rule 1's message.

    The incremental state (``okfpro.io.analysis``) answers when it is current; when it is missing,
    foreign or corrupt the bundle is read and checked in full, one stderr line says so, and the
    state is rebuilt for the next edit.  ``OKFPRO_NO_CACHE=1`` runs in full, silently.
    """
    key = ("post-edit", root, rel)
    if key in ctx.memo:
        return ctx.memo[key]
    today = ctx.today  # a clock that cannot be read refuses here, before anything ran
    from okfpro.io.bundle import cache_enabled

    out: dict[str, Any] | None = None
    if cache_enabled():
        out = _incremental(ctx, root, rel, today)
    if out is None:
        bundle = ctx.bundle(root)
        out = {"findings": full_findings(bundle, today)}
    ctx.memo[key] = out
    return out


def _incremental(ctx: Ctx, root: str, rel: str, today: Any) -> dict[str, Any] | None:
    from okfpro.core import delta
    from okfpro.io import analysis

    if not delta.SUPPORTED:
        ctx.notes.append("post-edit ran in full: lint has a warn check the incremental path does not know")
        return None
    try:
        state, reason = analysis.open_state(root)
    except analysis.Unusable as exc:
        ctx.notes.append(f"post-edit ran in full: {exc}")
        return None
    out: dict[str, Any]
    try:
        if reason is not None:
            present = analysis.identities(state.root_real)
            bundle = ctx.bundle(root)
            out = {"findings": full_findings(bundle, today)}
            state.build([*bundle.concepts, *bundle.reserved, *bundle.unparseable], present)
            ctx.notes.append(f"post-edit ran in full: {reason}; the incremental state is rebuilt for the next edit")
        else:
            state.refresh()
            errors, warnings, findings = state.findings()
            out = {"findings": (errors, warnings, findings, [])}
            answered, message = state.reconcile(ctx.event.tool_name, rel)
            if answered:
                out["reconcile"] = message
        analysis.commit(state.db)
    except BaseException:
        analysis.abandon(state.db)
        raise
    return out


SHOWN = 8  # findings elsewhere listed per section; the rest are counted (a large bundle has thousands)


def conformance(ctx: Ctx, root: str, rel: str) -> list[str]:
    """check-okf: validator errors and warnings, lint warn findings; any skipped check is confessed.

    Your edit's findings come first and are all listed; the findings elsewhere are summarised —
    their number per check and the first :data:`SHOWN` in the full run's order — so the answer
    stays short enough for the host to show whole (Rule 1's block after it included) however
    many findings the rest of the bundle holds."""
    errors, warnings, findings, skipped = analysed(ctx, root, rel)["findings"]
    out: list[str] = []
    if errors:
        out.append("okfpro validate failed after your edit:")
        _listed(out, [(e[0], e[1], None) for e in errors], rel, "okfpro validate")
    if warnings:
        per = f" ({_counts(warnings)})" if len(warnings) > SHOWN else ""
        out.append(
            f"okfpro validate accepted the bundle with {len(warnings)} warning(s){per} — conformant, but not "
            "read the way you probably meant:"
        )
        _listed(out, warnings, rel, "okfpro validate")
    if skipped:
        out.append(f"okfpro lint skipped check(s) {', '.join(map(str, skipped))} — those were not looked at.")
    mine = [(f[1], f[2], f[0]) for f in findings if _same_stem(f[1], rel)]
    other = [(f[1], f[2], f[0]) for f in findings if not _same_stem(f[1], rel)]
    if mine:
        out.append("okfpro lint flagged your edit:")
        out.extend(_line(f) for f in mine)
    if other:
        per = f" ({len(other):,}: {_counts(other)})" if len(other) > SHOWN else ""
        out.append(f"okfpro lint findings elsewhere in the bundle — already there, or a neighbour your edit touched{per}:")
        _listed(out, other, None, "okfpro lint")
    return out


def _line(f: tuple) -> str:
    """``  path: message (check)``; a validate error has no check."""
    return f"  {f[0]}: {f[1]}" if f[2] is None else f"  {f[0]}: {f[1]} ({f[2]})"


def _counts(items: list[tuple]) -> str:
    """``orphan 1,290, not_in_index 1,300``: the findings per check, in the order they come."""
    per: dict[str, int] = {}
    for f in items:
        per[f[2]] = per.get(f[2], 0) + 1
    return ", ".join(f"{check} {n:,}" for check, n in per.items())


def _listed(out: list[str], items: list[tuple], rel: str | None, verb: str) -> None:
    """Every ``(path, message, check)`` of the file ``rel`` names (None: none), then the first
    :data:`SHOWN` others and how many more there are."""
    mine = [f for f in items if rel is not None and _same_stem(f[0], rel)]
    other = [f for f in items if rel is None or not _same_stem(f[0], rel)]
    out.extend(_line(f) for f in mine)
    out.extend(_line(f) for f in other[:SHOWN])
    if len(other) > SHOWN:
        out.append(f"  … and {len(other) - SHOWN:,} more elsewhere ({verb} lists them all)")


def cap_messages(ctx: Ctx, root: str, rel: str) -> list[str]:
    """cap-check: only for board.md — the budget header and the board grammar."""
    if rel != "board.md":
        return []
    from okfpro.core import board as _board
    from okfpro.io.workstate import read_optional

    text = read_optional(os.path.join(root, "board.md"))
    if text is None:
        return ["— board: board.md could not be read after your edit."]
    parsed = _board.parse(text)
    return _board.cap_check(parsed) + [f"— board: {g}" for g in _board.grammar(parsed)]


def reconcile_message(ctx: Ctx, root: str, rel: str) -> str | None:
    from okfpro.core.reconcile import applies, reconcile

    if not applies(ctx.event.tool_name, rel):
        return None
    done = analysed(ctx, root, rel)
    if "reconcile" in done:
        return done["reconcile"]
    return reconcile(ctx.bundle(root), ctx.event.tool_name, rel)


def _edit_target(ctx: Ctx) -> tuple[str, str] | None:
    if ctx.event.tool_name not in EDIT_TOOLS:
        return None
    return ctx.target()


def _on_edited_file(name: str, messages: Callable[[Ctx, str, str], Any]) -> Callable[[Ctx], Answer]:
    """A PostToolUse check of the edited file: pass outside a bundle, block with its messages."""

    def check(ctx: Ctx) -> Answer:
        target = _edit_target(ctx)
        if target is None:
            return Answer.pass_()
        out = messages(ctx, *target)
        return Answer.block(out) if out else Answer.pass_()

    check.__name__ = check.__qualname__ = name
    return check


check_okf = _on_edited_file("check_okf", conformance)
cap_check = _on_edited_file("cap_check", cap_messages)
reconcile_search = _on_edited_file("reconcile_search", reconcile_message)


def post_edit(ctx: Ctx) -> Answer:
    """One bundle read: friction (board.md by hand), conformance, cap-check, reconcile."""
    target = _edit_target(ctx)
    if target is None:
        return Answer.pass_()
    root, rel = target
    if rel == "board.md":
        from okfpro.core import friction
        from okfpro.io import friction as friction_log

        friction_log.record(root, friction.edit_event("board.md", ctx.today_s))
    out = conformance(ctx, root, rel) + cap_messages(ctx, root, rel)
    message = reconcile_message(ctx, root, rel)
    if message:
        out.append(message)
    return Answer.block(out) if out else Answer.pass_()
