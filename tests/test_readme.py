"""The README is part of the product: its first block, its command list and CI agree with the code."""

from __future__ import annotations

import re
import subprocess

from okfpro.cli import COMMANDS
from tests.helpers import REPO

README = (REPO / "README.md").read_text(encoding="utf-8")


def _first_block() -> list[str]:
    m = re.search(r"```[a-z]*\n(.*?)```", README, re.S)
    assert m, "README has no code block"
    return [line for line in m.group(1).splitlines() if line.strip()]


def test_first_block_is_two_commands_install_and_run_then_test() -> None:
    main, tests = _first_block()
    assert main.startswith("pip install . && okfpro init ") and "okfpro state" in main
    assert tests.startswith("pip install '.[test]' && ") and "pytest" in tests


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
