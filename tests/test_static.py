"""Static checks run with the suite, so CI runs them: ruff (config in pyproject.toml)."""

from __future__ import annotations

import subprocess
import sys

from tests.helpers import REPO


def test_ruff_is_clean() -> None:
    proc = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "okfpro", "tests", "bench", "hooks"],
                          cwd=REPO, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
