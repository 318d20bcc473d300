"""``okfpro init`` in a repository that already has its own hook wiring and pre-commit config: okfpro's
entries are merged in (every owner key kept, comments kept, idempotent, the original backed up), and
``audit`` reports enforcement that is not wired."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import yaml

from tests.helpers import invoke

OWNER_SETTINGS = {
    "permissions": {"allow": ["Bash(npm test)"]},
    "model": "opus",
    "hooks": {
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./scripts/lint-cmd.sh", "timeout": 5}]}],
        "Notification": [{"hooks": [{"type": "command", "command": "notify-send hi"}]}],
    },
}
OWNER_PRECOMMIT = """# the owner's own hooks — keep this comment
repos:
  - repo: https://github.com/pre-commit/pre-commit-hooks
    rev: v4.6.0
    hooks:
      - id: trailing-whitespace   # and this one
  - repo: local
    hooks:
      - id: my-check
        name: my check
        entry: ./scripts/check.sh
        language: system
"""


def okfpro(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return invoke(*args, cwd=cwd)


def owner_repo(tmp_path: Path) -> Path:
    ws = tmp_path / "existing repo"
    (ws / ".claude").mkdir(parents=True)
    (ws / ".claude" / "settings.json").write_text(json.dumps(OWNER_SETTINGS, indent=4))
    (ws / ".pre-commit-config.yaml").write_text(OWNER_PRECOMMIT)
    (ws / "CLAUDE.md").write_text("# my project\n")
    subprocess.run(["git", "init", "-q", str(ws)], check=True)
    return ws


def test_init_merges_our_hooks_into_the_owners_settings_and_precommit(tmp_path):
    ws = owner_repo(tmp_path)
    proc = okfpro("init", str(ws))
    assert proc.returncode == 0, proc.stderr
    assert not (ws / ".claude/settings.json.okfpro-new").exists(), proc.stdout
    assert not (ws / ".pre-commit-config.yaml.okfpro-new").exists(), proc.stdout
    assert "merged" in proc.stdout
    settings = json.loads((ws / ".claude/settings.json").read_text())
    # every owner key survives
    assert settings["permissions"] == OWNER_SETTINGS["permissions"] and settings["model"] == "opus"
    assert settings["hooks"]["Notification"] == OWNER_SETTINGS["hooks"]["Notification"]
    assert settings["hooks"]["PreToolUse"][0] == OWNER_SETTINGS["hooks"]["PreToolUse"][0]
    template = json.loads((Path(__file__).resolve().parents[1] / "template/wiring/claude/.claude/settings.json").read_text())
    for event, groups in template["hooks"].items():
        for group in groups:
            assert group in settings["hooks"][event], (event, group)
    # the original is kept, once
    backup = ws / ".claude/settings.json.okfpro-backup"
    assert json.loads(backup.read_text()) == OWNER_SETTINGS
    # pre-commit: comments and the owner's hooks kept, ours added
    text = (ws / ".pre-commit-config.yaml").read_text()
    assert "# the owner's own hooks — keep this comment" in text and "# and this one" in text
    data = yaml.safe_load(text)
    ids = [h["id"] for r in data["repos"] for h in r["hooks"]]
    assert ids[:2] == ["trailing-whitespace", "my-check"]
    assert {"okfpro-identity", "okfpro-records", "okfpro-validate", "okfpro-lint", "okfpro-audit", "okfpro-secrets"} <= set(ids)
    assert (ws / ".pre-commit-config.yaml.okfpro-backup").read_text() == OWNER_PRECOMMIT
    # idempotent: a second run changes nothing and makes no second backup
    before = {p: p.read_bytes() for p in (ws / ".claude/settings.json", ws / ".pre-commit-config.yaml")}
    again = okfpro("init", str(ws))
    assert again.returncode == 0, again.stderr
    assert {p: p.read_bytes() for p in before} == before
    assert not (ws / ".claude/settings.json.okfpro-backup.1").exists()
    assert not (ws / ".pre-commit-config.yaml.okfpro-backup.1").exists()


def test_pre_commit_accepts_the_merged_config(tmp_path):
    ws = owner_repo(tmp_path)
    assert okfpro("init", str(ws)).returncode == 0
    proc = subprocess.run([sys.executable, "-m", "pre_commit", "validate-config", ".pre-commit-config.yaml"],
                          capture_output=True, text=True, cwd=ws)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_a_file_that_cannot_be_merged_is_staged_and_said_loudly(tmp_path):
    ws = owner_repo(tmp_path)
    (ws / ".claude/settings.json").write_text("{ not json")
    proc = okfpro("init", str(ws))
    assert proc.returncode == 0, proc.stderr
    assert (ws / ".claude/settings.json").read_text() == "{ not json"  # untouched
    assert (ws / ".claude/settings.json.okfpro-new").exists()
    assert "NOT ACTIVE" in proc.stdout and ".claude/settings.json" in proc.stdout, proc.stdout


def test_audit_reports_enforcement_that_is_not_wired(tmp_path):
    ws = owner_repo(tmp_path)
    (ws / ".claude/settings.json").write_text("{ not json")
    assert okfpro("init", str(ws)).returncode == 0
    out = okfpro("audit", str(ws)).stdout
    assert "wiring" in out and ".claude/settings.json" in out, out
    # a wired workspace whose owner later drops the Stop entry: audit names it
    ws2 = tmp_path / "fresh"
    assert okfpro("init", str(ws2)).returncode == 0
    assert "wiring" not in okfpro("audit", str(ws2)).stdout
    settings = json.loads((ws2 / ".claude/settings.json").read_text())
    del settings["hooks"]["Stop"]
    (ws2 / ".claude/settings.json").write_text(json.dumps(settings))
    (ws2 / ".pre-commit-config.yaml").write_text("repos: []\n")
    proc = okfpro("audit", str(ws2))
    assert proc.returncode == 1 and "Stop" in proc.stdout and "okfpro-records" in proc.stdout, proc.stdout


def test_upgrade_refreshes_our_entries_and_keeps_the_owners(tmp_path):
    ws = owner_repo(tmp_path)
    assert okfpro("init", str(ws)).returncode == 0
    settings = json.loads((ws / ".claude/settings.json").read_text())
    # an older okfpro's entry (MultiEdit matcher) is replaced, not duplicated
    settings["hooks"]["PostToolUse"][0]["matcher"] = "Edit|Write|MultiEdit"
    (ws / ".claude/settings.json").write_text(json.dumps(settings))
    assert okfpro("upgrade", str(ws)).returncode == 0
    after = json.loads((ws / ".claude/settings.json").read_text())
    assert [g["matcher"] for g in after["hooks"]["PostToolUse"]] == ["Edit|Write"]
    assert after["permissions"] == OWNER_SETTINGS["permissions"]
    ids = [h["id"] for r in yaml.safe_load((ws / ".pre-commit-config.yaml").read_text())["repos"] for h in r["hooks"]]
    assert "my-check" in ids and ids.count("okfpro-audit") == 1
