"""``okfpro audit`` (the CI door) and ``okfpro unverified``: every category, the exit codes, the corpus."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from okfpro.cli.app import run
from tests.helpers import invoke, shared_dir

SHARED = shared_dir()
EXPECTED = sorted((SHARED / "conformance" / "expected").glob("s*.json"))
TODAY = "2026-11-30"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "w"
    proc = invoke("init", str(ws))
    assert proc.returncode == 0, proc.stderr
    return ws


def audit(ws: Path) -> tuple[int, str]:
    proc = invoke("audit", str(ws), env={"OKFPRO_TODAY": TODAY})
    assert proc.returncode in (0, 1), proc.stderr
    return proc.returncode, proc.stdout


def commit_all(ws: Path) -> None:
    """Commit the tree as it stands (a clean tree owes no Snapshot line for today)."""
    import subprocess

    for args in (["add", "-A"], ["-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-qm", "x"]):
        subprocess.run(["git", *args], cwd=ws, check=True, capture_output=True)


def finding_lines(stdout: str, category: str) -> list[str]:
    return [line.strip()[len(category):].strip() for line in stdout.splitlines() if line.strip().startswith(category + " ")]


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


BOARD = """---
type: Board
title: Board
description: The board.
---

# Board

**In flight: {declared}/5**

## In flight
{in_flight}
## Backlog

## Waiting

## Inbox

## To read

