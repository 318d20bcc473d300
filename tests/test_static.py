"""Static checks run with the suite, so CI runs them: ruff and mypy (config in pyproject.toml)."""

from __future__ import annotations

import re
import subprocess
import sys
from collections import Counter

from tests.helpers import REPO


def test_ruff_is_clean() -> None:
    proc = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "okfpro", "tests", "bench", "hooks"],
                          cwd=REPO, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr


# Files that still carry mypy errors, each with its count when the gate was added: the count may
# only go down (a file at zero leaves the list), and no other file may have any.  These are the
# files other work was changing that day (recall: memory/store, index, history; search:
# core/search.py and mcp/; hosts: core/patch.py,
# core/pwsh.py, hooks/adapters.py — the last five landed within the hour); their errors are
# owed, not excused.
MYPY_ALLOWANCE = {
    "okfpro/core/patch.py": 2,
    "okfpro/core/pwsh.py": 1,
    "okfpro/hooks/adapters.py": 2,
    "okfpro/core/search.py": 2,
    "okfpro/mcp/app.py": 2,
    "okfpro/mcp/tools.py": 1,
    "okfpro/mcp/watch.py": 4,
    "okfpro/memory/history.py": 2,
    "okfpro/memory/index.py": 1,
    "okfpro/memory/store.py": 1,
}


def test_mypy_is_clean() -> None:
    """mypy over okfpro/: strict on okfpro/core, default settings elsewhere (pyproject.toml)."""
    proc = subprocess.run([sys.executable, "-m", "mypy", "--no-incremental", "--cache-dir", "/dev/null",
                           "--no-error-summary", "--hide-error-context", "--no-pretty"],
                          cwd=REPO, capture_output=True, text=True, timeout=600)
    assert proc.returncode in (0, 1), proc.stdout + proc.stderr  # 2: mypy itself could not run
    errors = [line for line in proc.stdout.splitlines() if re.match(r"^okfpro/\S+\.py:\d+: error:", line)]
    counts = Counter(line.split(":", 1)[0] for line in errors)
    over = {path: n for path, n in counts.items() if n > MYPY_ALLOWANCE.get(path, 0)}
    assert not over, "mypy errors (fix them):\n" + "\n".join(e for e in errors if e.split(":", 1)[0] in over)
    stale = {path: (allowed, counts.get(path, 0)) for path, allowed in MYPY_ALLOWANCE.items()
             if counts.get(path, 0) < allowed}
    assert not stale, f"lower these mypy allowances (allowed, now; 0: remove the entry): {stale}"
