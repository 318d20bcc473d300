"""Shared test helpers: where the read-only shared/ folder is, and running okfpro as a process."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def shared_dir() -> Path:
    """``../shared`` beside the checkout (CI), else /work/shared (developer machines)."""
    for candidate in (REPO.parent / "shared", Path("/work/shared")):
        if (candidate / "conformance").is_dir():
            return candidate
    return REPO.parent / "shared"


def run_okfpro(*args: str, cwd: str | os.PathLike | None = None, stdin: str | bytes | None = None,
               env: dict[str, str] | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    """Run ``python -m okfpro ARGS`` as a real process; text in, text out."""
    full_env = {**os.environ, **(env or {})}
    full_env.setdefault("PYTHONPATH", str(REPO))
    data = stdin.encode() if isinstance(stdin, str) else stdin
    proc = subprocess.run([sys.executable, "-m", "okfpro", *args], cwd=cwd, input=data, env=full_env,
                          capture_output=True, timeout=timeout)
    return subprocess.CompletedProcess(proc.args, proc.returncode, proc.stdout.decode("utf-8", "replace"),
                                       proc.stderr.decode("utf-8", "replace"))
