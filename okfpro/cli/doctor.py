"""``okfpro doctor [DIR] [--json] [--run-foreign]``: does every wired host really run every hook?

Exit 0 when every check passes, 1 when one fails (the loop is broken somewhere: the report says where),
2 when DIR is not a directory or not an okfpro workspace.
"""

from __future__ import annotations

import click

from okfpro.cli.common import dumps, fail, given_dir


@click.command("doctor")
@click.argument("directory", default=".", required=False)
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.option("--run-foreign", is_flag=True,
              help="Also run wired commands okfpro did not write (each is printed on stderr before it runs).")
def doctor_cmd(directory: str, as_json: bool, run_foreign: bool) -> int:
    """Prove the enforcement loop of the workspace in DIR (default: .) works end to end.

    For each wired agent host: parse its settings, run each command okfpro wrote as the host would
    (its substitution, quoting and shell) with a synthetic event, and check the answer's shape.  A
    command okfpro did not write — changed, foreign, or reaching a launcher file that is not
    okfpro's — is reported "not okfpro's, not run".  Then the interpreter pin, pre-commit and its
    okfpro hooks, identity, the memory repository's fsck, and Codex's and Gemini's trust.  Writes nothing.
    """
    from okfpro.io.doctor import diagnose

    where = given_dir(directory)
    report = diagnose(where, run_foreign=run_foreign, show=lambda line: click.echo(line, err=True))
    if not report["workspace"]:
        from okfpro.io.doctor import enclosing_workspace

        outer = enclosing_workspace(where)
        fail(f"{report['root']} is not an okfpro workspace (no okfpro.toml, no agent-host wiring): nothing to check — "
             + (f"it is inside the workspace {outer}: `okfpro doctor {outer}`" if outer else f"`okfpro init {directory}` makes it one"))
    if as_json:
        click.echo(dumps(report))
    else:
        click.echo(f"okfpro doctor — {report['root']} (hosts wired: {', '.join(report['hosts']) or 'none'})")
        for c in report["checks"]:
            where_ = f"{c['host']}: " if c["host"] else ""
            click.echo(f"  {'ok  ' if c['ok'] else 'FAIL'} {where_}{c['check']} — {c['detail']}")
        failed = sum(1 for c in report["checks"] if not c["ok"])
        click.echo("every wired host runs every hook." if report["ok"] else f"{failed} check(s) failed.")
    return 0 if report["ok"] else 1
