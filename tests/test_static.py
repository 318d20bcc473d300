"""Static checks run with the suite, so CI runs them: ruff and mypy (config in pyproject.toml)."""

from __future__ import annotations

import re
import subprocess
import sys

from tests.helpers import REPO, cache_dir, quick


def test_ruff_is_clean() -> None:
    proc = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "okfpro", "tests", "bench", "hooks"],
                          cwd=REPO, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_mypy_is_clean() -> None:
    """mypy over okfpro/: strict on okfpro/core, default settings elsewhere (pyproject.toml)."""
    # the whole run (CI) checks from scratch; the inner loop keeps mypy's cache outside the checkout
    cache = (["--cache-dir", str(cache_dir("mypy", *REPO.parts[1:]))] if quick()
             else ["--no-incremental", "--cache-dir", "/dev/null"])
    proc = subprocess.run([sys.executable, "-m", "mypy", *cache, "--no-error-summary", "--hide-error-context", "--no-pretty"],
                          cwd=REPO, capture_output=True, text=True, timeout=600)
    assert proc.returncode in (0, 1), proc.stdout + proc.stderr  # 2: mypy itself could not run
    errors = [line for line in proc.stdout.splitlines() if re.match(r"^okfpro/\S+\.py:\d+: error:", line)]
    assert not errors, "mypy errors (fix them):\n" + "\n".join(errors)


def test_every_type_ignore_names_its_code_and_says_why() -> None:
    """``# type: ignore[code]  # why`` (issue #12): a bare ignore hides whatever mypy finds on the line."""
    pattern = re.compile(r"#\s*type:\s*ignore(?!\[[a-z, -]+\]\s*#\s*\S)")
    bare = [f"{path.relative_to(REPO)}:{n}" for top in ("okfpro", "tests", "bench", "hooks")
            for path in sorted((REPO / top).rglob("*.py"))
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if pattern.search(line)]
    assert not bare, "type-ignore comments without their code and reason:\n" + "\n".join(bare)
