"""The doors: ``okfpro audit`` (CI), ``okfpro records`` (commit), ``okfpro unverified`` (attestation).

* ``audit [DIR]`` — every invariant at once: layout, closed core, validate errors and warnings,
  lint warnings, snapshot headings, budget, board grammar, pairing.  Exit 0 clean, 1 findings,
  2 could not run (a crash must never look like findings, nor like a clean bill).
* ``records [DIR]`` — the staged commit must not modify, delete, rename or typechange a past journal
  day.  Read with the git CLI, which honours ``GIT_INDEX_FILE`` as a pre-commit hook sees it.  A git
  that fails or is missing is a finding (nobody can tell).  Exit 0 append-only, 1 findings, 2 usage.
* ``unverified [DIR]`` — concepts awaiting the owner's read.  Always exit 0 once printed.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import click

from okfpro.cli.common import bundle_for, emit, fail, given_dir, json_options, load, today


def _read_text(path: Path) -> str:
    with open(path, "rb") as handle:
        return handle.read().decode("utf-8", errors="replace")


def stop_promise(root: Path, today: Any) -> list[str]:
    """What the Stop gate asks of uncommitted bundle changes, held at this door too.

    The gate yields when the host says ``stop_hook_active`` (the host's own advice), so at the agent
    door it is one reminder; audit — run by the pre-commit door and by hand — refuses the same thing:
    Markdown in the bundle changed since the last commit, and log.md has no correct Snapshot line for
    today.  A repository with no commit yet (the scaffold's first commit) and a clean tree (CI's
    checkout) have nothing to answer for.
    """
    import subprocess

    try:
        head = subprocess.run(["git", "-C", str(root), "rev-parse", "--verify", "-q", "HEAD"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=20)
        if head.returncode != 0:
            return []
        status = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--", "*.md"],
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=20)
    except (OSError, subprocess.SubprocessError):
        return []
    if status.returncode != 0 or not status.stdout.strip():
        return []
    from okfpro.hooks.context import Ctx
    from okfpro.hooks.event import Event
    from okfpro.hooks.stop import snapshot_messages

    return [f"{m.lstrip('— ')} (the bundle has uncommitted changes: the Stop gate asks for this line)"
            for m in snapshot_messages(Ctx(Event(), today), str(root))]


def audit_findings(start: Path, today: Any) -> list[tuple[str, str]]:
    """Every finding of ``okfpro audit`` for the directory ``start``, as (category, message)."""
    from okfpro.core import audit as _audit
    from okfpro.io.roots import resolve, root_kind

    findings: list[tuple[str, str]] = []

    def add(category: str, messages: list[str]) -> None:
        findings.extend((category, m) for m in messages)

    add("layout", _audit.layout(str(start), root_kind(start), (start / ".okf" / "index.md").is_file()))
    if (start / "okfpro.toml").is_file():  # an okfpro workspace: the doors it promises must be wired
        from okfpro.io.scaffold import template_root
        from okfpro.io.wiring import findings as wiring_findings

        add("wiring", wiring_findings(start, template_root()))
    root = resolve(start)
    if root is None:
        add("structure", [_audit.no_bundle(str(start))])
        return findings
    present = {path: ((root / path).is_dir() if kind == "dir" else (root / path).is_file()) for path, kind, _ in _audit.CORE}
    add("structure", _audit.structure(present))
    from okfpro.io.workstate import escaping_state_files

    escaped = escaping_state_files(root)
    add("structure", escaped)
    for message in escaped:  # named above; never read through
        present[message.split(" ", 1)[0]] = False

    from okfpro.core.lint import lint
    from okfpro.core.validate import validate
    from okfpro.io.bundle import load

    bundle = load(root)
    add("validate", _audit.validate_findings(validate(bundle)))
    add("lint", _audit.lint_findings(lint(bundle, today=today, except_=list(_audit.LINT_EXCEPT))))
    if present["log.md"]:
        add("snapshot", _audit.snapshot_findings(_read_text(root / "log.md")))
        add("snapshot", stop_promise(root, today))
    if present["board.md"]:
        board_text = _read_text(root / "board.md")
        add("budget", _audit.budget_findings(board_text))
        add("board", _audit.board_findings(board_text))
        from okfpro.core.board import parse as parse_board
        from okfpro.core.pairing import failures
        from okfpro.io.workstate import pairing_facts

        add("pairing", _audit.pairing_findings(failures(parse_board(board_text).rows, pairing_facts(root, bundle))))
    return findings


@click.command("audit")
@click.argument("directory", default=".", required=False)
def audit_cmd(directory: str) -> int:
    """The CI door: every invariant of the workspace in DIR (default: .) at once.

    Exit 0 clean, 1 findings, 2 could not run.
    """
    from okfpro.core.audit import render_findings

    start = given_dir(directory)
    day = today()
    try:
        findings = audit_findings(start, day)
    except Exception as exc:  # a crash must not look like findings (1) or like a clean bill (0)
        fail(f"could not run: {type(exc).__name__}: {exc}")
    if not findings:
        click.echo("okfpro audit — clean.")
        return 0
    click.echo(f"okfpro audit — {len(findings)} finding(s) in {directory}:")
    click.echo(render_findings(findings))
    return 1


def staged_changes(root: Path) -> list[tuple[str, str]]:
    """(status letter, path) for every staged modify / delete / rename / typechange; raises on git failure.

    A rename reports its old path: that is the record that would disappear.
    """
    inside = subprocess.run(["git", "-C", str(root), "rev-parse", "--git-dir"], capture_output=True)
    if inside.returncode != 0:  # else git diff falls back to --no-index and says "unknown option `cached'"
        raise RuntimeError(f"{root} is not inside a Git repository, so there is no staged commit to read")
    proc = subprocess.run(
        ["git", "-C", str(root), "diff", "--cached", "--name-status", "-z", "--diff-filter=MDRT"],
        capture_output=True,
    )
    if proc.returncode != 0:
        reason = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        raise RuntimeError(reason[0] if reason else f"git exited {proc.returncode}")
    fields = proc.stdout.decode("utf-8", "surrogateescape").split("\0")
    out: list[tuple[str, str]] = []
    i = 0
    while i < len(fields) and fields[i]:
        status = fields[i]
        if status[:1] in ("R", "C"):
            out.append((status[:1], fields[i + 1]))
            i += 3
        else:
            out.append((status[:1], fields[i + 1]))
            i += 2
    return out


@click.command("records")
@click.argument("directory", default=".", required=False)
def records_cmd(directory: str) -> int:
    """The commit door: the staged commit in DIR (default: .) must leave past journal days alone.

    Exit 0 append-only, 1 findings (including a git that cannot answer), 2 usage or no bundle.
    """
    from okfpro.core.audit import records_findings, render_findings

    root = bundle_for(directory, default="here").root
    day = today()
    try:
        messages = records_findings(staged_changes(root), day)
    except (OSError, RuntimeError) as exc:
        messages = [
            f"could not read the staged change with git ({exc}); nobody can tell whether a past journal "
            "day is touched, so this is refused."
        ]
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
