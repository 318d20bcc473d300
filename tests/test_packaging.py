"""The template ships inside the wheel: build it, install it in a fresh venv, and run ``okfpro init`` from there.

The wheel is tests/conftest.py's ``okfpro_wheel`` (built once per worker from a copy of the sources, so
no ``build/`` or ``*.egg-info`` lands in the checkout; tests/test_ci_workflow.py installs the same one).
The venv sees the system site-packages (okfpro's dependencies) but installs okfpro only from the wheel.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.helpers import REPO

# Slow (a wheel build and a venv install); one worker builds the wheel once for these tests and
# tests/test_ci_workflow.py's fresh environment (the same xdist group).
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("packaging")]


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    return env


@pytest.fixture(scope="module")
def wheel_path(okfpro_wheel: Path) -> Path:
    return okfpro_wheel


def test_the_wheel_holds_the_template_with_its_dotfiles_and_every_module(wheel_path: Path) -> None:
    names = set(zipfile.ZipFile(wheel_path).namelist())
    for required in (
        "okfpro/_template/seed/.okf/index.md",
        "okfpro/_template/seed/.okf/journal/index.md",
        "okfpro/_template/seed/.tmp/.gitkeep",
        "okfpro/_template/seed/gitignore",
        "okfpro/_template/owned/.pre-commit-config.yaml",
        "okfpro/_template/owned/.claude/skills/okfpro/SKILL.md",
        "okfpro/_template/owned/.github/workflows/okfpro.yml",
        "okfpro/_template/wiring/claude/.claude/settings.json",
        "okfpro/_template/wiring/codex/.codex/hooks.json",
        "okfpro/_template/wiring/gemini/.gemini/settings.json",
        "okfpro/_launchers/_launch.py",
        "okfpro/_launchers/session_start.py",
    ):
        assert required in names, required
    template_files = {p.relative_to(REPO / "template").as_posix() for p in (REPO / "template").rglob("*") if p.is_file()}
    shipped = {n[len("okfpro/_template/"):] for n in names if n.startswith("okfpro/_template/")}
    assert template_files <= shipped, sorted(template_files - shipped)
    modules = {p.relative_to(REPO).as_posix() for p in (REPO / "okfpro").rglob("*.py") if "__pycache__" not in p.parts}
    assert modules <= names, f"packages missing from pyproject's list: {sorted(modules - names)}"


@pytest.fixture(scope="module")
def venv(wheel_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv (seeing the system site-packages: okfpro's dependencies) with okfpro installed
    from the wheel alone; a test that changes the install puts it back."""
    venv = tmp_path_factory.mktemp("venv") / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True, timeout=120)
    _install(venv, wheel_path)
    return venv


def _install(venv: Path, wheel_path: Path, *extra: str) -> None:
    proc = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--no-deps", "--no-index", *extra,
                           str(wheel_path)], capture_output=True, text=True, env=_env(), timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_the_install_hint_names_the_wheel_this_venv_installed_and_pip_takes_it(venv: Path, wheel_path: Path,
                                                                               tmp_path: Path) -> None:
    """Issue #38.6: a hint installs what this machine installed (okfpro.io.installed), here the wheel."""
    py = str(venv / "bin" / "python")
    hint = subprocess.run([py, "-c", "from okfpro.io.installed import install_hint; print(install_hint('mcp'))"],
                          capture_output=True, text=True, env=_env(), cwd=tmp_path, timeout=60)
    assert hint.stdout.strip() == f"{py} -m pip install '{wheel_path}[mcp]'", hint.stdout + hint.stderr
    dry = subprocess.run(["bash", "-c", hint.stdout.strip() + " --dry-run --no-deps --no-index --force-reinstall"],
                         capture_output=True, text=True, env=_env(), cwd=tmp_path, timeout=300)
    assert dry.returncode == 0 and "Would install okfpro-" in dry.stdout, dry.stdout + dry.stderr


