"""The SessionStart banner: the work state, once, so the agent need not go looking.

Cheap by contract: ``board.md``, ``log.md``, the ``journal/`` and ``projects/``
listings and the friction log — no concept is parsed.  Always an answer (the
caller exits 0), always under 10,000 characters (cut with a visible marker).

Variants: no bundle → nothing; a broken core → what is missing and how to
restore it; an unreadable event → "state unavailable", gates still running.
``source`` shapes it: ``startup`` / ``clear`` get the full brief, ``resume`` a
refresh, ``compact`` a short re-brief (the long one is in the compacted past).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

LIMIT = 9_500
TRUNCATED = "[… banner cut here to stay under the 10,000-character limit — `okfpro state` has the rest]"
REFRESH = (
    "This is current as of session start. After you write, refresh with `okfpro state` rather than "
    "re-reading the files. `okfpro board` lists the lines; `okfpro capture`, `promote`, `demote`, "
    "`journal open` and `close` write the mechanical shapes."
)


def unavailable(reason: str) -> str:
    return f"Bundle state unavailable — {reason}. The gates still run; only this banner is blind."


def clip(text: str, limit: int = LIMIT) -> str:
    if len(text) <= limit:
        return text
    keep = text[: limit - len(TRUNCATED) - 1]
    cut = keep.rfind("\n")
    if cut > limit // 2:
        keep = keep[:cut]
    return keep + "\n" + TRUNCATED


def session_context(ctx: Any) -> Any:
    """The SessionStart check: the banner as context (nothing outside a bundle)."""
    from okfpro.hooks.answer import Answer

    from okfpro.core.frames import neutralise

    text = neutralise(banner(ctx))  # board lines, titles and commands are text someone else wrote
    return Answer.context(text) if text else Answer.pass_()


def crashed(ctx: Any, name: str, detail: str) -> Any:
    """The banner's crash policy: an 'unavailable' banner instead of silence (the gates still run)."""
    from okfpro.hooks.answer import Answer

    return Answer.context(unavailable(f"the banner crashed ({detail})"))


def banner(ctx: Any) -> str:
    root = ctx.enclosing()
    if root is None:
        return ""
    from okfpro.io import workstate

    missing = workstate.core_missing(root)
    if missing:
        lines = [f"Bundle at {root} has a broken core:"]
        lines += [f"  — {m}" for m in missing]
        lines.append(
            "The gates cannot read a bundle without its skeleton. Restore the missing part(s), then run "
            "`okfpro audit .`."
        )
        return clip("\n".join(lines))
    escaped = workstate.escaping_state_files(root)
    if escaped:
        lines = [f"Bundle state unavailable for {root}:"] + [f"  — {m}" for m in escaped]
        lines.append("The gates read nothing through such a link; the Stop gate refuses until it is a file again.")
        return clip("\n".join(lines))
    return clip("\n".join(lines_for(ctx, root)))


def lines_for(ctx: Any, root: str) -> list[str]:
    from okfpro.io import workstate

    source = ctx.event.source or "startup"
    payload = workstate.state_payload(root, ctx.today)
    c = payload["board"]
    cap = c["cap"] if c.get("cap") is not None else "?"
    opening = {
        "resume": "Bundle state on resume",
        "compact": "Bundle state after compaction",
        "clear": "Bundle state after /clear",
        "fork": "Bundle state in this forked session",
    }.get(source, "Bundle state at session start")
    out = [
        f"{opening} — in flight {c['in flight']}/{cap} · backlog {c['backlog']} · waiting {c['waiting']} "
        f"({c['past chase']} past chase) · inbox {c['inbox']} (oldest {c['oldest']}d) · to read {c['to read']} "
        f"· deadlines {c['deadlines']} · conflicts open {c['conflicts open']}"
    ]
    if c.get("declared") is not None and c["declared"] != c["in flight"]:
        out.append(f"  The header declares {c['declared']} in flight and the section holds {c['in flight']} — fix the header.")
    log = payload["log"]
    newest = log.get("newest day") or "none yet"
    journal_today = "open" if log.get("journal today") else "not opened"
    projects = payload["projects"]["open"]
    shown = f" ({', '.join(projects[:12])}{', …' if len(projects) > 12 else ''})" if projects else ""
    out.append(
        f"Log — newest day {newest} · journal for {ctx.today_s} {journal_today} · open projects {len(projects)}{shown}"
    )
    last = payload.get("last snapshot")
    if not last:
        out.append("Last snapshot: none yet")
    else:
        out.append(f"Last snapshot ({last['day']}, not live): {str(last['line']).strip()}")
    if source == "compact":
        out.append("Compare with the last snapshot: a number that moved the wrong way is the signal.")
        out.append(REFRESH)
        return out
    out.append("Read the delta, not the status: a number that moved the wrong way since then is today's first signal.")
    risk = payload.get("deadlines at risk") or []
    if risk:
        out.append("Deadlines within 7d with nothing in flight against them:")
        out.extend(f"  {str(line).strip()}" for line in risk)
    out.extend(dormancy_lines(ctx, root))
    out.append(REFRESH)
    out.extend(friction_lines(root))
    return out


def dormancy_lines(ctx: Any, root: str) -> list[str]:
    from okfpro.core import board as _board
    from okfpro.core import dormancy as _dormancy
    from okfpro.io import workstate

    board = _board.parse(workstate.board_text(root) or "")
    return _dormancy.questions(board, ctx.today, workstate.journal_entries(root))


def friction_lines(root: str) -> list[str]:
    try:
        from okfpro.core import friction
        from okfpro.io import friction as friction_log

        return friction.banner_lines(friction_log.report(root))
    except Exception as exc:  # noqa: BLE001 - telemetry never takes the banner down
        return [f"Friction: the count could not be read ({type(exc).__name__}), so it is unknown rather than zero."]
