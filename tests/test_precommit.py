"""The commit door through the real pre-commit framework.

Two ways: the hooks of ``.pre-commit-hooks.yaml`` replayed as ``repo: local`` hooks
(``language: system``, ``python -m okfpro``; no network), where ``pre-commit run
--all-files`` must refuse a broken bundle and accept a clean one; and this repository
named in a workspace's ``.pre-commit-config.yaml``, whose hooks pre-commit installs as
``language: python`` exactly as a user's workspace gets them (needs the package index;
skipped, saying so, without it).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
import hookkit  # noqa: E402

PROVIDED = hookkit.REPO / ".pre-commit-hooks.yaml"


def _pre_commit() -> list[str] | None:
    try:
        import pre_commit  # noqa: F401

        return [sys.executable, "-m", "pre_commit"]
    except ImportError:
        exe = shutil.which("pre-commit")
        return [exe] if exe else None


def test_provided_hooks_are_well_formed():
    hooks = yaml.safe_load(PROVIDED.read_text())
    ids = [h["id"] for h in hooks]
    assert ids == ["okfpro-validate", "okfpro-lint", "okfpro-audit", "okfpro-records", "okfpro-secrets"]
    from okfpro.cli import COMMANDS

    for h in hooks:
        assert h["language"] == "python"
        assert {"id", "name", "entry", "language"} <= set(h)
        exe, verb = h["entry"].split()[:2]
        assert exe == "okfpro" and verb in COMMANDS, h["entry"]
        assert set(h.get("stages", [])) <= {"pre-commit", "pre-merge-commit", "pre-push", "manual"}
        if h["id"] != "okfpro-secrets":
            assert h["pass_filenames"] is False and h["always_run"] is True


def _local_config() -> str:
    hooks = []
    for h in yaml.safe_load(PROVIDED.read_text()):
        local = {key: h[key] for key in ("id", "name", "pass_filenames", "always_run", "types") if key in h}
        local["entry"] = f"{sys.executable} -m {h['entry']}"
        local["language"] = "system"
        local["stages"] = ["pre-commit", "manual"]
        hooks.append(local)
    return yaml.safe_dump({"repos": [{"repo": "local", "hooks": hooks}]}, sort_keys=False)


def _run(ws: Path, tmp_path: Path) -> subprocess.CompletedProcess:
    cmd = _pre_commit()
    if cmd is None:
        pytest.skip("pre-commit is not installed (pip install -e '.[test]')")
    (ws / ".pre-commit-config.yaml").write_text(_local_config())
    hookkit.git(ws, "add", "-A")
    return subprocess.run([*cmd, "run", "--all-files", "--color", "never"], cwd=ws, capture_output=True, text=True,
                          env=hookkit.env({"PRE_COMMIT_HOME": str(tmp_path / "pc-home")}), timeout=600)


def test_precommit_accepts_a_clean_workspace(tmp_path):
    ws = hookkit.make_workspace(tmp_path, "clean ws")
    proc = _run(ws, tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for name in ("okfpro validate", "okfpro lint", "okfpro audit", "okfpro records", "okfpro secrets"):
        assert name in proc.stdout
    assert "Failed" not in proc.stdout


def test_precommit_refuses_a_broken_bundle(tmp_path):
    ws = hookkit.make_workspace(tmp_path, "broken ws")
    (ws / ".okf" / "learnings" / "broken.md").write_text("no frontmatter at all\n")
    journal = ws / ".okf" / "journal" / f"{hookkit.PAST}.md"
    journal.write_text(journal.read_text() + "\nRewritten afterwards.\n")
    proc = _run(ws, tmp_path)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    out = proc.stdout
    assert "learnings/broken.md" in out
    failed = [line for line in out.splitlines() if line.rstrip().endswith("Failed")]
    assert any("okfpro validate" in line for line in failed)
    assert any("okfpro audit" in line for line in failed)
    assert any("okfpro records" in line for line in failed)
    assert f"journal/{hookkit.PAST}.md" in out


def _pypi_reachable() -> bool:
    import socket

    try:
        socket.create_connection(("pypi.org", 443), timeout=5).close()
        return True
    except OSError:
        return False


def _checkout_copy(dest: Path, untracked: bool = False) -> str:
    """A clone of this repository at ``dest`` whose one new commit holds the working tree's version of
    every tracked file (``untracked``: and of every file Git does not ignore), committed or not, as
    ``pre-commit try-repo`` makes of a checkout with changes.  Returns that commit's sha."""
    subprocess.run(["git", "clone", "-q", str(hookkit.REPO), str(dest)], check=True)
    which = ["--cached", "--others", "--exclude-standard"] if untracked else []
    listed = subprocess.run(["git", "-C", str(hookkit.REPO), "ls-files", "-z", *which], capture_output=True,
                            check=True).stdout
    for rel in [*filter(None, listed.decode().split("\0")), ".pre-commit-config.yaml"]:
        src = hookkit.REPO / rel
        if src.is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / rel)
    subprocess.run(["git", "-C", str(dest), "add", "-A"], check=True)
    subprocess.run(["git", "-C", str(dest), "-c", "user.name=t", "-c", "user.email=t@x", "commit", "-q",
                    "--allow-empty", "-m", "the working tree"], check=True)
    return subprocess.run(["git", "-C", str(dest), "rev-parse", "HEAD"], capture_output=True, text=True,
                          check=True).stdout.strip()


