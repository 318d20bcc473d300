"""``okfpro init`` / ``okfpro upgrade``: the workspace scaffold, driven as real processes on real directories."""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
import sys
import tomllib
from pathlib import Path

import pygit2
import pytest
import yaml

from okfpro.io import scaffold
from tests.helpers import REPO, invoke

DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
COUNTS = re.compile(r"^(\d+) written, (?:(\d+) rewritten, )?(?:\d+ merged, )?(\d+) staged, (\d+) left alone$", re.M)


def tree(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` (outside .git), relative path -> bytes (symlinks as their target)."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d != ".git"]
        for name in filenames:
            full = Path(dirpath) / name
            rel = full.relative_to(root).as_posix()
            out[rel] = os.readlink(full).encode() if full.is_symlink() else full.read_bytes()
    return out


def counts(stdout: str) -> tuple[int, int, int]:
    m = COUNTS.search(stdout)
    assert m, stdout
    return int(m.group(1)), int(m.group(3)), int(m.group(4))


def init(target: Path, *extra: str) -> subprocess.CompletedProcess:
    return invoke("init", str(target), *extra)


# --- the template itself ----------------------------------------------------------------------


def test_template_root_is_found_from_the_checkout() -> None:
    root = scaffold.template_root()
    assert (root / "seed" / ".okf" / "index.md").is_file()
    assert (root / "owned" / ".claude" / "skills" / "okfpro" / "SKILL.md").is_file()


def test_journal_placeholder_is_the_writers_constant() -> None:
    from okfpro.core.board_edit import JOURNAL_PLACEHOLDER

    text = (scaffold.template_root() / "seed" / ".okf" / "journal" / "index.md").read_text(encoding="utf-8")
    assert JOURNAL_PLACEHOLDER in text.splitlines()


def test_template_okfpro_toml_matches_the_config_defaults() -> None:
    from okfpro.io.config import DEFAULTS

    data = tomllib.loads((scaffold.template_root() / "seed" / "okfpro.toml").read_text(encoding="utf-8"))
    assert data == DEFAULTS


# --- init -------------------------------------------------------------------------------------


def test_init_writes_the_workspace_and_a_git_repository(tmp_path: Path) -> None:
    ws = tmp_path / "brain"
    proc = init(ws)
    assert proc.returncode == 0, proc.stderr
    written, staged, left = counts(proc.stdout)
    assert staged == 0 and left == 0 and written > 20
    for rel in (
        ".okf/index.md", ".okf/board.md", ".okf/log.md", ".okf/roadmap.md", ".okf/areas/index.md",
        ".okf/areas/corpus.md", ".okf/glossary/index.md", ".okf/learnings/index.md", ".okf/projects/index.md",
        ".okf/reference/index.md", ".okf/journal/index.md", "CLAUDE.md", "AGENTS.md", "README.md", ".gitignore",
        ".tmp/.gitkeep", ".claude/settings.json", "okfpro.toml", ".pre-commit-config.yaml",
        ".github/workflows/okfpro.yml", ".claude/skills/okfpro/SKILL.md",
    ):
        assert (ws / rel).is_file(), rel
        assert f"wrote    {rel}" in proc.stdout
    assert not (ws / "gitignore").exists()
    assert "initialised a Git repository" in proc.stdout
    repo = pygit2.Repository(str(ws))
    assert Path(repo.workdir).resolve() == ws.resolve()
    assert '\nokf_version: "0.2"\n' in (ws / ".okf/index.md").read_text()
    board = (ws / ".okf/board.md").read_text()
    assert "type: Board" in board and "**In flight: 0/5**" in board
    headings = [line for line in board.splitlines() if line.startswith("## ")]
    assert headings == ["## In flight", "## Backlog", "## Waiting", "## Inbox", "## To read", "## Deadlines"]
    gitignore = (ws / ".gitignore").read_text().splitlines()
    for line in (".tmp/*", "!.tmp/.gitkeep", "*.okfpro-new", ".okf-memory/", ".DS_Store"):
        assert line in gitignore


def test_init_inside_an_existing_repository_makes_no_nested_one(tmp_path: Path) -> None:
    pygit2.init_repository(str(tmp_path))
    ws = tmp_path / "sub"
    proc = init(ws)
    assert proc.returncode == 0, proc.stderr
    assert not (ws / ".git").exists()
    assert "initialised a Git repository" not in proc.stdout


def test_init_twice_is_idempotent(tmp_path: Path) -> None:
    ws = tmp_path / "w"
    first = init(ws)
    assert first.returncode == 0
    before = tree(ws)
    second = init(ws)
    assert second.returncode == 0, second.stderr
    written, staged, left = counts(second.stdout)
    assert (written, staged) == (0, 0)
    assert left == counts(first.stdout)[0]
    assert tree(ws) == before


def test_init_over_existing_files_stages_collisions_and_loses_nothing(tmp_path: Path) -> None:
    ws = tmp_path / "w"
    (ws / ".okf").mkdir(parents=True)
    mine = {
        "README.md": b"# My project\n\nThis is mine.\n",
        "CLAUDE.md": b"Be terse.\n",
        ".gitignore": b"node_modules/\n",
        ".okf/index.md": b"---\nokf_version: \"0.2\"\n---\n\n# Mine\n",
        ".okf/log.md": b"# My log\n\n## 2026-01-05\n\n* did things\n",
        "AGENTS.md": (scaffold.template_root() / "seed" / "AGENTS.md").read_bytes(),  # identical content
    }
    for rel, data in mine.items():
        (ws / rel).write_bytes(data)
    proc = init(ws)
    assert proc.returncode == 0, proc.stderr
    after = tree(ws)
    for rel, data in mine.items():
        if rel == ".gitignore":  # completed with okfpro's lines, the owner's kept first (issue 38.3)
            assert after[rel].startswith(data) and b"*.okfpro-new\n" in after[rel], after[rel]
            continue
        assert after[rel] == data, f"{rel} was changed"
    template = scaffold.template_root() / "seed"
    assert after["README.md.okfpro-new"] == (template / "README.md").read_bytes()
    assert after["CLAUDE.md.okfpro-new"] == (template / "CLAUDE.md").read_bytes()
    assert ".gitignore.okfpro-new" not in after
    # identical content and files inside .okf/ are left alone, silently
    assert "AGENTS.md.okfpro-new" not in after
    assert not any(rel.startswith(".okf/") and rel.endswith(".okfpro-new") for rel in after)
    written, staged, left = counts(proc.stdout)
    assert staged == 2 and left == 3
    assert ".gitignore already ignores *.okfpro-new" in proc.stdout
    # again: the staged copies are refreshed, never stacked
    (ws / "README.md.okfpro-new").write_bytes(b"stale copy\n")
    again = init(ws)
    assert again.returncode == 0
    final = tree(ws)
    assert final["README.md.okfpro-new"] == (template / "README.md").read_bytes()
    assert not any(".okfpro-new.okfpro-new" in rel for rel in final)
    for rel, data in mine.items():
        assert final[rel] == after[rel]


def test_scripts_keep_their_run_bit(tmp_path: Path) -> None:
    ws = tmp_path / "w"
    assert init(ws).returncode == 0
    launchers = sorted(p for p in (ws / ".claude/hooks").glob("*.py") if not p.name.startswith("_"))
    assert launchers, "no hook launchers were installed"
    for path in launchers:
        assert path.stat().st_mode & 0o777 == 0o755, path
        assert path.read_bytes() == (REPO / "hooks" / path.name).read_bytes()
    assert (ws / ".okf/board.md").stat().st_mode & 0o777 == 0o644


def test_a_file_in_the_way_refuses_before_anything_is_written(tmp_path: Path) -> None:
    ws = tmp_path / "w"
    ws.mkdir()
    (ws / ".claude").write_text("not a directory\n")
    proc = init(ws)
    assert proc.returncode == 2
    assert ".claude" in proc.stderr
    assert sorted(p.name for p in ws.iterdir()) == [".claude"]


@pytest.mark.parametrize(
    "files",
    [
        {"index.md": "---\nokf_version: \"0.2\"\n---\n\n# Bundle\n"},  # strong
        {"index.md": "# Bundle\n", "board.md": "---\ntype: Board\n---\n"},  # weak
        {"index.md": "# Bundle\n", "log.md": "# Log\n"},  # weak
    ],
)
def test_a_root_level_bundle_without_okf_is_refused(tmp_path: Path, files: dict[str, str]) -> None:
    ws = tmp_path / "w"
    ws.mkdir()
    for rel, text in files.items():
        (ws / rel).write_text(text)
    before = tree(ws)
    proc = init(ws)
    assert proc.returncode == 2
    assert "git mv" in proc.stderr and ".okf" in proc.stderr
    assert tree(ws) == before
    assert not (ws / ".git").exists()


def test_a_bare_index_or_a_bundle_with_okf_is_not_refused(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "index.md").write_text("# Docs site\n")
    assert init(docs).returncode == 0
    both = tmp_path / "both"
    (both / ".okf").mkdir(parents=True)
    (both / "index.md").write_text("---\nokf_version: \"0.2\"\n---\n")
    (both / ".okf" / "index.md").write_text("---\nokf_version: \"0.2\"\n---\n")
    assert init(both).returncode == 0


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    assert invoke("init", str(tmp_path / "a"), str(tmp_path / "b")).returncode == 2
    assert invoke("init", "--agent", "vim", str(tmp_path / "a")).returncode == 2
    assert invoke("init", "@slug").returncode == 2
    f = tmp_path / "file"
    f.write_text("x")
    assert invoke("init", str(f)).returncode == 2
    assert invoke("upgrade", str(tmp_path / "missing")).returncode == 2


# --- upgrade ----------------------------------------------------------------------------------


def test_upgrade_rewrites_only_tool_owned_files(tmp_path: Path) -> None:
    ws = tmp_path / "w"
    assert init(ws).returncode == 0
    skill = ws / ".claude/skills/okfpro/SKILL.md"
    original_skill = skill.read_bytes()
    skill.write_text("edited by hand\n")
    (ws / ".pre-commit-config.yaml").unlink()
    (ws / "README.md").write_text("my manual\n")
    (ws / ".claude/settings.json").write_text("{}\n")
    (ws / ".okf/board.md").write_text("---\ntype: Board\n---\n\nmine\n")
    (ws / ".okf/roadmap.md").unlink()
    launcher = ws / ".claude/hooks/stop.py"
    launcher.write_text("#!/bin/sh\nexit 0\n")
    proc = invoke("upgrade", str(ws))
    assert proc.returncode == 0, proc.stderr
    assert skill.read_bytes() == original_skill
    assert (ws / ".pre-commit-config.yaml").is_file()
    assert launcher.read_bytes() == (REPO / "hooks/stop.py").read_bytes()
    assert launcher.stat().st_mode & 0o777 == 0o755
    assert (ws / "README.md").read_text() == "my manual\n"
    # the owner's (emptied) settings get okfpro's hook entries merged back in; the original is kept
    assert set(json.loads((ws / ".claude/settings.json").read_text())["hooks"]) >= {"PreToolUse", "Stop"}
    assert (ws / ".claude/settings.json.okfpro-backup").read_text() == "{}\n"
    assert (ws / ".okf/board.md").read_text() == "---\ntype: Board\n---\n\nmine\n"
    assert (ws / ".okf/roadmap.md").is_file()  # a missing seeded file is completed
    assert "rewrote  .claude/skills/okfpro/SKILL.md" in proc.stdout
    assert "wrote    .okf/roadmap.md" in proc.stdout
    assert not any(rel.endswith(".okfpro-new") for rel in tree(ws))
    # and again: nothing left to do
    again = invoke("upgrade", str(ws))
    m = COUNTS.search(again.stdout)
    assert m and m.group(1) == "0" and m.group(2) == "0" and m.group(3) == "0"


# --- the generated tree -----------------------------------------------------------------------


def _strip_code(text: str) -> str:
    """Markdown text outside fenced blocks and inline code spans."""
    out, fenced = [], False
    for line in text.splitlines():
        if line.strip().startswith(("```", "~~~")):
            fenced = not fenced
            continue
        if not fenced:
            out.append(re.sub(r"(`+).*?\1", "", line))
    return "\n".join(out)


def test_no_date_ships_in_the_generated_tree(tmp_path: Path) -> None:
    ws = tmp_path / "w"
    assert init(ws, "--agent", "claude", "--agent", "codex", "--agent", "gemini").returncode == 0
    offenders = []
    for rel, data in tree(ws).items():
        if rel == scaffold.PIN_FILE:
            continue  # an interpreter path on this machine, not template text
        text = data.decode("utf-8")
        if rel.endswith(".md"):
            text = _strip_code(text)
        if DATE.search(text):
            offenders.append(rel)
    assert not offenders, offenders
    assert not list((ws / ".okf" / "journal").glob("*-*.md"))


def test_the_generated_workspace_passes_the_gates(tmp_path: Path) -> None:
    ws = tmp_path / "w"
    assert init(ws).returncode == 0
    validate = invoke("validate", str(ws))
    assert validate.returncode == 0, validate.stdout + validate.stderr
    lint = invoke("lint", str(ws), "--fail-on", "warn")
    assert lint.returncode == 0, lint.stdout + lint.stderr
    audit = invoke("audit", str(ws))
    assert audit.returncode == 0, audit.stdout + audit.stderr
    assert "clean" in audit.stdout


def _commands(settings: dict) -> list[str]:
    return [h["command"] for groups in settings["hooks"].values() for g in groups for h in g["hooks"]]


def _script_of(command: str, prefix: str) -> str:
    assert command.startswith(prefix + "/"), command
    return command[len(prefix) + 1:].split(" ")[0]


def test_claude_settings_wire_every_event_to_an_installed_launcher(tmp_path: Path) -> None:
    ws = tmp_path / "w"
    assert init(ws).returncode == 0
    settings = json.loads((ws / ".claude/settings.json").read_text())
    hooks = settings["hooks"]
    assert set(hooks) == {"PreToolUse", "PostToolUse", "Stop", "SessionStart", "UserPromptSubmit", "SessionEnd"}
    assert [g["matcher"] for g in hooks["PreToolUse"]] == ["Edit|Write", "Bash|PowerShell"]
    assert [g["matcher"] for g in hooks["PostToolUse"]] == ["Edit|Write"]
    for command in _commands(settings):
        script = ws / _script_of(command, '"$CLAUDE_PROJECT_DIR"')
        assert script.is_file() and os.access(script, os.X_OK), command


def test_codex_and_gemini_wiring(tmp_path: Path) -> None:
    ws = tmp_path / "w"
    proc = init(ws, "--agent", "codex", "--agent", "gemini")
    assert proc.returncode == 0, proc.stderr
    assert not (ws / ".claude/settings.json").exists()  # only the hosts asked for
    assert "trust the project and review the hooks" in proc.stdout  # Codex keeps untrusted project hooks off
    codex = json.loads((ws / ".codex/hooks.json").read_text())
    assert set(codex["hooks"]) == {"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "SessionEnd"}
    for command in _commands(codex):
        assert command.endswith(" --agent codex")
        assert (ws / _script_of(command, '"$(git rev-parse --show-toplevel)"')).is_file()
    gemini = json.loads((ws / ".gemini/settings.json").read_text())
    assert set(gemini["hooks"]) == {"SessionStart", "BeforeAgent", "BeforeTool", "AfterTool", "AfterAgent", "SessionEnd"}
    for command in _commands(gemini):
        assert command.endswith(" --agent gemini")
        assert (ws / _script_of(command, "$GEMINI_PROJECT_DIR")).is_file()
    for groups in gemini["hooks"].values():
        for g in groups:
            for h in g["hooks"]:
                assert h["timeout"] >= 1000  # milliseconds
    # upgrade keeps to the hosts already wired; --agent completes a host's missing wiring
    up = invoke("upgrade", str(ws))
    assert up.returncode == 0 and not (ws / ".claude/settings.json").exists(), up.stdout
    (ws / ".codex/hooks.json").unlink()
    up = invoke("upgrade", str(ws), "--agent", "codex")
    assert up.returncode == 0 and (ws / ".codex/hooks.json").is_file(), up.stdout


def test_session_start_runs_through_the_wiring_from_a_path_with_a_space(tmp_path: Path) -> None:
    ws = tmp_path / "my brain"
    assert init(ws).returncode == 0
    settings = json.loads((ws / ".claude/settings.json").read_text())
    command = settings["hooks"]["SessionStart"][0]["hooks"][0]["command"]
    event = json.dumps({"hook_event_name": "SessionStart", "cwd": str(ws), "source": "startup"})
    env = {**os.environ, "CLAUDE_PROJECT_DIR": str(ws), "PYTHONPATH": str(REPO)}
    proc = subprocess.run(["sh", "-c", command], input=event.encode(), capture_output=True, env=env, cwd=ws, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert b"in flight 0/5" in proc.stdout
    assert (ws / scaffold.PIN_FILE).read_text().splitlines() == [os.path.abspath(sys.executable), "one-process"]


def test_pre_commit_config_and_workflow_run_the_gates(tmp_path: Path) -> None:
    owned = scaffold.template_root() / "owned"
    config = yaml.safe_load((owned / ".pre-commit-config.yaml").read_text())
    (repo,) = config["repos"]
    assert repo["repo"] == "local"
    entries = {h["id"]: h["entry"] for h in repo["hooks"]}
    assert all(h["language"] == "system" for h in repo["hooks"])
    # through the launchers' interpreter pin, not whatever okfpro is on PATH (tests/test_scaffold.py below)
    assert entries["okfpro-records"] == "python3 .claude/hooks/_cli.py records"
    assert entries["okfpro-audit"] == "python3 .claude/hooks/_cli.py audit"
    assert "--fail-on warn" in entries["okfpro-lint"]
    flow = yaml.safe_load((owned / ".github/workflows/okfpro.yml").read_text())
    runs = [s.get("run", "") for s in flow["jobs"]["gates"]["steps"]]
    assert "okfpro validate .okf" in runs
    assert "okfpro lint .okf --fail-on warn" in runs
    assert "okfpro audit ." in runs


def test_skill_teaches_the_rules_and_routes_to_the_verbs() -> None:
    skill = (scaffold.template_root() / "owned/.claude/skills/okfpro/SKILL.md").read_text()
    for phrase in ("Rule 1", "Rule 2", "Rule 3", "5 working days"):
        assert phrase in skill
    for verb in ("state", "board", "capture", "promote", "demote", "journal open", "close", "snapshot",
                 "search", "validate", "lint", "audit", "memory"):
        assert f"okfpro {verb}" in skill, verb
    from okfpro.core.dormancy import DORMANCY_DAYS

    assert f"{DORMANCY_DAYS} working days" in skill


def test_report_is_json_on_request(tmp_path: Path) -> None:
    proc = init(tmp_path / "w", "--json")
    assert proc.returncode == 0
    data = json.loads(proc.stdout)
    assert data["verb"] == "init" and ".okf/board.md" in data["written"] and data["staged"] == []
    assert stat.S_ISDIR((tmp_path / "w" / ".git").stat().st_mode)


def _pre_commit() -> list[str]:
    try:
        import pre_commit  # noqa: F401
    except ImportError:  # pragma: no cover - the test extra installs it
        pytest.fail("pre-commit is not installed: pip install -e '.[test]'")
    return [sys.executable, "-m", "pre_commit"]


@pytest.mark.slow
def test_the_template_pre_commit_config_guards_real_commits(tmp_path: Path) -> None:
    """`pre-commit install` in a fresh workspace, then real `git commit`s: clean lands, a past-day edit does not."""
    ws = tmp_path / "w"
    assert init(ws).returncode == 0
    shim_dir = tmp_path / "bin"
    shim_dir.mkdir()
    shim = shim_dir / "okfpro"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m okfpro "$@"\n')
    shim.chmod(0o755)
    env = {**os.environ, "PATH": f"{shim_dir}{os.pathsep}{os.environ.get('PATH', '')}", "PYTHONPATH": str(REPO),
           "PRE_COMMIT_HOME": str(tmp_path / "pc-home"), "OKFPRO_TODAY": "2026-11-30"}

    def sh(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(list(args), cwd=ws, env=env, capture_output=True, text=True, timeout=600)

    installed = sh(*_pre_commit(), "install")
    assert installed.returncode == 0, installed.stdout + installed.stderr
    day = ws / ".okf/journal/2026-11-20.md"
    day.write_text('---\ntype: Journal Entry\ntitle: "A day"\ndescription: What happened.\n---\n\n# A day\n\nWork.\n')
    index = ws / ".okf/journal/index.md"
    index.write_text("# Journal\n\n* [A day](2026-11-20.md) - the day's record.\n")
    assert sh("git", "add", "-A").returncode == 0
    refused = sh("git", "commit", "-q", "-m", "start")  # a bundle change before the first commit owes the line too
    assert refused.returncode == 1 and "okfpro log-snapshot" in refused.stdout + refused.stderr, refused.stdout
    assert sh("okfpro", "log-snapshot").returncode == 0
    assert sh("git", "add", "-A").returncode == 0
    first = sh("git", "commit", "-q", "-m", "start")
    assert first.returncode == 0, first.stdout + first.stderr
    ran = [line for line in (first.stdout + first.stderr).splitlines() if line.rstrip().endswith("Passed")]
    for hook in ("okfpro identifies itself", "okfpro records", "okfpro validate", "okfpro lint", "okfpro audit",
                 "okfpro secrets"):
        assert any(line.startswith(hook) for line in ran), (hook, first.stdout)
    head = sh("git", "rev-parse", "HEAD").stdout
    day.write_text(day.read_text() + "\nRewritten afterwards.\n")
    sh("git", "add", str(day))
    refused = sh("git", "commit", "-q", "-m", "rewrite history")
    assert refused.returncode != 0
    assert "2026-11-20.md" in refused.stdout + refused.stderr
    assert sh("git", "rev-parse", "HEAD").stdout == head

    # the commit door runs the pinned okfpro: a stray `okfpro` on PATH changes nothing ...
    sh("git", "reset", "-q", "--hard", "HEAD")
    shim.write_text("#!/bin/sh\nexit 0\n")
    (ws / ".okf/learnings/note.md").write_text("no frontmatter at all\n")
    sh("git", "add", "-A")
    stray = sh("git", "commit", "-q", "-m", "slip past a fake enforcer")
    assert stray.returncode != 0 and "learnings/note.md" in stray.stdout + stray.stderr
    assert sh("git", "rev-parse", "HEAD").stdout == head
    # ... and a pin naming a program that exits 0 for everything does not pass it either
    pin = ws / ".claude/hooks/okfpro-python"
    pin.write_text(f"{shim}\n")
    fake = sh("git", "commit", "-q", "-m", "slip past a fake enforcer")
    assert fake.returncode != 0
    assert "did not identify itself as the okfpro enforcer" in fake.stdout + fake.stderr
    assert sh("git", "rev-parse", "HEAD").stdout == head


def test_the_commit_door_uses_the_pin_without_an_activated_venv_and_names_the_cause(tmp_path: Path) -> None:
    """A commit from a shell where okfpro is not on PATH reaches the pinned okfpro; with the pin broken the
    refusal says what is wrong (it used to be 'did not identify itself as the enforcer' either way)."""
    ws = tmp_path / "w"
    assert init(ws).returncode == 0
    bare_path = "/usr/local/bin:/usr/bin:/bin"  # python3 and git, no okfpro
    env = {**os.environ, "PATH": bare_path, "PRE_COMMIT_HOME": str(tmp_path / "pc-home")}
    env.pop("VIRTUAL_ENV", None)
    env.pop("PYTHONPATH", None)

    def sh(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(list(args), cwd=ws, env=env, capture_output=True, text=True, timeout=600)

    assert subprocess.run([*_pre_commit(), "install"], cwd=ws, capture_output=True).returncode == 0
    sh("git", "add", "-A")
    first = sh("git", "commit", "-q", "-m", "start")
    assert first.returncode == 0, first.stdout + first.stderr
    (ws / ".okf/learnings/n.md").write_text("---\ntype: Note\n---\n")
    sh("git", "add", "-A")
    pin = ws / ".claude/hooks/okfpro-python"
    pin.write_text(str(tmp_path / "removed-venv" / "bin" / "python") + "\n")
    gone = sh("git", "commit", "-q", "-m", "x")
    assert gone.returncode != 0
    assert "removed-venv" in gone.stdout + gone.stderr and "not an executable" in gone.stdout + gone.stderr
    pin.write_text("/usr/bin/python3\n")  # a real interpreter without okfpro
    bare = sh("git", "commit", "-q", "-m", "x")
    assert bare.returncode != 0 and "has no working okfpro installed" in bare.stdout + bare.stderr, bare.stdout + bare.stderr
    pin.unlink()
    nopin = sh("git", "commit", "-q", "-m", "x")
    assert nopin.returncode != 0 and "no okfpro-python beside" in nopin.stdout + nopin.stderr


def test_init_refreshes_a_stale_interpreter_pin(tmp_path: Path) -> None:
    ws = tmp_path / "w"
    assert init(ws).returncode == 0
    pin = ws / scaffold.PIN_FILE
    pin.write_text("/nowhere/python\n")
    proc = init(ws)
    assert proc.returncode == 0
    assert pin.read_text().splitlines() == [os.path.abspath(sys.executable), "one-process"]
    assert counts(proc.stdout)[:2] == (1, 0)
    assert f"wrote    {scaffold.PIN_FILE}" in proc.stdout
    assert not (ws / (scaffold.PIN_FILE + scaffold.NEW_SUFFIX)).exists()
    assert scaffold.PIN_FILE in (ws / ".gitignore").read_text().splitlines()
