"""``okfpro friction [DIR] [--json] [--pretty] [--issue] [--clear]``.

How many bundle edits were done by hand that a verb (or a guarded tool) could
have done.  Measurement, not a gate: exit 0 whenever it printed; 2 for usage or
no bundle.  An unavailable recorder reads "unknown", never zero; unreadable log
lines are counted.
"""

from __future__ import annotations

import shlex

import click

from okfpro.cli.common import bundle_for, dumps, emit, json_options


def _human(p: dict) -> str:
    lines = []
    if not p["available"]:
        lines.append(
            "Friction: the recorder could not write to .tmp/ at some point — the count is not zero, it is unknown. "
            "`okfpro friction --clear` starts it again."
        )
    if p["unreadable"] and not p["recorded"]:
        lines.append(
            f"Friction: {p['unreadable']} line(s) of the log could not be read and none could — a corrupted log, "
            "not a quiet one."
        )
    elif p["unreadable"]:
        lines.append(f"Friction: {p['unreadable']} unreadable line(s) counted beside the events below.")
    if not p["recorded"]:
        if p["available"]:
            lines.append("Friction: nothing recorded — no bundle file was edited by hand where a verb exists.")
        return "\n".join(lines)
    lines.append(f"Friction: {p['recorded']} hand edit(s) recorded.")
    for row in p["by"]:
        cover = f" — {row['covered by']}" if row["covered by"] else ""
        lines.append(f"  {row['count']:>4}  {row['via']:<5}  {row['what']}{cover}")
    return "\n".join(lines)


def _issue(p: dict) -> str:
    if not p["recorded"] and p["available"] and not p["unreadable"]:
        return ""
    title = f"friction: {p['recorded']} hand edit(s) a verb could do"
    body_lines = ["Counts from `okfpro friction --json`:", "", "```json", dumps(p, pretty=True), "```"]
    body = "\n".join(body_lines)
    return (
        "# Printed, not run. Read it, then run it inside a clone of okfpro's repository (or add --repo OWNER/NAME):\n"
        f"gh issue create --title {shlex.quote(title)} --body {shlex.quote(body)}"
    )


@click.command("friction")
@click.argument("directory", required=False, default=".")
@json_options
@click.option("--issue", is_flag=True, help="Print (never run) a `gh issue create` command carrying the counts.")
@click.option("--clear", is_flag=True, help="Delete the log and the unavailable marker: the count starts again.")
def friction_cmd(directory: str, as_json: bool, pretty: bool, issue: bool, clear: bool) -> int:
    """Hand edits of the bundle that an okfpro verb could have done (telemetry, never a gate)."""
    from okfpro.io import friction as friction_log

    root = bundle_for(directory, default="here").root
    if clear:
        removed = friction_log.clear(root)
        click.echo(f"okfpro friction — cleared ({len(removed)} file(s) removed); the count starts again.")
        return 0
    p = friction_log.summary(root)
    if issue:
        text = _issue(p)
        click.echo(text if text else "okfpro friction — nothing recorded, so there is nothing to report.")
        return 0
    return emit(p, as_json, pretty, lambda: click.echo(_human(p)))