@pytest.mark.slow
def test_provided_hooks_install_as_language_python_and_gate(tmp_path):
    """This repository (its working tree, committed or not) named in a workspace's
    ``.pre-commit-config.yaml``: pre-commit builds its own virtualenv from ``.pre-commit-hooks.yaml``
    (``language: python``, installing okfpro and its dependencies from the package index), then the
    hook accepts a clean workspace and refuses a broken one.  One install serves both runs (the
    same PRE_COMMIT_HOME, as on a user's machine); ``pre-commit try-repo`` would install twice."""
    pc = _pre_commit()
    if pc is None:
        pytest.skip("pre-commit is not installed (it is in the [test] extra)")
    if not _pypi_reachable():
        pytest.skip("the package index is not reachable: a language: python hook cannot be installed")
    rev = _checkout_copy(tmp_path / "hooks-repo", untracked=True)
    ws = tmp_path / "ws"
    proc = subprocess.run([sys.executable, "-m", "okfpro", "init", str(ws)], capture_output=True, text=True,
                          env={**hookkit.os.environ, "PYTHONPATH": str(hookkit.REPO)})
    assert proc.returncode == 0, proc.stderr
    (ws / ".pre-commit-config.yaml").write_text(yaml.safe_dump(
        {"repos": [{"repo": str(tmp_path / "hooks-repo"), "rev": rev, "hooks": [{"id": "okfpro-validate"}]}]}))
    subprocess.run(["git", "-C", str(ws), "add", "-A"], check=True)
    subprocess.run(["git", "-C", str(ws), "commit", "-qm", "init"], check=True)
    env = {**hookkit.os.environ, "PRE_COMMIT_HOME": str(tmp_path / "pc-home"), "OKFPRO_TODAY": "2026-11-30"}
    env.pop("PYTHONPATH", None)  # the hook must run the okfpro pre-commit installed, not this checkout

    def run_hook() -> subprocess.CompletedProcess:
        return subprocess.run([*pc, "run", "okfpro-validate", "--all-files", "--color", "never"], cwd=ws, env=env,
                              capture_output=True, text=True, timeout=600)

    clean = run_hook()
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert "Passed" in clean.stdout
    assert "Installing environment" in clean.stdout + clean.stderr  # language: python, built by pre-commit
    (ws / ".okf" / "learnings" / "broken.md").write_text("no frontmatter here\n")
    subprocess.run(["git", "-C", str(ws), "add", "-A"], check=True)
    broken = run_hook()
    assert broken.returncode != 0
    assert "broken.md" in broken.stdout and "Failed" in broken.stdout


def test_this_repository_passes_its_own_commit_door(tmp_path):
    """`.pre-commit-config.yaml` at the root: our own bundle conforms and lints clean, and no
    committed file outside tests/ holds a detectable secret — run by the real pre-commit."""
    pc = _pre_commit()
    if pc is None:
        pytest.skip("pre-commit is not installed (it is in the [test] extra)")
    clone = tmp_path / "clone"
    _checkout_copy(clone)  # the working tree's version of every tracked file (and the config itself)
    env = {**hookkit.os.environ, "PRE_COMMIT_HOME": str(tmp_path / "pc-home"), "PYTHONPATH": str(hookkit.REPO)}
    proc = subprocess.run([*pc, "run", "--all-files"], cwd=clone, env=env, capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for hook in ("okfpro validate .okf", "okfpro lint .okf", "okfpro secrets"):
        assert any(line.startswith(hook) and line.rstrip().endswith("Passed") for line in proc.stdout.splitlines()), \
            (hook, proc.stdout)
