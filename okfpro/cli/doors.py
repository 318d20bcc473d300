"""The doors: ``okfpro audit`` (CI), ``okfpro records`` (commit), ``okfpro unverified`` (attestation).

* ``audit [DIR]`` — every invariant at once: layout, wiring, closed core, validate errors and warnings,
  lint warnings, snapshot headings, budget, board grammar, pairing (the table ``CHECKS`` in
  ``okfpro/core/audit.py``; the disk is read by ``okfpro/io/audit.py``).  Exit 0 clean, 1 findings,
  2 could not run (a crash must never look like findings, nor like a clean bill).
* ``records [DIR]`` — the staged commit must not modify, delete, rename or typechange a past journal
  day.  Read with the git CLI, which honours ``GIT_INDEX_FILE`` as a pre-commit hook sees it.  A git
  that fails or is missing is a finding (nobody can tell).  Exit 0 append-only, 1 findings, 2 usage.
* ``unverified [DIR]`` — concepts awaiting the owner's read.  Always exit 0 once printed.
"""

from __future__ import annotations

import click

from okfpro.cli.common import bundle_for, emit, fail, given_dir, json_options, load, today
from okfpro.core.audit import CATEGORIES

_WIDTH = max(len(c) for c in (*CATEGORIES, "records"))


def render_findings(findings: list[tuple[str, str]]) -> str:
    """One line per finding, prefixed by its padded category."""
    lines = []
    for category, message in findings:
        first, *rest = message.split("\n")
        lines.append(f"  {category:<{_WIDTH}}  {first}")
        lines.extend(f"  {'':<{_WIDTH}}  {more}" for more in rest)
    return "\n".join(lines)


@click.command("audit")
@click.argument("directory", default=".", required=False)
def audit_cmd(directory: str) -> int:
    """The CI door: every invariant of the workspace in DIR (default: .) at once.

    Exit 0 clean, 1 findings, 2 could not run.
    """
    from okfpro.io import audit

    start = given_dir(directory)
    day = today()
    try:
        findings = audit.findings(start, day)
    except Exception as exc:  # a crash must not look like findings (1) or like a clean bill (0)
        fail(f"could not run: {type(exc).__name__}: {exc}")
    if not findings:
        click.echo("okfpro audit — clean.")
        return 0
    click.echo(f"okfpro audit — {len(findings)} finding(s) in {directory}:")
    click.echo(render_findings(findings))
    return 1


@click.command("records")
@click.argument("directory", default=".", required=False)
def records_cmd(directory: str) -> int:
    """The commit door: the staged commit in DIR (default: .) must leave past journal days alone.

    Exit 0 append-only, 1 findings (including a git that cannot answer), 2 usage or no bundle.
    """
    from okfpro.io import audit

    root = bundle_for(directory, default="here").root
    messages = audit.records(root, today())
    if not messages:
        click.echo("okfpro records — append-only.")
        return 0
    click.echo(render_findings([("records", m) for m in messages]))
    return 1


@click.command("unverified")
@click.argument("directory", default=".", required=False)
@json_options
def unverified_cmd(directory: str, as_json: bool, pretty: bool) -> int:
    """Concepts in DIR (default: .) that were generated and still await the owner's read.

    Rows: id, by, at, trust. Reporting, never a gate: exit 0 once printed.
    """
    from okfpro.core.audit import render_unverified, unverified_rows

    root = bundle_for(directory, default="here").root
    try:
        rows = unverified_rows(load(root).concepts)
    except Exception as exc:
        fail(f"could not run: {type(exc).__name__}: {exc}")
    return emit(rows, as_json, pretty, lambda: click.echo(render_unverified(rows)))
