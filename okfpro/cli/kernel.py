"""``okfpro validate`` and ``okfpro lint``: the kernel's two checking verbs.

Both take an optional DIR, found by :func:`okfpro.cli.common.bundle_for` (a named
directory is read as a bundle, as the reference reads it).

Exit codes: ``validate`` 0 conformant / 1 not / 2 usage or could not run;
``lint`` 0 unless ``--fail-on`` is met (1), 2 for usage (an unknown check id, a
bad ``--stale-after``).  ``--json`` prints the reference's shape on one line,
``--pretty`` indents it.
"""

from __future__ import annotations

import click

from okfpro.cli.common import bundle_for, emit, fail, json_options, load, today as clock_today


def _plural(n: int, word: str, many: str | None = None) -> str:
    return f"{n} {word if n == 1 else (many or word + 's')}"


# --- validate -------------------------------------------------------------------------
@click.command("validate")
@click.argument("dir_", metavar="[DIR]", required=False)
@json_options
def validate_cmd(dir_: str | None, as_json: bool, pretty: bool) -> int:
    """Check a bundle against OKF v0.2 conformance (§11).

    Errors make the bundle non-conformant (exit 1); warnings never do.
    """
    from okfpro.core.validate import validate

    at = bundle_for(dir_, named_is_bundle=True)
    report = validate(load(at.root, cache=False))  # a gate (pre-commit): parsed from the files
    code = 0 if report["conformant"] else 1
    if as_json or pretty:
        emit({**at.head(), **report}, as_json, pretty)
        return code
    name = at.name

    errors, warnings, counts = report["errors"], report["warnings"], report["counts"]
    click.echo(f"Validating {name}")
    if errors:
        click.echo("")
        click.echo("Errors (the bundle is not conformant until these are fixed):")
        for e in errors:
            click.echo(f"  {e['path']}: {e['message']}")
    if warnings:
        click.echo("")
        click.echo("Warnings (tolerated; fix when cheap):")
        for w in warnings:
            click.echo(f"  {w['path']}: {w['message']}  [{w['check']}]")
    click.echo("")
    verdict = "conformant" if report["conformant"] else "NOT conformant"
    click.echo(
        f"{verdict}: {_plural(len(errors), 'error')}, {_plural(len(warnings), 'warning')} "
        f"({_plural(counts['concepts'], 'concept')}, {_plural(counts['indexes'], 'index', 'indexes')}, "
        f"{_plural(counts['logs'], 'log')})"
    )
    return code


# --- lint -----------------------------------------------------------------------------
_FAIL_ON = ("never", "info", "warn")


@click.command("lint")
@click.argument("dir_", metavar="[DIR]", required=False)
@json_options
@click.option("--only", "only", metavar="ID,..", help="Run only these check ids (comma-separated).")
@click.option("--except", "except_", metavar="ID,..", help="Skip these check ids (comma-separated).")
@click.option(
    "--min-body", type=click.IntRange(min=0), default=50, show_default=True, help="stub: body shorter than N chars."
)
@click.option(
    "--stale-after",
    "stale_after",
    metavar="AGE",
    help="stale: flag generated_at older than AGE (90d, 12w, an ISO date, or a full ISO timestamp).",
)
@click.option("--today", metavar="YYYY-MM-DD", help="The day `expired` compares against (default: today).")
@click.option(
    "--fail-on",
    type=click.Choice(_FAIL_ON),
    default="never",
    show_default=True,
    help="Exit 1 when a finding at this severity (or worse) exists.",
)
def lint_cmd(
    dir_: str | None,
    as_json: bool,
    pretty: bool,
    only: str | None,
    except_: str | None,
    min_body: int,
    stale_after: str | None,
    today: str | None,
    fail_on: str,
) -> int:
    """Curation report: the 26 lint checks (advisory; exit 0 unless --fail-on)."""
    from okfpro.core.lint import UnknownCheck, lint, parse_cutoff, parse_today, select

    try:
        select(only, except_)
    except UnknownCheck as exc:
        fail(str(exc))
    try:
        day = parse_today(today) if today is not None else None
    except ValueError as exc:
        fail(f"--today: {exc}")
    if day is None:
        day = clock_today()
    try:
        parse_cutoff(stale_after, day)
    except ValueError as exc:
        fail(str(exc))

    at = bundle_for(dir_, named_is_bundle=True)
    bundle = load(at.root, cache=False)  # a gate (pre-commit): parsed from the files
    try:
        report = lint(bundle, today=day, only=only, except_=except_, min_body=min_body, stale_after=stale_after)
    except UnknownCheck as exc:
        fail(str(exc))
    except ValueError as exc:
        fail(str(exc))

    if report["stats"]["skipped"]:
        from okfpro.cli.common import note_skipped

        note_skipped(bundle)
    findings = report["findings"]
    severities = {f["severity"] for f in findings}
    if fail_on == "warn":
        code = 1 if "warn" in severities else 0
    elif fail_on == "info":
        code = 1 if findings else 0
    else:
        code = 0

    if as_json or pretty:
        emit({**at.head(), **report}, as_json, pretty)
        return code

    stats = report["stats"]
    click.echo(f"Linting {at.name}")
    current = None
    for f in findings:
        if f["check"] != current:
            current = f["check"]
            count = sum(1 for g in findings if g["check"] == current)
            click.echo("")
            click.echo(f"{current} ({f['severity']}, {count}):")
        where = f["path"] if f["path"] is not None else "(bundle)"
        click.echo(f"  {where}: {f['message']}")
        metric = f["metric"] or {}
        if f["path"] is None:
            for member in metric.get("concepts") or metric.get("members") or ():
                click.echo(f"      {member}")
    if stats["skipped_checks"]:
        click.echo("")
        reasons = {
            "stale": "no --stale-after cutoff given",
            "expired": "no day to compare against",
        }
        for cid in stats["skipped_checks"]:
            click.echo(f"skipped: {cid} ({reasons.get(cid, 'could not run')}) — not checked, which is not a pass")
    warn = sum(1 for f in findings if f["severity"] == "warn")
    info = len(findings) - warn
    click.echo("")
    click.echo(
        f"{_plural(stats['concepts'], 'concept')}, {_plural(stats['edges'], 'edge')}, "
        f"{_plural(stats['indexes'], 'index', 'indexes')}, {_plural(stats['logs'], 'log')}, "
        f"{stats['skipped']} unparseable; {stats['orphans']} orphan(s), {stats['loose']} unlinked, "
        f"{stats['stubs']} stub(s), {stats['backlog']} missing target(s), "
        f"{_plural(stats['components'], 'component')}"
    )
    trust = ", ".join(f"{k} {v}" for k, v in stats["trust"].items())
    click.echo(f"trust: {trust}")
    click.echo("status: " + (", ".join(f"{k} {v}" for k, v in stats["status"].items()) or "none"))
    verdict = "healthy" if report["healthy"] else "NOT healthy"
    click.echo(f"{verdict}: {_plural(warn, 'warning')}, {info} info")
    return code