def test_installed_wheel_finds_the_template_and_runs_init(venv: Path, tmp_path: Path) -> None:
    py = venv / "bin" / "python"
    probe = subprocess.run(
        [str(py), "-c", "import json, okfpro, okfpro.io.scaffold as s;"
         "print(json.dumps([okfpro.__file__, str(s.template_root()), str(s.launcher_root())]))"],
        capture_output=True, text=True, cwd=tmp_path, env=_env(), timeout=60,
    )
    assert probe.returncode == 0, probe.stderr
    module, template, launchers = json.loads(probe.stdout)
    site = str(venv)
    assert module.startswith(site) and template.startswith(site) and launchers.startswith(site)
    assert template.endswith("_template") and launchers.endswith("_launchers")

    ws = tmp_path / "from wheel"
    init = subprocess.run([str(venv / "bin" / "okfpro"), "init", str(ws)], capture_output=True, text=True,
                          cwd=tmp_path, env=_env(), timeout=120)
    assert init.returncode == 0, init.stderr
    for rel in (".okf/index.md", ".claude/settings.json", ".tmp/.gitkeep", ".gitignore", ".claude/hooks/stop.py"):
        assert (ws / rel).is_file(), rel
    assert os.access(ws / ".claude/hooks/stop.py", os.X_OK)
    assert (ws / ".claude/hooks/okfpro-python").read_text().splitlines() == [str(py), "one-process"]

    # the installed launcher runs the wheel's okfpro through the pinned interpreter
    event = json.dumps({"hook_event_name": "SessionStart", "cwd": str(ws), "source": "startup"})
    banner = subprocess.run([str(ws / ".claude/hooks/session_start.py")], input=event, capture_output=True,
                            text=True, cwd=ws, env={**_env(), "CLAUDE_PROJECT_DIR": str(ws)}, timeout=120)
    assert banner.returncode == 0, banner.stderr
    assert "in flight 0/5" in banner.stdout


def test_the_caches_code_stamp_survives_a_reinstall_of_the_same_files_and_not_an_edit(wheel_path: Path, venv: Path,
                                                                                     tmp_path: Path) -> None:
    """okfpro.io.cachedir.code_stamp names an installed file by the digest its install recorded:
    a reinstall (new mtimes, same files) keeps every cache built with them; a file edited after
    the install, even to the same size, does not."""
    py = venv / "bin" / "python"

    def stamps() -> list[str]:
        probe = subprocess.run([str(py), "-c", "import json, okfpro.io.cachedir as c, okfpro.io.analysis as a;"
                                "print(json.dumps([c.code_stamp(), c.code_stamp(a.CODE), c.__file__]))"],
                               capture_output=True, text=True, cwd=tmp_path, env=_env(), timeout=60)
        assert probe.returncode == 0, probe.stderr
        return json.loads(probe.stdout)

    first = stamps()
    assert first[2].startswith(str(venv))
    # the source tree the wheel was built from (no RECORD: every file by its content) stamps alike:
    # an editable checkout beside an installed copy of the same code shares their caches
    source = subprocess.run([sys.executable, "-c", "import json, okfpro.io.cachedir as c, okfpro.io.analysis as a;"
                             "print(json.dumps([c.code_stamp(), c.code_stamp(a.CODE), c.__file__]))"],
                            capture_output=True, text=True, cwd=tmp_path, env={**_env(), "PYTHONPATH": str(REPO)},
                            timeout=60)
    assert source.returncode == 0, source.stderr
    assert json.loads(source.stdout)[2].startswith(str(REPO)) and json.loads(source.stdout)[:2] == first[:2]
    _install(venv, wheel_path, "--force-reinstall")
    again = stamps()
    assert again == first  # new files, new mtimes, the same content
    reader = Path(first[2]).parent / "reader.py"
    text = reader.read_text()
    reader.write_text(text.replace("def ", "def  ", 1)[:-1])  # another content of the same size
    assert len(reader.read_bytes()) == len(text.encode())
    assert stamps()[0] != first[0]
    _install(venv, wheel_path, "--force-reinstall")  # the install as it was, for the other tests
    assert stamps() == first
