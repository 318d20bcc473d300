"""``okfpro memory server-hook`` as a Git server runs it: without click.

A server starts one process per HTTP request (the CGI wrapper ``okfpro-http-backend``) and one
per push (``hooks/pre-receive``), each with the command line ``install`` wrote, so those two
forms are read here, before click is imported (about half of such a process's CPU: 113 ms ->
61 ms a request, perf stat).  Any other form (``--help``, a misspelt option, a ``--config``
that names a directory) returns None and goes to the click command, which says what is wrong.
:mod:`okfpro.cli.memsync` runs the same two functions behind its options.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import NoReturn


def direct(args: list[str]) -> int | None:
    """``server-hook [--config PATH]`` (the pre-receive hook) or ``server-hook http-backend
    [--config PATH]`` (the CGI program): the exit code, or None for click to answer."""
    backend = bool(args) and args[0] == "http-backend"
    rest = args[1:] if backend else args
    if rest == []:
        config = None
    elif len(rest) == 2 and rest[0] == "--config" and rest[1] and not os.path.isdir(rest[1]):
        config = rest[1]
    else:
        return None
    from pathlib import Path

    if backend:
        exec_backend(Path(config) if config else None)
    return pre_receive(Path(config) if config else None)


def pre_receive(config_path: Path | None) -> int:
    """The pre-receive hook: Git's ``<old> <new> <ref>`` lines on stdin; the exit code."""
    from pathlib import Path

    from okfpro.memory.serverhook import CONFIG_NAME, run_hook

    gitdir = Path(os.environ.get("GIT_DIR", "."))
    return run_hook(sys.stdin, dict(os.environ), config_path or gitdir / CONFIG_NAME)


def exec_backend(config_path: Path | None) -> NoReturn:
    """Become ``git http-backend`` with the environment that hides every memory ref the
    request's user may not read."""
    from okfpro.memory.serverhook import CONFIG_NAME, backend_env, repository_of

    env = dict(os.environ)
    if config_path is None:
        repo = repository_of(env.get("GIT_PROJECT_ROOT", ""), env.get("PATH_INFO", ""))
        config_path = repo / CONFIG_NAME if repo is not None else None
    sys.stdout.flush()
    os.execvpe("git", ["git", "http-backend"], backend_env(config_path, env))
