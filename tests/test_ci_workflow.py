"""The template CI workflow installs the okfpro this machine installed (PEP 610), or the requirement
the owner sets in okfpro.toml — `pip install okfpro` named a package no index serves — and its steps
run, here, as CI would run them."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from okfpro.io.installed import requirement
from tests.helpers import REPO, invoke


def okfpro(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return invoke(*args, cwd=cwd)


def install_step(ws: Path) -> str:
    flow = yaml.safe_load((ws / ".github/workflows/okfpro.yml").read_text())
    [step] = [s for s in flow["jobs"]["gates"]["steps"] if s.get("name") == "Install okfpro"]
    return step["run"].strip()


GIT = {"url": "https://github.com/me/okfpro.git", "vcs_info": {"vcs": "git", "commit_id": "abc123"}}
ARCHIVE = {"url": "https://example.org/okfpro-1.2.3.tar.gz", "archive_info": {"hash": "sha256=00"}}
CHECKOUT = {"url": "file:///home/me/my%20okfpro", "dir_info": {"editable": True}}
WHEEL = {"url": "file:///home/me/okfpro-1.2.3-py3-none-any.whl", "archive_info": {}}
LOCAL_GIT = {"url": "file:///srv/okfpro.git", "vcs_info": {"vcs": "git", "commit_id": "abc"}}


@pytest.mark.parametrize("direct_url, portable, extras, expected", [
    # installed from an index: this machine's pip names it; CI's may serve another package of that name
    (None, True, (), None),
    (None, False, ("mcp",), ["okfpro[mcp]==1.2.3"]),
    (GIT, True, (), ["git+https://github.com/me/okfpro.git@abc123"]),
    (GIT, False, ("mcp",), ["okfpro[mcp] @ git+https://github.com/me/okfpro.git@abc123"]),
    ({**GIT, "subdirectory": "py"}, True, (), ["git+https://github.com/me/okfpro.git@abc123#subdirectory=py"]),
    (ARCHIVE, True, (), ["https://example.org/okfpro-1.2.3.tar.gz"]),
    (ARCHIVE, False, ("mcp", "test"), ["okfpro[mcp,test] @ https://example.org/okfpro-1.2.3.tar.gz"]),
    # a path exists on this machine only: CI cannot use it, a hint here installs the same again
    (CHECKOUT, True, (), None),
    (CHECKOUT, False, ("mcp",), ["-e", "/home/me/my okfpro[mcp]"]),
    ({"url": "file:///home/me/okfpro", "dir_info": {}}, False, (), ["/home/me/okfpro"]),
    (WHEEL, True, (), None),
    (WHEEL, False, ("mcp",), ["/home/me/okfpro-1.2.3-py3-none-any.whl[mcp]"]),
    (LOCAL_GIT, True, (), None),
    (LOCAL_GIT, False, (), ["git+file:///srv/okfpro.git@abc"]),
    ({"url": "ftp://example.org/okfpro.tar.gz", "archive_info": {}}, False, (), None),
])
def test_the_requirement_is_what_this_machine_installed(direct_url, portable, extras, expected):
    args, why = requirement(direct_url, "1.2.3", extras, portable)
    assert args == expected, why
    assert why


def test_not_installed_the_hint_names_the_source_tree_and_ci_has_none(tmp_path):
    assert requirement(None, None, ("mcp",), False, tmp_path) == (["-e", f"{tmp_path}[mcp]"], f"the source tree okfpro runs from ({tmp_path})")
    assert requirement(None, None, (), True, tmp_path)[0] is None


def test_no_message_names_an_index_package():
    """Every install hint in the package asks okfpro.io.installed; none spells `pip install okfpro...`."""
    hits = [f"{p.relative_to(REPO)}:{n}" for p in (REPO / "okfpro").rglob("*.py")
            for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
            if re.search(r"pip install\s+['\"]?okfpro\b|okfpro==\d", line)]
    assert not hits, hits
    seed = (REPO / "template" / "seed" / "okfpro.toml").read_text()
    assert not re.search(r"okfpro==|\bpip install okfpro\b", seed)


def test_the_workflow_never_names_an_index_package_it_cannot_get(tmp_path):
    ws = tmp_path / "w"
    proc = okfpro("init", str(ws))
    assert proc.returncode == 0, proc.stderr
    step = install_step(ws)
    assert step != "python -m pip install okfpro"
    # this test environment installed okfpro from a local checkout: CI cannot reach it, and both the
    # report and the step say so instead of failing with "no matching distribution"
    if step.startswith("echo"):
        assert "[ci] requirement" in step and "exit 1" in step
        assert "CI:" in proc.stdout and "[ci] requirement" in proc.stdout
    # the owner's requirement wins, and upgrade writes it into the tool-owned workflow
    toml = ws / "okfpro.toml"
    toml.write_text(toml.read_text().replace('requirement = ""', 'requirement = "git+https://example.org/okfpro.git@v1"'))
    assert okfpro("upgrade", str(ws)).returncode == 0
    assert install_step(ws) == "python -m pip install git+https://example.org/okfpro.git@v1"


@pytest.mark.slow
@pytest.mark.xdist_group("packaging")  # with tests/test_packaging.py: one worker builds the wheel
def test_the_workflow_steps_run_in_a_fresh_environment(tmp_path, okfpro_wheel):
    """Every `run:` step, in order, with a fresh virtual environment as CI's runner has: the install
    step installs the requirement (here this checkout's wheel, tests/conftest.py's ``okfpro_wheel``,
    with every dependency from the index), then the gates pass on a fresh workspace.  The wheel is
    built once for this test and tests/test_packaging.py: pip building the checkout again in an
    isolated environment cost ~5 s of CPU here (11.7 against 7.0 s user for the install alone), and
    tests/test_precommit.py's language: python hook install builds this checkout that way."""
    ws = tmp_path / "w"
    assert okfpro("init", str(ws)).returncode == 0
    toml = ws / "okfpro.toml"
    toml.write_text(toml.read_text().replace('requirement = ""', f'requirement = "{okfpro_wheel}"'))
    assert okfpro("upgrade", str(ws)).returncode == 0
    venv = tmp_path / "runner"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    env = {**os.environ, "PATH": f"{venv / 'bin'}{os.pathsep}{os.environ['PATH']}", "VIRTUAL_ENV": str(venv),
           "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md"), "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    env.pop("PYTHONPATH", None)
    flow = yaml.safe_load((ws / ".github/workflows/okfpro.yml").read_text())
    for step in flow["jobs"]["gates"]["steps"]:
        if "run" not in step:
            continue
        proc = subprocess.run(["bash", "-e", "-c", step["run"]], cwd=ws, env=env, capture_output=True, text=True, timeout=900)
        assert proc.returncode == 0, (step["name"], proc.stdout[-2000:], proc.stderr[-2000:])
    assert "okfpro — advisory" in (tmp_path / "summary.md").read_text()
    where = subprocess.run([str(venv / "bin" / "python"), "-c", "import okfpro, sys; print(okfpro.__file__)"],
                           capture_output=True, text=True, cwd=tmp_path, env=env).stdout
    assert str(venv) in where  # the gates ran the okfpro the install step installed
