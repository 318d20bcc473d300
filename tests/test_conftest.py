"""The suite as the next engineer runs it (issue #38, item 10): one test by node id or ``-k``, the inner
loop's ``-m "not slow"``, and a machine whose user has no Git identity at all."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path
from types import SimpleNamespace

from tests.conftest import SLOW, _stale_slow_names
from tests.helpers import GIT_IDENTITY, REPO


def pytest_run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pytest", "-o", "addopts=", "-p", "no:cacheprovider", "-n", "0", *args], cwd=REPO,
                          capture_output=True, text=True, env=env, timeout=600)


def test_one_test_by_node_id_or_by_k_collects() -> None:
    """One slow test of each of two files SLOW names, by node id, then one by ``-k``: the other names
    of the same files are not stale because they were not selected (each of the 12 files failed so)."""
    ids = [f"tests/{next(n for n in SLOW if n.startswith(file))}" for file in ("test_doctor.py::", "test_merge_driver.py::")]
    assert {i.split("::")[0] for i in ids} == {"tests/test_doctor.py", "tests/test_merge_driver.py"}, ids
    by_id = pytest_run("--collect-only", "-q", *ids)
    assert by_id.returncode == 0, by_id.stdout[-2000:] + by_id.stderr[-2000:]
    lines = [ln for ln in by_id.stdout.splitlines() if "::" in ln]
    assert {ln.split("[")[0] for ln in lines} == set(ids), by_id.stdout[-2000:]
    func = SLOW[0].split("::")[1]
    by_k = pytest_run("--collect-only", "-q", "-k", func, f"tests/{SLOW[0].split('::')[0]}")
    assert by_k.returncode == 0 and func in by_k.stdout, by_k.stdout[-2000:] + by_k.stderr[-2000:]


def test_a_name_no_file_defines_is_stale_and_a_defined_one_is_not() -> None:
    file, func = SLOW[0].split("::")
    item = SimpleNamespace(path=Path(file), module=SimpleNamespace(**{func: lambda: None}))
    stale = _stale_slow_names([item])
    assert SLOW[0] not in stale and all(name.startswith(file) for name in stale)
    assert SLOW[0] in _stale_slow_names([SimpleNamespace(path=Path(file), module=SimpleNamespace())])


def test_the_inner_loop_leaves_out_the_tests_slow_names() -> None:
    file = SLOW[0].split("::")[0]
    names = [name.split("::")[1] for name in SLOW if name.startswith(file + "::")]
    quick = pytest_run("--collect-only", "-q", "-m", "not slow", f"tests/{file}")
    assert quick.returncode == 0, quick.stdout[-2000:] + quick.stderr[-2000:]
    assert f"({len(names)} deselected)" in quick.stdout and not any(f"::{n}" in quick.stdout for n in names), quick.stdout


def test_the_suite_needs_no_global_git_identity() -> None:
    """A new user's machine: HOME empty, no global or system Git config, no identity in the environment.
    tests/conftest.py gives the run one; a test that clears Git's variables for its processes keeps it."""
    with tempfile.TemporaryDirectory(prefix="no-identity-home-") as home:
        env = {k: v for k, v in os.environ.items() if k not in GIT_IDENTITY and k != "EMAIL"}
        env.update(HOME=home, GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1")
        bare = subprocess.run(["git", "var", "GIT_AUTHOR_IDENT"], capture_output=True, text=True, env=env, cwd=home)
        assert bare.returncode != 0, bare.stdout  # this machine, as the new user sees it, has no identity
        proc = pytest_run("tests/test_memory_trust.py::test_a_hand_edited_ref_pointing_at_another_scopes_commits_is_not_shown",
                          env=env)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
