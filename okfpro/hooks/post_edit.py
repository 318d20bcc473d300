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


def conformance(ctx: Ctx, root: str, rel: str) -> list[str]:
    """check-okf: validator errors and warnings, lint warn findings (yours / elsewhere).

    Lint gets the clock (so nothing that needs a date is silently skipped) and
    leaves out ``stale`` (its cutoff is opt-in); any skipped check is confessed.
    """
    from okfpro.core.lint import lint
    from okfpro.core.validate import validate

    bundle = ctx.bundle(root)
    out: list[str] = []
    result = validate(bundle)
    if result["errors"]:
        out.append("okfpro validate failed after your edit:")
        out.extend(f"  {e['path']}: {e['message']}" for e in result["errors"])
    warnings = result["warnings"]
    if warnings:
        out.append(
            f"okfpro validate accepted the bundle with {len(warnings)} warning(s) — conformant, but not "
            "read the way you probably meant:"
        )
        out.extend(f"  {w['path']}: {w['message']} ({w['check']})" for w in warnings)
    report = lint(bundle, today=ctx.today, except_=["stale"])
    skipped = report["stats"].get("skipped_checks") or []
    if skipped:
        out.append(f"okfpro lint skipped check(s) {', '.join(map(str, skipped))} — those were not looked at.")
    findings = [f for f in report["findings"] if f["severity"] == "warn"]
    mine = [f for f in findings if _same_stem(f["path"], rel)]
    other = [f for f in findings if not _same_stem(f["path"], rel)]

    def line(f: dict[str, Any]) -> str:
        return f"  {f['path']}: {f['message']} ({f['check']})"

    if mine:
        out.append("okfpro lint flagged your edit:")
        out.extend(line(f) for f in mine)
    if other:
        out.append("okfpro lint findings elsewhere in the bundle — already there, or a neighbour your edit touched:")
        out.extend(line(f) for f in other)
    return out


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
