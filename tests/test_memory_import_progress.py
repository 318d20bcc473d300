"""Long work says what it is doing (issue 38, item 8): ``memory import`` and a first ranked search show
one progress bar on a terminal that covers every phase of the work, in order and in proportion (it
never goes back, it names the phase, it starts near 0 % and ends near 100 %), and nothing when stderr
is not a terminal.  Real processes on a real pseudo-terminal."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import on_a_terminal

ROOT = Path(__file__).resolve().parent.parent
FRAME = re.compile(rb"okfpro: ([a-z ]+) \[[#-]+\]\s+(\d+) % ([a-z ]+?)(?: \d+/\d+)?\s*(?=\r|$)")


def frames(seen: bytes, label: str) -> list[tuple[int, str]]:
    return [(int(m.group(2)), m.group(3).decode().strip()) for m in FRAME.finditer(seen)
            if m.group(1).decode() == label]


def env_for(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OKFPRO_", "GIT_"))}
    env.update({"PYTHONPATH": str(ROOT), "OKFPRO_PROGRESS_AFTER": "0", "OKFPRO_USER": "imp", **extra})
    return env


def check_bar(shown: list[tuple[int, str]], phases: list[str]) -> None:
    assert shown, "no progress bar was drawn"
    percents = [p for p, _ in shown]
    assert percents == sorted(percents), percents  # never goes back
    assert percents[0] <= 5 and shown[-1] == (100, "done"), shown[-3:]
    named = []
    for _, name in shown[:-1]:
        if not named or named[-1] != name:
            named.append(name)
    assert named == phases, named  # every phase, in order, each named while it runs


def test_memory_import_shows_every_phase_in_proportion(tmp_path) -> None:
    (tmp_path / ".okf").mkdir()
    (tmp_path / "okfpro.toml").write_text("[memory]\n")
    data = "".join(json.dumps({"text": f"note {i}: the staging deploy runs step {i % 17}",
                               "time": f"2025-0{1 + i % 9}-{1 + i % 28:02d}T10:00:00Z"}) + "\n" for i in range(1500))
    (tmp_path / "in.jsonl").write_text(data)
    code, seen = on_a_terminal(["memory", "import", "in.jsonl"], tmp_path, env_for())
    assert code == 0, seen[-500:]
    check_bar(frames(seen, "importing memory"), ["reading", "checking entries", "the safety layer",
                                                 "writing day files", "updating the index", "folding the records",
                                                 "recording the history"])
    quiet = subprocess.run([sys.executable, "-m", "okfpro", "memory", "import", "in.jsonl"], cwd=tmp_path,
                           capture_output=True, env=env_for())
    assert quiet.returncode == 0 and b"okfpro: importing" not in quiet.stderr and b"\r" not in quiet.stderr


def test_a_first_ranked_search_shows_every_phase_in_proportion(tmp_path) -> None:
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        from gen_bundle import generate
    finally:
        sys.path.remove(str(ROOT / "bench"))
    generate(tmp_path / "ws", 600)
    code, seen = on_a_terminal(["search", "--engine", "ranked", "ledger", "cache"], tmp_path / "ws",
                               env_for(XDG_CACHE_HOME=str(tmp_path / "cache")))
    assert code == 0, seen[-500:]
    check_bar(frames(seen, "ranked search"), ["reading bundle", "comparing with the index",
                                              "indexing for ranked search", "writing the index"])


@pytest.mark.parametrize("total", [0, 1, 7])
def test_the_helper_outside_a_job_is_a_bar_of_its_own_and_silent_off_a_terminal(total, capsys) -> None:
    from okfpro.io.progress import bar

    b = bar(total, "counting")
    for n in range(1, total + 1):
        b.tick(n)
    b.close()
    assert capsys.readouterr().err == ""
