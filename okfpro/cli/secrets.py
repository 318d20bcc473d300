"""``okfpro secrets [FILES...]``: the pre-commit door of the capture safety layer.

Scans the named files, or — with no names — the files staged in the current Git
repository (``git diff --cached --name-only``, their *staged* content).  Prints
``path:line: rule`` per finding, never the value.  Exit 1 when anything was found,
0 when clean, 2 on usage errors or when the staged set cannot be read.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import click

from okfpro.cli.common import fail

_MAX_BYTES = 5 * 1024 * 1024


def _decode(data: bytes) -> str | None:
    if b"\x00" in data[:8192]:
        return None  # binary
    return data.decode("utf-8", errors="replace")


def _staged() -> list[tuple[str, bytes]] | None:
    try:
        names = subprocess.run(
            ["git", "diff", "--cached", "--name-only", "--diff-filter=ACMR", "-z"],
            capture_output=True,
            check=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    out: list[tuple[str, bytes]] = []
    for raw in names.split(b"\x00"):
        if not raw:
            continue
        name = raw.decode("utf-8", errors="surrogateescape")
        try:
            blob = subprocess.run(["git", "show", f":{name}"], capture_output=True, check=True).stdout
        except (OSError, subprocess.CalledProcessError):
            continue
        out.append((name, blob))
    return out


@click.command("secrets")
@click.argument("files", nargs=-1, type=click.Path(dir_okay=False))
@click.option("--quiet", "-q", is_flag=True, help="Print nothing; only the exit code.")
def secrets_cmd(files: tuple[str, ...], quiet: bool) -> int:
    """Refuse files holding a detectable secret (pre-commit door).

    With FILES, scan those; without, scan the staged content of the current
    repository.  Output is `path:line: rule`, never the secret.  Exit 1 if any
    secret is found, 0 if clean, 2 on usage errors.
    """
    from okfpro.core.redact import scan

    items: list[tuple[str, bytes]] = []
    if files:
        for name in files:
            path = Path(name)
            try:
                if path.stat().st_size > _MAX_BYTES:
                    continue
                items.append((name, path.read_bytes()))
            except OSError as exc:
                fail(f"cannot read {name}: {exc.strerror or exc}")
    else:
        staged = _staged()
        if staged is None:
            fail("no files given and no staged changes readable (not a Git repository?)")
        items = [(name, blob) for name, blob in staged if len(blob) <= _MAX_BYTES]

    total = 0
    for name, data in items:
        text = _decode(data)
        if text is None:
            continue
        for finding in scan(text):
            total += 1
            if not quiet:
                click.echo(f"{name}:{finding.line}: {finding.rule}")
    if total and not quiet:
        click.echo(
            f"okfpro secrets: {total} secret(s) found; remove them (or mark a false positive "
            "with `okfpro:allow-secret` on that line).",
            err=True,
        )
    sys.stdout.flush()
    return 1 if total else 0
