"""The commit door through the real pre-commit framework (no network).

The hooks this repository ships in ``.pre-commit-hooks.yaml`` are replayed as
``repo: local`` hooks (same ids, names, file selection; ``language: system`` and
``python -m okfpro`` as the entry, since a ``language: python`` install would
need the network) inside a temporary Git repository, and ``pre-commit run
--all-files`` must refuse a broken bundle and accept a clean one.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
import hookkit as k  # noqa: E402

PROVIDED = k.REPO / ".pre-commit-hooks.yaml"


def _pre_commit() -> list[str] | None:
    try:
        import pre_commit  # noqa: F401

        return [sys.executable, "-m", "pre_commit"]
    except ImportError:
        exe = shutil.which("pre-commit")
        return [exe] if exe else None


def test_provided_hooks_are_well_formed():
    hooks = yaml.safe_load(PROVIDED.read_text())
    ids = [h["id"] for h in hooks]
    assert ids == ["okfpro-validate", "okfpro-lint", "okfpro-audit", "okfpro-records", "okfpro-secrets"]
    from okfpro.cli import COMMANDS

    for h in hooks:
        assert h["language"] == "python"
        assert {"id", "name", "entry", "language"} <= set(h)
        exe, verb = h["entry"].split()[:2]
        assert exe == "okfpro" and verb in COMMANDS, h["entry"]
        assert set(h.get("stages", [])) <= {"pre-commit", "pre-merge-commit", "pre-push", "manual"}
        if h["id"] != "okfpro-secrets":
            assert h["pass_filenames"] is False and h["always_run"] is True


def _local_config() -> str:
    hooks = []
    for h in yaml.safe_load(PROVIDED.read_text()):
        local = {key: h[key] for key in ("id", "name", "pass_filenames", "always_run", "types") if key in h}
        local["entry"] = f"{sys.executable} -m {h['entry']}"
        local["language"] = "system"
        local["stages"] = ["pre-commit", "manual"]
        hooks.append(local)
    return yaml.safe_dump({"repos": [{"repo": "local", "hooks": hooks}]}, sort_keys=False)


def _run(ws: Path, tmp_path: Path) -> subprocess.CompletedProcess:
    cmd = _pre_commit()
    if cmd is None:
        pytest.skip("pre-commit is not installed (pip install -e '.[test]')")
    (ws / ".pre-commit-config.yaml").write_text(_local_config())
    k.git(ws, "add", "-A")
    return subprocess.run([*cmd, "run", "--all-files", "--color", "never"], cwd=ws, capture_output=True, text=True,
                          env=k.env({"PRE_COMMIT_HOME": str(tmp_path / "pc-home")}), timeout=600)


def test_precommit_accepts_a_clean_workspace(tmp_path):
    ws = k.make_workspace(tmp_path, "clean ws")
    proc = _run(ws, tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for name in ("okfpro validate", "okfpro lint", "okfpro audit", "okfpro records", "okfpro secrets"):
        assert name in proc.stdout
    assert "Failed" not in proc.stdout


def test_precommit_refuses_a_broken_bundle(tmp_path):
    ws = k.make_workspace(tmp_path, "broken ws")
    (ws / ".okf" / "learnings" / "broken.md").write_text("no frontmatter at all\n")
    journal = ws / ".okf" / "journal" / f"{k.PAST}.md"
    journal.write_text(journal.read_text() + "\nRewritten afterwards.\n")
    proc = _run(ws, tmp_path)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    out = proc.stdout
    assert "learnings/broken.md" in out
    failed = [line for line in out.splitlines() if line.rstrip().endswith("Failed")]
    assert any("okfpro validate" in line for line in failed)
    assert any("okfpro audit" in line for line in failed)
    assert any("okfpro records" in line for line in failed)
    assert f"journal/{k.PAST}.md" in out
