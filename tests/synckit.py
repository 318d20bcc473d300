"""Fixtures for memory sync: a real Git HTTP server on loopback, and clones with their own HOME and identity."""

from __future__ import annotations

import datetime as dt
import os
import subprocess
import sys
from pathlib import Path

from okfpro.core.scope import Scope
from okfpro.memory.store import MemoryStore
from tests import helpers

HERE = Path(__file__).resolve().parent
PASSWORD = "pw-{}"


def git(*args: str, cwd: Path | None = None, env: dict | None = None, check: bool = True) -> subprocess.CompletedProcess:
    base = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    base.update(env or {})
    base["GIT_TERMINAL_PROMPT"] = "0"
    proc = subprocess.run(["git", *args], cwd=cwd, env=base, capture_output=True, text=True, check=False)
    if check and proc.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed: {proc.stderr}")
    return proc


class Server:
    """``git http-backend`` behind basic auth (tests/gitserver.py), one bare repo ``memory.git``
    with the okfpro pre-receive hook installed and a pusher map."""

    def __init__(self, base: Path, pushers: dict[str, dict], hook: bool = True) -> None:
        self.root = base / "srv"
        self.root.mkdir()
        self.repo = self.root / "memory.git"
        git("init", "-q", "--bare", str(self.repo))
        lines = []
        for name, row in pushers.items():
            lines.append(f'[pushers."{name}"]')
            for k, v in row.items():
                lines.append(f"{k} = " + (repr(v).replace("'", '"') if not isinstance(v, bool) else str(v).lower()))
        (self.repo / "okfpro-server.toml").write_text("\n".join(lines) + "\n")
        if hook:
            run_okfpro(["memory", "server-hook", "install", str(self.repo)], cwd=base, check=True)
        users = base / "users.txt"
        users.write_text("".join(f"{n}:{PASSWORD.format(n)}\n" for n in pushers))
        self.proc = subprocess.Popen([sys.executable, str(HERE / "gitserver.py"), str(self.root), str(users)],
                                     stdout=subprocess.PIPE, env={**os.environ, "PYTHONUNBUFFERED": "1"})
        self.port = int(self.proc.stdout.readline())

    def url(self, user: str, password: str | None = None) -> str:
        return f"http://{user}:{password or PASSWORD.format(user)}@127.0.0.1:{self.port}/memory.git"

    def refs(self) -> dict[str, str]:
        out = git("--git-dir", str(self.repo), "for-each-ref", "--format=%(refname) %(objectname)").stdout
        return {a: b for a, b in (line.split(" ") for line in out.splitlines() if line)}

    def gc(self) -> None:
        git("--git-dir", str(self.repo), "reflog", "expire", "--expire=now", "--all")
        git("--git-dir", str(self.repo), "gc", "-q", "--prune=now")

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait()


def run_okfpro(args: list[str], cwd: Path, env: dict | None = None, check: bool = False,
               process: bool = False) -> subprocess.CompletedProcess:
    """``okfpro ARGS`` without this process's OKFPRO_*/GIT_* variables: in this process
    (tests.helpers.invoke), or a real one with ``process=True``."""
    base = {k: v for k, v in os.environ.items() if not k.startswith(("OKFPRO_", "GIT_"))}
    proc = helpers.run_okfpro(*args, cwd=cwd, base_env=base, env=env, timeout=300, process=process)
    if check and proc.returncode != 0:
        raise AssertionError(f"okfpro {' '.join(args)} exited {proc.returncode}: {proc.stderr}")
    return proc


class Clone:
    """One machine: a workspace (okfpro.toml naming the identity and the remote) and its own HOME."""

    def __init__(self, base: Path, name: str, user: str, remote: str, tenant: str = "acme") -> None:
        self.dir = base / name
        self.home = base / f"{name}-home"
        self.dir.mkdir()
        self.home.mkdir()
        self.scope = Scope(tenant=tenant, user=user)
        (self.dir / "okfpro.toml").write_text(
            f'[identity]\ntenant = "{tenant}"\nuser = "{user}"\n\n[memory]\nremote = "{remote}"\n'
            'tiers = ["session", "user", "tenant"]\n')
        self.root = self.dir / ".okf-memory"

    def okfpro(self, *args: str, check: bool = False, process: bool = False) -> subprocess.CompletedProcess:
        return run_okfpro(list(args), cwd=self.dir, env={"HOME": str(self.home)}, check=check, process=process)

    def store(self) -> MemoryStore:
        return MemoryStore(self.root, tiers=("session", "user", "tenant"))

    def write(self, text: str, at: dt.datetime | None = None, tier: str = "user") -> None:
        result = self.store().write(self.scope, text, tier, now=at)
        assert result.written, result.error

    def files(self, tier: str = "user") -> dict[str, bytes]:
        directory = Path(self.store().scope_dir(tier, self.scope))
        if not directory.is_dir():
            return {}
        return {p.name: p.read_bytes() for p in sorted(directory.iterdir())}

    def texts(self, tier: str = "user") -> list[str]:
        return [e.text for e in self.store().enumerate(self.scope).entries if e.tier == tier]

    def objects_hold(self, needle: bytes) -> bool:
        gitdir = self.root / ".okf-history.git"
        return objects_hold(gitdir, needle) if gitdir.exists() else False


def objects_hold(gitdir: Path, needle: bytes) -> bool:
    """Whether any object of ``gitdir`` (loose or packed, reachable or not) holds ``needle``."""
    proc = subprocess.run(["git", f"--git-dir={gitdir}", "cat-file", "--batch-all-objects", "--batch"],
                          capture_output=True, check=True)
    return needle in proc.stdout
