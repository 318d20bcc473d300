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
from okfpro.core.event import EDIT_TOOLS

SHOWN = 8  # findings elsewhere listed per section; the rest are counted (a large bundle has thousands)
# where each section's findings hold their path and check: validate errors, warnings, lint findings
SECTIONS = ((0, None), (0, 2), (1, 0))


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


def summarise(sections: tuple[list, list, list], rel: str, shown: int = SHOWN) -> list[tuple[list, list, int, dict]]:
    """Per section of ``(errors, warnings, lint findings)``: (the findings of the file ``rel``, the
    first ``shown`` others, how many others, their number per check) — what the answer shows.
    The incremental state answers the same from its table (``analysis.State.summary``)."""
    from okfpro.core.delta import stem

    own = stem(rel)
    out = []
    for items, (path_at, check_at) in zip(sections, SECTIONS):
        mine = [f for f in items if stem(f[path_at]) == own]
        other = [f for f in items if stem(f[path_at]) != own]
        counts: dict[Any, int] = {}
        for f in other:
            check = None if check_at is None else f[check_at]
            counts[check] = counts.get(check, 0) + 1
        out.append((mine, other[:shown], len(other), counts))
    return out


def analysed(ctx: Ctx, root: str, rel: str) -> dict[str, Any]:
    """One analysis per event: the findings (incremental when the state allows) and Rule 1's message.

    ``summary``: :func:`summarise`'s answer; ``skipped``: lint checks that did not run; after a
    full run also ``findings``, the whole lists.

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
        out = _full(ctx.bundle(root), today, rel)
    ctx.memo[key] = out
    return out


def _full(bundle: Any, today: Any, rel: str) -> dict[str, Any]:
    errors, warnings, findings, skipped = full_findings(bundle, today)
    return {"findings": (errors, warnings, findings), "summary": summarise((errors, warnings, findings), rel),
            "skipped": skipped}


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
            out = _full(bundle, today, rel)
            state.build([*bundle.concepts, *bundle.reserved, *bundle.unparseable], present)
            ctx.notes.append(f"post-edit ran in full: {reason}; the incremental state is rebuilt for the next edit")
        else:
            state.refresh()
            out = {"summary": state.summary(delta.stem(rel), SHOWN), "skipped": []}
            answered, message = state.reconcile(ctx.event.tool_name, rel)
            if answered:
                out["reconcile"] = message
        analysis.commit(state.db)
    except BaseException as exc:
        analysis.abandon(state.db)
        if not analysis.damaged(exc):
            raise
        analysis.discard(state.root_real)
        ctx.notes.append(f"post-edit ran in full: the state was unreadable ({exc}); it is rebuilt at the next edit")
        return None
    return out


def conformance(ctx: Ctx, root: str, rel: str) -> list[str]:
    """check-okf: validator errors and warnings, lint warn findings; any skipped check is confessed.

    Your edit's findings come first and are all listed; the findings elsewhere are summarised —
    the first :data:`SHOWN` in a full run's order, then how many more per check — so the answer
    stays short enough for the host to show whole (Rule 1's block after it included) however
    many findings the rest of the bundle holds."""
    done = analysed(ctx, root, rel)
    errors, warnings, lint = done["summary"]
    out: list[str] = []
    if errors[0] or errors[2]:
        out.append("okfpro validate failed after your edit:")
        _listed(out, errors, lambda e: f"  {e[0]}: {e[1]}", "okfpro validate")
    if warnings[0] or warnings[2]:
        out.append(
            f"okfpro validate accepted the bundle with {len(warnings[0]) + warnings[2]} warning(s) — conformant, "
            "but not read the way you probably meant:"
        )
        _listed(out, warnings, lambda w: f"  {w[0]}: {w[1]} ({w[2]})", "okfpro validate")
    if done["skipped"]:
        out.append(f"okfpro lint skipped check(s) {', '.join(map(str, done['skipped']))} — those were not looked at.")

    def line(f: tuple) -> str:
        return f"  {f[1]}: {f[2]} ({f[0]})"

    mine, first, others, counts = lint
    if mine:
        out.append("okfpro lint flagged your edit:")
        out.extend(line(f) for f in mine)
    if others:
        out.append("okfpro lint findings elsewhere in the bundle — already there, or a neighbour your edit touched:")
        _listed(out, ([], first, others, counts), line, "okfpro lint")
    return out


def _listed(out: list[str], section: tuple[list, list, int, dict], line: Callable[[tuple], str], verb: str) -> None:
    """A section of :func:`summarise`: every finding of the edited file, the first others, and
    how many more there are (per check)."""
    mine, first, others, counts = section
    out.extend(line(f) for f in mine)
    out.extend(line(f) for f in first)
    if others > len(first):
        per = ", ".join(f"{check} {n:,}" for check, n in sorted(counts.items()) if check is not None)
        tail = f" — {others:,} in all: {per}" if per else ""
        out.append(f"  … and {others - len(first):,} more elsewhere{tail} ({verb} lists them all)")


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
