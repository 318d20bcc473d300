"""Every command returns its exit code (0 ok, 1 findings, 2 usage / could not run) as an int.

``okfpro/cli/app.run`` runs click with ``standalone_mode=False``, so a command's return value is
the process's exit code.  Every registered command's callback — each row of ``COMMANDS``, each
subcommand of a group, and a group that runs without a subcommand — is annotated ``-> int``;
mypy (tests/test_static.py) then holds every path of its body to returning one.
"""

from __future__ import annotations

import importlib
import inspect

import click

from okfpro.cli import COMMANDS


def _commands() -> dict[str, click.Command]:
    found: dict[str, click.Command] = {}
    todo = []
    for name, (module, attr, _help) in COMMANDS.items():
        todo.append((name, getattr(importlib.import_module(module), attr)))
    while todo:
        name, cmd = todo.pop()
        found[name] = cmd
        if isinstance(cmd, click.Group):
            todo.extend((f"{name} {sub}", c) for sub, c in cmd.commands.items())
    return found


def test_every_registered_command_returns_an_int() -> None:
    commands = _commands()
    assert len(commands) > 40, sorted(commands)  # the table and the groups' subcommands were walked
    offenders = []
    for name, cmd in sorted(commands.items()):
        if isinstance(cmd, click.Group) and not cmd.invoke_without_command:
            continue  # click ignores a plain group's own return: the subcommand's is the exit code
        callback = inspect.unwrap(cmd.callback) if cmd.callback else None
        returns = inspect.signature(callback).return_annotation if callback else None
        if returns not in ("int", int):
            offenders.append(f"{name}: {getattr(callback, '__qualname__', callback)} -> {returns}")
    assert not offenders, "commands that do not return their exit code:\n" + "\n".join(offenders)


def test_the_return_value_is_the_exit_code(tmp_path, monkeypatch) -> None:
    """A command's returned 1 is the process's 1, its 0 a 0 (real processes)."""
    import subprocess
    import sys

    from tests.helpers import REPO

    bad = tmp_path / "b"
    bad.mkdir()
    (bad / "x.md").write_text("---\ntitle: x\n---\nbody\n", encoding="utf-8")  # no type: an error
    env = {"PYTHONPATH": str(REPO), "HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}

    def code(*args: str) -> int:
        return subprocess.run([sys.executable, "-m", "okfpro", *args], cwd=tmp_path, env=env,
                              capture_output=True).returncode

    assert code("validate", str(bad)) == 1
    assert code("registry", "list", "--json") == 0
    assert code("validate", str(tmp_path / "missing")) == 2
