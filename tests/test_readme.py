"""The README is part of the product: its first block, its command list and CI agree with the code."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from okfpro.cli import COMMANDS
from tests.helpers import REPO, invoke

README = (REPO / "README.md").read_text(encoding="utf-8")


def _first_block() -> list[str]:
    m = re.search(r"```[a-z]*\n(.*?)```", README, re.S)
    assert m, "README has no code block"
    return [line for line in m.group(1).splitlines() if line.strip()]


VENV = "python3 -m venv .venv && . .venv/bin/activate && "


def test_first_block_is_two_commands_install_and_run_then_test() -> None:
    """Each line makes and enters a virtual environment first (issue #38.6): Debian's and Ubuntu's own
    Python refuse ``pip install .`` outside one (PEP 668)."""
    main, tests = _first_block()
    assert main.startswith(VENV + "pip install . && okfpro init ") and "okfpro state" in main
    assert tests.startswith(VENV + "pip install '.[test]' && ") and "python -m pytest" in tests


def test_the_readme_says_how_long_the_test_command_takes() -> None:
    """Issue #38.11: the whole run's time, and on what machine, beside the command."""
    head = " ".join(README.split("## What okfpro is")[0].split())
    assert re.search(r"takes [\d.]+ minutes on two (?:quiet )?cores", head), head
    assert re.search(r"at a load of [\d.]+", head), head  # and how a loaded machine stretches it


def test_the_readme_names_claude_codes_one_step_for_the_project_mcp_server() -> None:
    """Issue #38.7: init writes .mcp.json; Claude Code starts a project server only once approved, by the
    settings its own code reads (checked against the Claude Code the tests install, when present)."""
    import json

    from tests import hostkit

    servers = json.loads((REPO / "template" / "wiring" / "claude" / ".mcp.json").read_text())["mcpServers"]
    row = next(line for line in README.splitlines() if line.startswith("| Claude Code ("))
    for name in servers:
        assert f'"enabledMcpjsonServers": ["{name}"]' in row, row
    assert ".mcp.json" in row and ".claude/settings.local.json" in row and '"enableAllProjectMcpServers": true' in row
    binary = hostkit.cache_dir() / "node_modules" / "@anthropic-ai" / "claude-code" / "bin" / "claude.exe"
    if binary.is_file():
        data = binary.read_bytes()
        for key in (b"enabledMcpjsonServers", b"enableAllProjectMcpServers", b"new MCP servers found in this project"):
            assert key in data, key


def test_the_platforms_the_readme_states_are_what_the_code_needs() -> None:
    """Issue #38.7: Linux is supported and tested; on Windows (no fcntl) the readers run and no writer does."""
    platforms = README.split("## Platforms", 1)[1].split("\n## ", 1)[0]
    assert "supports Linux" in platforms and "**macOS**: not tested" in platforms and "**Windows**: not supported" in platforms
    block = "import sys; sys.modules['fcntl'] = None\nfrom okfpro.__main__ import main\nsys.exit(main(sys.argv[1:]))\n"

    def without_fcntl(ws: Path, *argv: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-c", block, *argv], cwd=ws, capture_output=True, text=True, timeout=120,
                              env={**os.environ, "PYTHONPATH": str(REPO)})

    with tempfile.TemporaryDirectory() as tmp:
        ws = Path(tmp) / "ws"
        assert invoke("init", str(ws)).returncode == 0
        for reader in (("validate", ".okf"), ("lint", ".okf"), ("search", "board"), ("state",)):
            proc = without_fcntl(ws, *reader)
            assert proc.returncode in (0, 1) and "fcntl" not in proc.stderr, (reader, proc.stderr)
        writer = without_fcntl(ws, "capture", "--", "a line")
        assert writer.returncode != 0 and "fcntl" in writer.stderr, writer.stderr


def test_ci_runs_the_readme_test_command() -> None:
    script = (REPO / ".ci" / "run").read_text()
    extracted = subprocess.run(["bash", "-c", "awk '/^```/{n++; next} n==1' README.md | sed -n 2p"], cwd=REPO,
                               capture_output=True, text=True, check=True).stdout.strip()
    assert extracted == _first_block()[1]
    assert 'eval "$test_cmd"' in script


def test_every_verb_is_documented() -> None:
    missing = [verb for verb in COMMANDS if not re.search(rf"`okfpro {verb}\b|/ `?{verb}`", README)]
    assert not missing, f"verbs missing from README's command list: {missing}"


def test_every_memory_subcommand_is_documented() -> None:
    from okfpro.cli.memory import memory_cmd

    missing = [name for name in memory_cmd.commands if f"okfpro memory {name}" not in README]
    assert not missing, missing


def test_ci_installs_the_pinned_hosts_or_with_okfpro_hosts_latest_their_newest() -> None:
    """.ci/run pre-installs what tests/hostkit.py will use: the pins, or under OKFPRO_HOSTS=latest `@latest`."""
    from tests import hostkit

    script = (REPO / ".ci" / "run").read_text()
    [line] = [ln.strip() for ln in script.splitlines() if ln.strip().startswith("pins=$(")]
    command = line[len("pins=$("):-1]
    env = {k: v for k, v in os.environ.items() if k != "OKFPRO_HOSTS"}
    pinned = subprocess.run(["bash", "-c", command], cwd=REPO, capture_output=True, text=True, env=env, check=True)
    assert pinned.stdout.split() == [f"{p}@{v}" for p, v in hostkit.PACKAGES.items()]
    latest = subprocess.run(["bash", "-c", command], cwd=REPO, capture_output=True, text=True,
                            env={**env, "OKFPRO_HOSTS": "latest"}, check=True)
    assert latest.stdout.split() == [f"{p}@latest" for p in hostkit.PACKAGES]
