"""``okfpro doctor [DIR] [--json]``: does every wired host really run every hook?

Exit 0 when every check passes, 1 when one fails (the loop is broken somewhere: the report says where),
2 when DIR is not a directory.
"""

from __future__ import annotations

import click

from okfpro.cli.common import dumps, given_dir


@click.command("doctor")
@click.argument("directory", default=".", required=False)
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
def doctor_cmd(directory: str, as_json: bool) -> int:
    """Prove the enforcement loop of the workspace in DIR (default: .) works end to end.

    For each wired agent host: parse its settings, run each configured command as the host would
    (its substitution, quoting and shell) with a synthetic event, and check the answer's shape.
    Then the interpreter pin, pre-commit and its okfpro hooks, identity, the memory repository's
    fsck, and Codex's hook trust.  Writes nothing.
    """
    from okfpro.io.doctor import diagnose

    report = diagnose(given_dir(directory))
    if as_json:
        click.echo(dumps(report))
    else:
        click.echo(f"okfpro doctor — {report['root']} (hosts wired: {', '.join(report['hosts']) or 'none'})")
        for c in report["checks"]:
            where = f"{c['host']}: " if c["host"] else ""
            click.echo(f"  {'ok  ' if c['ok'] else 'FAIL'} {where}{c['check']} — {c['detail']}")
        failed = sum(1 for c in report["checks"] if not c["ok"])
        click.echo("every wired host runs every hook." if report["ok"] else f"{failed} check(s) failed.")
    return 0 if report["ok"] else 1
