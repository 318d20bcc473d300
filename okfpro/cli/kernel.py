"""``okfpro validate`` and ``okfpro lint``: the kernel's two checking verbs.

Both take an optional DIR.  Without it, the bundle is the one enclosing the
working directory (falling back to ``./.okf`` or ``.``); with it, ``DIR/.okf`` is
tried before ``DIR``, and a named directory without ``index.md`` is read as a bundle
(as the reference reads it).  No bundle found without DIR, or DIR not a directory ->
a message on stderr and exit 2.

Exit codes: ``validate`` 0 conformant / 1 not / 2 usage or could not run;
``lint`` 0 unless ``--fail-on`` is met (1), 2 for usage (an unknown check id, a
bad ``--stale-after``).  ``--json`` prints the reference's shape on one line,
``--pretty`` indents it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import click


def _fail(message: str, code: int = 2) -> None:
    click.echo(f"okfpro: {message}", err=True)
    raise SystemExit(code)


def locate(dir_arg: str | None) -> tuple[Path, str]:
    """(bundle root, the name printed as ``bundle``) or exit 2 with a reason."""
    root, name, _ = locate_ref(dir_arg)
    return root, name


def locate_ref(dir_arg: str | None) -> tuple[Path, str, str | None]:
    """As :func:`locate`, plus the registry slug when DIR was ``@slug`` (the bundle is then
    the registered directory, named by its path as the reference names it)."""
    from okfpro.io import roots

    slug = None
    if dir_arg is not None and dir_arg.startswith("@"):
        from okfpro.io import registry

        try:
            entry = registry.resolve(dir_arg)
        except registry.RegistryError as exc:
            _fail(str(exc))
            raise
        dir_arg, slug = entry.dir, entry.slug

    if dir_arg is None:
        found = roots.enclosing(os.getcwd()) or roots.resolve(".")
        if found is None:
            _fail(
                "no bundle here: no index.md in this directory or a .okf/ below it, and none enclosing it "
                "(give DIR, or run `okfpro init`)"
            )
        assert found is not None
        return found, _relative(found), None
    given = Path(dir_arg)
    if not given.exists():
        _fail(f"{dir_arg}: no such directory")
    if not given.is_dir():
        _fail(f"{dir_arg}: not a directory")
    # A directory named explicitly is a bundle, index.md or not (as the reference and every
    # OKF reader take it); DIR/.okf wins when it holds index.md.
    found = roots.resolve(given) or given
    name = dir_arg if found == given else os.path.join(dir_arg, found.name)
    return found, name, slug


def _relative(path: Path) -> str:
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return str(path)
    return str(path) if rel.startswith("..") else rel


def _load(root: Path):
    # A one-shot process that builds ~10 objects per concept and frees nothing until it
    # exits: the cyclic collector only costs time here (about a third of lint at 10k).
    import gc

    gc.disable()
    from okfpro.io.bundle import load

    try:
        return load(root)
    except OSError as exc:
        _fail(f"{root}: cannot read the bundle: {exc.strerror or exc}")


def _emit_json(payload: dict[str, Any], pretty: bool) -> None:
    if pretty:
        click.echo(json.dumps(payload, indent=2, ensure_ascii=False))
    else:
        click.echo(json.dumps(payload, separators=(",", ":"), ensure_ascii=False))


def _plural(n: int, word: str, many: str | None = None) -> str:
    return f"{n} {word if n == 1 else (many or word + 's')}"


# --- validate -------------------------------------------------------------------------
@click.command("validate")
@click.argument("dir_", metavar="[DIR]", required=False)
@click.option("--json", "as_json", is_flag=True, help="Print the report as one line of JSON.")
@click.option("--pretty", is_flag=True, help="Print the JSON report indented (implies --json).")
def validate_cmd(dir_: str | None, as_json: bool, pretty: bool) -> None:
    """Check a bundle against OKF v0.2 conformance (§11).

    Errors make the bundle non-conformant (exit 1); warnings never do.
    """
    from okfpro.core.validate import validate

    root, name = locate(dir_)
    report = validate(_load(root))
    code = 0 if report["conformant"] else 1
    if as_json or pretty:
        _emit_json({"bundle": name, **report}, pretty)
        raise SystemExit(code)

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
    raise SystemExit(code)


# --- lint -----------------------------------------------------------------------------
_FAIL_ON = ("never", "info", "warn")


@click.command("lint")
@click.argument("dir_", metavar="[DIR]", required=False)
@click.option("--json", "as_json", is_flag=True, help="Print the report as one line of JSON.")
@click.option("--pretty", is_flag=True, help="Print the JSON report indented (implies --json).")
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
) -> None:
    """Curation report: the 26 lint checks (advisory; exit 0 unless --fail-on)."""
    from okfpro.core.lint import UnknownCheck, lint, parse_cutoff, parse_today, select

    try:
        select(only, except_)
    except UnknownCheck as exc:
        _fail(str(exc))
    try:
        day = parse_today(today) if today is not None else None
    except ValueError as exc:
        _fail(f"--today: {exc}")
    if day is None:
        from okfpro.io.clock import ClockError, today as clock_today

        try:
            day = clock_today()
        except ClockError as exc:
            _fail(str(exc))
    try:
        parse_cutoff(stale_after, day)
    except ValueError as exc:
        _fail(str(exc))

    root, name = locate(dir_)
    bundle = _load(root)
    try:
        report = lint(bundle, today=day, only=only, except_=except_, min_body=min_body, stale_after=stale_after)
    except UnknownCheck as exc:
        _fail(str(exc))
    except ValueError as exc:
        _fail(str(exc))

    if report["stats"]["skipped"]:
        from okfpro.cli.views import note_skipped

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
        _emit_json({"bundle": name, **report}, pretty)
        raise SystemExit(code)

    stats = report["stats"]
    click.echo(f"Linting {name}")
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
    raise SystemExit(code)