## Deadlines
"""


# --- the conformance corpus -------------------------------------------------------------------


@pytest.mark.skipif(not EXPECTED, reason="conformance corpus not available")
def test_audit_exit_code_matches_the_reference_on_every_corpus_bundle(monkeypatch, capsys) -> None:
    monkeypatch.setenv("OKFPRO_NO_CACHE", "1")  # the corpus is read-only material: write no cache beside it
    mismatches = []
    for path in EXPECTED:
        expected = json.loads(path.read_text(encoding="utf-8"))
        monkeypatch.setenv("OKFPRO_TODAY", expected["today"])
        bundle_dir = SHARED / "conformance" / "bundles" / expected["workspace"]
        code = run(["audit", str(bundle_dir)])
        out = capsys.readouterr()
        if code != expected["audit"]["rc"]:
            mismatches.append((expected["workspace"], code, expected["audit"]["rc"], out.err[-300:]))
    assert not mismatches, mismatches
    assert len(EXPECTED) == 100


@pytest.mark.skipif(not EXPECTED, reason="conformance corpus not available")
def test_audit_on_a_corpus_bundle_as_a_real_process() -> None:
    sample = json.loads(EXPECTED[0].read_text(encoding="utf-8"))
    proc = invoke("audit", str(SHARED / "conformance" / "bundles" / sample["workspace"]),
                      env={"OKFPRO_TODAY": sample["today"], "OKFPRO_NO_CACHE": "1"})
    assert proc.returncode == sample["audit"]["rc"], proc.stderr
    assert "finding(s)" in proc.stdout


# --- each category ------------------------------------------------------------------------------


def test_a_fresh_workspace_is_clean(workspace: Path) -> None:
    code, out = audit(workspace)
    assert (code, out.strip()) == (0, "okfpro audit — clean.")


def test_audit_accepts_the_bundle_root_itself(workspace: Path) -> None:
    assert audit(workspace / ".okf")[0] == 0


@pytest.mark.parametrize("missing", ["board.md", "log.md", "journal", "areas/corpus.md"])
def test_structure_the_closed_core(workspace: Path, missing: str) -> None:
    import shutil

    target = workspace / ".okf" / missing
    shutil.rmtree(target) if target.is_dir() else target.unlink()
    if missing == "areas/corpus.md":  # keep the index honest so only the core finding remains
        write(workspace / ".okf/areas/index.md", "# Areas\n\nNothing here yet.\n")
    code, out = audit(workspace)
    assert code == 1
    lines = finding_lines(out, "structure")
    assert len(lines) == 1 and lines[0].startswith(missing) and "only roadmap.md" in lines[0]


def test_roadmap_is_deletable(workspace: Path) -> None:
    (workspace / ".okf/roadmap.md").unlink()
    index = workspace / ".okf/index.md"
    index.write_text("\n".join(l for l in index.read_text().splitlines() if "roadmap.md" not in l) + "\n")
    commit_all(workspace)
    assert audit(workspace)[0] == 0


def test_layout_two_roots_in_one_place(workspace: Path) -> None:
    write(workspace / "index.md", '---\nokf_version: "0.2"\n---\n\n# Also a bundle\n')
    code, out = audit(workspace)
    assert code == 1
    assert len(finding_lines(out, "layout")) == 1


def test_validate_errors_and_warnings(workspace: Path) -> None:
    write(workspace / ".okf/learnings/no-type.md", "---\ntitle: No type\n---\n\nBody.\n")
    write(workspace / ".okf/learnings/index.md", "# Learnings\n\n* [No type](no-type.md) - x.\n* [Gone](gone.md) - y.\n")
    code, out = audit(workspace)
    assert code == 1
    lines = finding_lines(out, "validate")
    assert any(l.startswith("learnings/no-type.md: ") and "type" in l for l in lines)
    assert any(l.endswith("(broken_link)") for l in lines)  # a warning carries its check id


def test_lint_warnings_only(workspace: Path) -> None:
    write(workspace / ".okf/learnings/floating.md",
          "---\ntype: Learning\ntitle: Floating\ndescription: Nobody lists it.\n---\n\nShort.\n")
    code, out = audit(workspace)
    assert code == 1
    lines = finding_lines(out, "lint")
    assert any(l.startswith("learnings/floating.md") and l.endswith("(orphan)") for l in lines)
    assert not any("(stub)" in l or "(unlinked)" in l for l in lines)  # info level stays out


def test_snapshot_malformed_heading_and_newest_day_without_a_snapshot(workspace: Path) -> None:
    log = workspace / ".okf/log.md"
    base = log.read_text()
    log.write_text(base + "\n## 2026-11-29\n\n* **Update**: something.\n")
    commit_all(workspace)
    code, out = audit(workspace)
    assert code == 1
    (line,) = finding_lines(out, "snapshot")
    assert "2026-11-29" in line and "Snapshot" in line and "okfpro log-snapshot" in line
    snap = invoke("snapshot", str(workspace), env={"OKFPRO_TODAY": "2026-11-29"}).stdout.strip()
    log.write_text(base + f"\n## 2026-11-29\n\n* **Update**: something.\n{snap}\n")
    commit_all(workspace)
    assert audit(workspace)[0] == 0, "a newest day with its Snapshot line is clean"
    log.write_text(base + f"\n## 2026-02-30\n\n* x\n\n## 2026-11-29\n\n{snap}\n")
    commit_all(workspace)
    code, out = audit(workspace)
    assert code == 1
    assert any("2026-02-30" in l for l in finding_lines(out, "snapshot"))


def test_budget_and_board_grammar(workspace: Path) -> None:
    write(workspace / ".okf/board.md", BOARD.format(declared=2, in_flight="- one thing\n* starred\n"))
    code, out = audit(workspace)
    assert code == 1
    (budget,) = finding_lines(out, "budget")
    assert "2" in budget and "1" in budget
    assert any("'* starred'" in l for l in finding_lines(out, "board"))


def test_pairing_open_project_without_a_board_line(workspace: Path) -> None:
    write(workspace / ".okf/projects/move/index.md", "# Move house\n\n* [Plan](plan.md) - the plan.\n")
    write(workspace / ".okf/projects/move/plan.md",
          "---\ntype: Decision\ntitle: Plan\ndescription: The plan.\n---\n\nWe move in spring, after the lease ends.\n")
    write(workspace / ".okf/projects/index.md", "# Projects\n\n* [Move](move/) - moving house.\n")
    code, out = audit(workspace)
    assert code == 1
    (line,) = finding_lines(out, "pairing")
    assert "projects/move" in line
    write(workspace / ".okf/board.md",
          BOARD.format(declared=1, in_flight="- book the van [/projects/move/](/projects/move/index.md)\n"))
    commit_all(workspace)
    assert audit(workspace)[0] == 0


def test_no_bundle_is_a_finding_and_no_directory_is_usage(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    proc = invoke("audit", str(empty))
    assert proc.returncode == 1
    assert "holds no OKF bundle" in proc.stdout
    assert invoke("audit", str(tmp_path / "nowhere")).returncode == 2
    assert invoke("audit", str(empty), str(empty)).returncode == 2


def test_a_crash_exits_2_not_1(workspace: Path, monkeypatch, capsys) -> None:
    import okfpro.core.validate as validate_module

    def broken(bundle):  # an injected fault: audit must not report it as findings
        raise RuntimeError("injected")

    monkeypatch.setattr(validate_module, "validate", broken)
    assert run(["audit", str(workspace)]) == 2
    assert "could not run" in capsys.readouterr().err


# --- unverified --------------------------------------------------------------------------------


def test_unverified_rows(workspace: Path) -> None:
    ref = workspace / ".okf/reference"
    write(ref / "brief.md", "---\ntype: Briefing\ntitle: B\ndescription: d\ngenerated:\n  by: claude/opus\n  at: 2026-11-02\n---\n\nx\n")
    write(ref / "read.md", "---\ntype: Briefing\ntitle: R\ndescription: d\ngenerated:\n  by: claude/opus\n  at: 2026-11-03\n"
                           "verified:\n  - by: human:ana\n    at: 2026-11-04\n---\n\nx\n")
    write(ref / "machine.md", "---\ntype: Briefing\ntitle: M\ndescription: d\ngenerated:\n  by: claude/opus\n  at: 2026-11-05\n"
                              "verified:\n  by: process:ci\n  at: 2026-11-06\n---\n\nx\n")
    write(workspace / ".okf/learnings/mine.md", "---\ntype: Learning\ntitle: L\ndescription: d\n---\n\nx\n")
    proc = invoke("unverified", str(workspace), "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == [
        {"id": "reference/brief", "by": "claude/opus", "at": "2026-11-02", "trust": "unverified"},
        {"id": "reference/machine", "by": "claude/opus", "at": "2026-11-05", "trust": "machine-confirmed"},
    ]
    human = invoke("unverified", str(workspace))
    assert human.returncode == 0
    assert "2 concept(s) awaiting the owner's read" in human.stdout
    assert "reference/brief: generated by claude/opus on 2026-11-02 [unverified]" in human.stdout
    pretty = invoke("unverified", str(workspace), "--pretty")
    assert json.loads(pretty.stdout) == json.loads(proc.stdout) and "\n  " in pretty.stdout


def test_unverified_nothing_and_no_bundle(workspace: Path, tmp_path: Path) -> None:
    proc = invoke("unverified", str(workspace))
    assert (proc.returncode, proc.stdout.strip()) == (0, "okfpro unverified — nothing awaits a read.")
    assert invoke("unverified", str(tmp_path)).returncode == 2


def test_a_workspace_worked_by_the_writers_stays_clean(workspace: Path) -> None:
    """init, then a day of verbs and the pasted Snapshot line: the CI door has nothing to say."""
    env = {"OKFPRO_TODAY": TODAY}
    for args in (("capture", "call the landlord"), ("capture", "renew the insurance"), ("promote", "landlord"),
                 ("journal", "open")):
        proc = invoke(*args, cwd=workspace, env=env)
        assert proc.returncode == 0, (args, proc.stderr)
    code, out = audit(workspace)
    # before the first commit too, a bundle that is not the scaffold's seed owes today's line (issue 38.5)
    (owed,) = finding_lines(out, "snapshot")
    assert code == 1 and f"no Snapshot line for {TODAY}" in owed and "`okfpro log-snapshot`" in owed, out
    log = workspace / ".okf/log.md"
    before = log.read_text()
    assert invoke("log-snapshot", cwd=workspace, env=env).returncode == 0
    snap = invoke("snapshot", cwd=workspace, env=env).stdout.strip()
    assert log.read_text() == before + f"\n## {TODAY}\n\n{snap}\n"
    assert audit(workspace) == (0, "okfpro audit — clean.\n")
    lint = invoke("lint", str(workspace), "--fail-on", "warn", env=env)
    assert lint.returncode == 0, lint.stdout
