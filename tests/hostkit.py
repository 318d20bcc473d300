"""The three agent hosts as shipped, for tests and ``okfpro doctor``'s own tests.

``installed()`` installs Claude Code, Codex CLI and Gemini CLI from the npm registry into a cache
directory (``$OKFPRO_HOSTS_DIR``, default ``~/.cache/okfpro/hosts``), once, under a file lock so
parallel test workers share one install; ``.ci/run`` pre-installs them so a test run never waits for
the download.  The versions are pinned: moving to a new host release is a one-line change here, and
the tests then say what the new release changed.

``OKFPRO_HOSTS=latest`` runs the same tests against each host's newest release instead: installed as
``@latest`` into a cache of its own (default ``~/.cache/okfpro/hosts-latest``), asked of the registry
again when the last install is more than a day old.  ``.ci/hosts-latest`` is that job.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest

PACKAGES = {
    "@anthropic-ai/claude-code": "2.1.197",
    "@openai/codex": "0.171.0",
    "@google/gemini-cli": "0.61.0",
}
HERE = Path(__file__).resolve().parent
LATEST_MAX_AGE = 24 * 3600  # seconds: how long an install of the newest releases stands before the registry is asked again


def latest() -> bool:
    """``OKFPRO_HOSTS=latest``: the hosts' newest releases, not the pins."""
    return os.environ.get("OKFPRO_HOSTS") == "latest"


def cache_dir() -> Path:
    default = Path.home() / ".cache" / "okfpro" / ("hosts-latest" if latest() else "hosts")
    return Path(os.environ.get("OKFPRO_HOSTS_DIR") or default)


def versions(root: Path) -> dict[str, str | None]:
    """The version of each package installed in ROOT."""
    return {p: _version(root, p) for p in PACKAGES}


def _version(root: Path, package: str) -> str | None:
    try:
        return json.loads((root / "node_modules" / package / "package.json").read_text())["version"]
    except (OSError, ValueError, KeyError):
        return None


def installed() -> Path:
    """The cache directory with the pinned hosts installed (``OKFPRO_HOSTS=latest``: their newest
    releases); skips (with the reason) when npm is absent."""
    npm = shutil.which("npm")
    node = shutil.which("node")
    if npm is None or node is None:
        pytest.skip("npm/node are not installed: the real-host tests need them (.ci/run installs them with apt)")
    root = cache_dir()
    root.mkdir(parents=True, exist_ok=True)
    with open(root / ".install-lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        missing = [] if latest() else [f"{p}@{v}" for p, v in PACKAGES.items() if _version(root, p) != v]
        stamp = root / ".latest-installed"
        if latest() and (not stamp.exists() or time.time() - stamp.stat().st_mtime > LATEST_MAX_AGE
                         or any(_version(root, p) is None for p in PACKAGES)):
            missing = [f"{p}@latest" for p in PACKAGES]
        if missing:
            proc = subprocess.run([npm, "install", "--no-audit", "--no-fund", "--prefix", str(root), *missing],
                                  capture_output=True, text=True, timeout=900)
            if proc.returncode != 0:
                pytest.fail(f"npm install {' '.join(missing)} failed:\n{proc.stderr[-3000:]}")
            if latest():
                stamp.write_text(json.dumps(versions(root)) + "\n")
    return root


def bin_path(root: Path, name: str) -> str:
    return str(root / "node_modules" / ".bin" / name)


def codex_native(root: Path) -> Path:
    """The native Codex binary inside the platform package (its embedded hook schemas live there)."""
    for candidate in sorted((root / "node_modules" / "@openai").glob("codex-*/vendor/*/bin/codex")):
        return candidate
    for candidate in sorted((root / "node_modules" / "@openai" / "codex").rglob("codex")):
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate
    raise AssertionError("no native codex binary in the installed @openai/codex")


def codex_schemas(root: Path) -> dict[str, dict]:
    """Codex's hook JSON Schemas (draft-07), as embedded in its binary: title -> schema."""
    data = codex_native(root).read_bytes()
    decoder = json.JSONDecoder()
    out: dict[str, dict] = {}
    for m in re.finditer(rb'"\$schema"', data):
        start = data.rfind(b"{", 0, m.start())
        try:
            obj, _ = decoder.raw_decode(data[start:start + 200_000].decode("utf-8", "replace"))
        except ValueError:
            continue
        title = obj.get("title") if isinstance(obj, dict) else None
        if isinstance(title, str) and title.endswith((".command.input", ".command.output")):
            out[title] = obj
    return out


def gemini_bundle(root: Path) -> Path:
    return root / "node_modules" / "@google" / "gemini-cli" / "bundle"


def gemini(root: Path, ops: list[dict], home: Path) -> list[dict]:
    """Run ops through Gemini CLI's own code (tests/hosts/gemini_kit.mjs)."""
    version = subprocess.run(["node", "--version"], capture_output=True, text=True).stdout.strip().lstrip("v")
    if int((version.split(".")[0] or "0")) < 20:
        pytest.skip(f"Gemini CLI needs Node >= 20; this machine has {version or 'no node'}")
    env = dict(os.environ, HOME=str(home), NO_COLOR="1")
    proc = subprocess.run(["node", str(HERE / "hosts" / "gemini_kit.mjs"), str(gemini_bundle(root))],
                          input=json.dumps({"ops": ops}), capture_output=True, text=True, env=env, timeout=300)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")]
    assert proc.returncode == 0 and lines, f"gemini kit failed ({proc.returncode}):\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}"
    return json.loads(lines[-1][len("RESULT "):])


def codex_hooks_list(root: Path, cwd: Path, home: Path, trust_project: bool = True) -> dict:
    """Codex's own answer to the app-server JSON-RPC ``hooks/list`` for CWD (a fresh CODEX_HOME)."""
    codex_home = home / ".codex"
    codex_home.mkdir(parents=True, exist_ok=True)
    if trust_project:
        (codex_home / "config.toml").write_text(f'[projects.{json.dumps(str(cwd))}]\ntrust_level = "trusted"\n')
    env = dict(os.environ, HOME=str(home), CODEX_HOME=str(codex_home))
    from okfpro.io.doctor import codex_hooks_list as ask_codex  # the same client okfpro doctor uses

    return {"data": ask_codex(bin_path(root, "codex"), cwd, env)}
