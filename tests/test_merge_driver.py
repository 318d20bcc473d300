"""Two clones of one workspace, real Git: `git pull` merges the board, log and journal through
`okfpro merge-file` (wired by `okfpro init` / `upgrade`), and the reference reads the result.

Every write goes through okfpro's own verbs (capture, journal open, close), run in the test's process
(tests.helpers.invoke: Git itself starts the merge driver, ``okfpro merge-file``, as a real process); a
Snapshot line is pasted as an agent pastes it (the output of `okfpro snapshot`, appended under the
day).  The origin is a bare repository on disk.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from okfpro.core import board as _board
from okfpro.core import log as _log
from okfpro.io import mergewiring
from tests.helpers import run_okfpro, shared_dir

DAY = "2026-12-01"
RUN_OKF = shared_dir() / "reference-impl" / "run-okf"
HAVE_REFERENCE = RUN_OKF.is_file() and shutil.which("ruby") is not None


def git(cwd: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    proc = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, timeout=120)
    if check and proc.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed: {proc.stdout}{proc.stderr}")
    return proc


def okfpro(cwd: Path, *args: str, ok: bool = True) -> subprocess.CompletedProcess:
    proc = run_okfpro(*args, cwd=cwd, env={"OKFPRO_TODAY": DAY}, process=False)
    if ok:
        assert proc.returncode == 0, (args, proc.stdout, proc.stderr)
    return proc


def paste_snapshot(ws: Path) -> str:
    line = okfpro(ws, "snapshot").stdout.strip()
    log = ws / ".okf" / "log.md"
    log.write_text(_log.add_entry(log.read_text(encoding="utf-8"), DAY, line), encoding="utf-8")
    return line


def commit(ws: Path, message: str) -> None:
    git(ws, "add", "-A")
    git(ws, "commit", "-q", "-m", message)


@pytest.fixture
def clones(tmp_path: Path) -> tuple[Path, Path]:
    """A workspace with two open projects pushed to a bare origin, cloned twice, each clone wired by
    the one documented step (`okfpro upgrade`)."""
    seed = tmp_path / "seed"
    okfpro(tmp_path, "init", str(seed))
    for slug in ("alpha", "beta"):
        project = seed / ".okf" / "projects" / slug
        project.mkdir(parents=True)
        (project / "index.md").write_text(f"# {slug.title()}\n\n* [Plan](plan.md) - how.\n", encoding="utf-8")
        (project / "plan.md").write_text(
            f"---\ntype: Plan\ntitle: {slug} plan\ndescription: How {slug} gets done.\n---\n\n# Plan\n\nSteps.\n",
            encoding="utf-8",
        )
    board = seed / ".okf" / "board.md"
    text = board.read_text(encoding="utf-8")
    text = text.replace("## Backlog\n", "## Backlog\n- alpha work [/projects/alpha/](/projects/alpha/index.md)\n"
                        "- beta work [/projects/beta/](/projects/beta/index.md)\n")
    board.write_text(text, encoding="utf-8")
    commit(seed, "seed")
    git(tmp_path, "clone", "-q", "--bare", str(seed), str(tmp_path / "origin.git"))
    out = []
    for name in ("a", "b"):
        ws = tmp_path / name
        git(tmp_path, "clone", "-q", str(tmp_path / "origin.git"), str(ws))
        assert not mergewiring.check(ws)["ok"]  # a fresh clone: attributes travel, the config does not
        okfpro(tmp_path, "upgrade", str(ws))
        row = mergewiring.check(ws)
        assert row["ok"], row
        out.append(ws)
    return out[0], out[1]


def lines_of(path: Path) -> Counter:
    return Counter(path.read_text(encoding="utf-8").splitlines())


def work_a_day(ws: Path, captures: list[str], journal: str, close: str) -> None:
    """Captures, today's journal opened and written in, a project closed (logged), the Snapshot pasted."""
    for text in captures:
        okfpro(ws, "capture", "--", text)
    okfpro(ws, "journal", "open")
    day = ws / ".okf" / "journal" / f"{DAY}.md"
    day.write_text(day.read_text(encoding="utf-8") + f"\n{journal}\n", encoding="utf-8")
    okfpro(ws, "close", close)
    paste_snapshot(ws)
    commit(ws, f"{ws.name}'s day")


def test_two_clones_capture_journal_and_log_the_same_day_and_pull_merges_everything(clones) -> None:
    a, b = clones
    rels = (".okf/board.md", ".okf/log.md", f".okf/journal/{DAY}.md", ".okf/journal/index.md")
    base = {rel: lines_of(a / rel) if (a / rel).exists() else Counter() for rel in rels}
    work_a_day(a, ["call the insurer", "book the hall"], "Alice: the insurer wants the form.", "alpha")
    git(a, "push", "-q", "origin", "HEAD")
    work_a_day(b, ["renew the domain"], "Bob: the domain renews in March.", "beta")
    sides = {rel: (lines_of(a / rel), lines_of(b / rel)) for rel in rels}

    pull = pull_today(b, "--no-rebase")
    assert pull.returncode == 0, pull.stdout + pull.stderr
    assert git(b, "status", "--porcelain").stdout == ""
    for rel, (mine, theirs) in sides.items():
        merged = lines_of(b / rel)
        for line in (mine - base[rel]) | (theirs - base[rel]):  # every line either side added
            assert merged[line] >= 1, (rel, line)
        assert not any(x.startswith(("<<<<<<<", ">>>>>>>")) for x in merged), rel
    board = _board.parse((b / ".okf" / "board.md").read_text(encoding="utf-8"))
    assert [r.text.split(" — ", 1)[1] for r in board.section("Inbox")] == [
        "call the insurer", "book the hall", "renew the domain"]
    assert board.section("Backlog") == []  # each side closed one project: both board lines gone
    assert _board.grammar(board) == [] and _board.cap_check(board) == []
    log = _log.parse((b / ".okf" / "log.md").read_text(encoding="utf-8"))
    assert log.days == [DAY]
    day = (b / ".okf" / "journal" / f"{DAY}.md").read_text(encoding="utf-8")
    assert day.count("type: Journal Entry") == 1 and "Alice:" in day and "Bob:" in day
    # the Snapshot recomputed after the merge counts both sides' work; both logged lines are kept,
    # and the pull itself said that today's line no longer agrees, with the line to append
    line = okfpro(b, "snapshot").stdout.strip()
    assert "inbox 3 (oldest 0d)" in line and "projects with 0 concepts 0" in line
    assert sum(1 for x in log.lines if _log.is_snapshot_line(x)) == 2
    said = pull.stderr
    assert f"okfpro: this merge changed .okf/, and log.md's Snapshot line for {DAY} no longer agrees" in said
    assert "inbox is 3, the line says" in said and f"\n  {line}\n" in said
    # the Stop gate closes a clean tree in silence: without the hook nobody would have been told
    assert stop_gate(b).returncode == 0
    journal = b / ".okf" / "journal" / f"{DAY}.md"
    journal.write_text(journal.read_text(encoding="utf-8") + "\nMerged Alice's day.\n", encoding="utf-8")
    stale = stop_gate(b)  # once a session writes, the gate finds the stale line the hook spoke of
    assert stale.returncode == 2 and "inbox is 3" in stale.stderr, stale.stderr
    paste_snapshot(b)
    stop = stop_gate(b)  # a session that wrote: the gate checks today's line, which now agrees
    assert stop.returncode == 0, stop.stderr
    commit(b, "snapshot after the merge")
    for verb in ("validate", "lint"):
        okfpro(b, verb, ".okf")
    okfpro(b, "audit")  # board grammar, cap, today's Snapshot line right, lint warnings: all clean
    if HAVE_REFERENCE:
        for verb in ("validate", "lint"):
            ref = subprocess.run([str(RUN_OKF), verb, ".okf"], cwd=b, capture_output=True, text=True, timeout=120)
            assert ref.returncode == 0, (verb, ref.stdout, ref.stderr)
    # and the other way round: alice pulls bob's merge and both clones hold the same tree
    git(b, "push", "-q", "origin", "HEAD")
    again = pull_today(a, "--no-rebase")
    assert again.returncode == 0 and "okfpro:" not in again.stderr  # today's line agrees: nothing to say
    assert git(a, "rev-parse", "HEAD^{tree}").stdout == git(b, "rev-parse", "HEAD^{tree}").stdout


def test_a_rebasing_pull_also_says_when_todays_snapshot_line_went_stale(clones) -> None:
    a, b = clones
    work_a_day(a, ["call the insurer"], "Alice.", "alpha")
    git(a, "push", "-q", "origin", "HEAD")
    work_a_day(b, ["renew the domain", "book the hall"], "Bob.", "beta")
    pull = pull_today(b, "--rebase")
    assert pull.returncode == 0, pull.stdout + pull.stderr
    assert f"log.md's Snapshot line for {DAY} no longer agrees" in pull.stderr
    assert okfpro(b, "snapshot").stdout.strip() in pull.stderr


def test_the_after_merge_hooks_leave_an_owners_hook_alone_and_are_idempotent(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    git(ws, "init", "-q")
    own = ws / ".git" / "hooks" / "post-merge"
    own.parent.mkdir(parents=True, exist_ok=True)
    own.write_text("#!/bin/sh\necho mine\n", encoding="utf-8")
    proc = okfpro(tmp_path, "init", str(ws))
    assert "After-merge hook not written:" in proc.stdout and "post-merge is your own hook" in proc.stdout
    assert own.read_text(encoding="utf-8") == "#!/bin/sh\necho mine\n"
    rewrite = ws / ".git" / "hooks" / "post-rewrite"
    assert mergewiring.HOOK_MARK in rewrite.read_text(encoding="utf-8") and os.access(rewrite, os.X_OK)
    before = rewrite.stat().st_mtime_ns
    okfpro(tmp_path, "upgrade", str(ws))
    assert rewrite.stat().st_mtime_ns == before  # unchanged: not rewritten
    git(ws, "config", "core.hooksPath", ".husky")
    assert "core.hooksPath is set" in okfpro(tmp_path, "upgrade", str(ws)).stdout
    assert not (ws / ".husky").exists()


def pull_today(ws: Path, how: str) -> subprocess.CompletedProcess:
    """`git pull` with okfpro's day pinned for the after-merge hook Git runs."""
    return subprocess.run(["git", "pull", how, "--no-edit", "origin", "HEAD"], cwd=ws, capture_output=True, text=True,
                          timeout=120, env={**os.environ, "OKFPRO_TODAY": DAY})


def stop_gate(ws: Path) -> subprocess.CompletedProcess:
    event = json.dumps({"hook_event_name": "Stop", "cwd": str(ws), "stop_hook_active": False})
    return run_okfpro("hook", "stop", cwd=ws, stdin=event, env={"OKFPRO_TODAY": DAY})


def test_a_into_b_and_b_into_a_give_the_same_tree(clones) -> None:
    a, b = clones
    work_a_day(a, ["call the insurer", "book the hall"], "Alice: the insurer wants the form.", "alpha")
    work_a_day(b, ["renew the domain"], "Bob: the domain renews in March.", "beta")
    git(a, "branch", "alices-day")
    git(b, "branch", "bobs-day")
    git(a, "pull", "-q", "--no-rebase", "--no-edit", str(b), "bobs-day")
    git(b, "pull", "-q", "--no-rebase", "--no-edit", str(a), "alices-day")
    assert git(a, "rev-parse", "HEAD^{tree}").stdout == git(b, "rev-parse", "HEAD^{tree}").stdout
    assert git(a, "rev-parse", "HEAD").stdout != git(b, "rev-parse", "HEAD").stdout  # two merges, one result


def test_the_same_card_edited_two_ways_is_a_real_conflict(clones) -> None:
    a, b = clones
    for ws, words in ((a, "alpha work, this week"), (b, "alpha work, next month")):
        board = ws / ".okf" / "board.md"
        board.write_text(board.read_text(encoding="utf-8").replace("alpha work", words), encoding="utf-8")
        okfpro(ws, "capture", "--", f"note from {ws.name}")
        commit(ws, "edit the card")
    git(a, "push", "-q", "origin", "HEAD")
    pull = git(b, "pull", "--no-rebase", "--no-edit", "origin", "HEAD", check=False)
    assert pull.returncode != 0
    assert "okfpro merge-file: .okf/board.md: 1 conflict(s)" in pull.stderr + pull.stdout
    assert "UU .okf/board.md" in git(b, "status", "--porcelain").stdout
    text = (b / ".okf" / "board.md").read_text(encoding="utf-8").splitlines()
    start = next(i for i, x in enumerate(text) if x.startswith("<<<<<<< "))
    assert text[start + 1 : start + 4] == [
        "- alpha work, next month [/projects/alpha/](/projects/alpha/index.md)", "=======",
        "- alpha work, this week [/projects/alpha/](/projects/alpha/index.md)"]
    # the captures around the conflict merged cleanly all the same
    assert "- 2026-12-01 — note from a" in text and "- 2026-12-01 — note from b" in text


def test_crlf_on_one_side_merges_line_by_line(clones) -> None:
    a, b = clones
    okfpro(a, "capture", "--", "from windows")
    board = a / ".okf" / "board.md"
    board.write_bytes(board.read_bytes().replace(b"\n", b"\r\n"))
    commit(a, "crlf")
    git(a, "push", "-q", "origin", "HEAD")
    okfpro(b, "capture", "--", "from linux")
    commit(b, "lf")
    pull = git(b, "pull", "--no-rebase", "--no-edit", "origin", "HEAD", check=False)
    assert pull.returncode == 0, pull.stdout + pull.stderr
    data = (b / ".okf" / "board.md").read_bytes()
    assert b"from windows\r\n" in data and b"from linux\r\n" in data and data.count(b"\n") == data.count(b"\r\n")


def test_a_log_outside_the_grammar_falls_back_to_gits_text_merge_and_keeps_every_line(clones) -> None:
    a, b = clones
    okfpro(a, "close", "alpha")
    commit(a, "close alpha")
    git(a, "push", "-q", "origin", "HEAD")
    log = b / ".okf" / "log.md"
    log.write_text(log.read_text(encoding="utf-8") + "\n## 2026-13-45\n\n* bob's entry under a bad date\n", encoding="utf-8")
    commit(b, "bad heading")
    before = lines_of(a / ".okf" / "log.md") | lines_of(log)
    pull = git(b, "pull", "--no-rebase", "--no-edit", "origin", "HEAD", check=False)
    assert "not a calendar date; Git's text merge decides instead" in pull.stderr + pull.stdout
    merged = lines_of(log)
    for line in before:
        assert merged[line] >= 1, line


def test_the_driver_refuses_missing_or_unreadable_paths_and_leaves_ours_untouched(tmp_path: Path) -> None:
    ours = tmp_path / "ours"
    ours.write_bytes(b"- keep me\n")
    theirs = tmp_path / "theirs"
    theirs.write_text("x\n")
    folder = tmp_path / "folder"
    folder.mkdir()
    cases = [
        [str(tmp_path / "missing"), str(ours), str(theirs), "board.md"],
        [str(folder), str(ours), str(theirs), "board.md"],
        [str(theirs), str(ours), str(tmp_path / "gone"), "log.md"],
        [str(theirs), str(tmp_path / "nowhere"), str(theirs)],
        [str(theirs), str(ours)],
        ["--marker-size", "x", str(theirs), str(ours), str(theirs)],
    ]
    for args in cases:
        proc = subprocess.run([sys.executable, "-m", "okfpro", "merge-file", *args], capture_output=True, text=True)
        assert proc.returncode == 2, (args, proc.stderr)
        assert proc.stderr.startswith("okfpro merge-file: ") and proc.stdout == ""
        assert ours.read_bytes() == b"- keep me\n"
    assert sorted(os.listdir(tmp_path)) == ["folder", "ours", "theirs"]  # no temp file left behind


def test_a_huge_log_merges_through_the_driver(tmp_path: Path) -> None:
    body = "".join(f"## 2026-{1 + i // 28:02d}-{1 + i % 28:02d}\n\n* entry {i}\n\n" for i in range(300))
    base = "# Log\n\n" + "".join(reversed(body.split("## ")))
    blocks = [f"## 2025-{m:02d}-{d:02d}\n\n" + "".join(f"* line {m} {d} {k}\n" for k in range(30)) + "\n"
              for m in range(12, 0, -1) for d in range(28, 0, -1)]
    base = "# Log\n\n" + "".join(blocks)  # 336 days, ~11,000 lines
    files = {"o": base, "a": base.replace("# Log\n\n", f"# Log\n\n## {DAY}\n\n* mine\n\n"),
             "b": base.replace("# Log\n\n", f"# Log\n\n## {DAY}\n\n* theirs\n\n")}
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "okfpro", "merge-file", "o", "a", "b", ".okf/log.md"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    merged = (tmp_path / "a").read_text(encoding="utf-8")
    assert merged.startswith(f"# Log\n\n## {DAY}\n\n* mine\n* theirs\n\n## 2025-12-28\n")
    assert len(merged.splitlines()) == len(base.splitlines()) + 5


def test_init_keeps_existing_gitattributes_lines_and_is_idempotent(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    git(ws, "init", "-q")
    (ws / ".gitattributes").write_text("*.png binary\n.okf/board.md -diff\n", encoding="utf-8")
    okfpro(tmp_path, "init", str(ws))
    text = (ws / ".gitattributes").read_text(encoding="utf-8")
    assert text.startswith("*.png binary\n.okf/board.md -diff\n")
    for line in mergewiring.attribute_lines():
        assert text.count(line) == 1
    config = git(ws, "config", "--get", "merge.okfpro.driver").stdout.strip()
    assert config == mergewiring.driver_command(os.path.abspath(sys.executable))
    okfpro(tmp_path, "init", str(ws))
    okfpro(tmp_path, "upgrade", str(ws))
    assert (ws / ".gitattributes").read_text(encoding="utf-8") == text
    assert git(ws, "check-attr", "merge", "diff", "--", ".okf/board.md").stdout.splitlines() == [
        ".okf/board.md: merge: okfpro", ".okf/board.md: diff: unset"]


def test_conflict_labels_and_the_diff3_style_through_a_real_pull(clones) -> None:
    a, b = clones
    for ws, words in ((a, "alpha work, this week"), (b, "alpha work, next month")):
        board = ws / ".okf" / "board.md"
        board.write_text(board.read_text(encoding="utf-8").replace("alpha work", words), encoding="utf-8")
        commit(ws, "edit the card")
    git(a, "push", "-q", "origin", "HEAD")
    git(b, "config", "merge.conflictStyle", "diff3")
    pull = git(b, "pull", "--no-rebase", "--no-edit", "origin", "HEAD", check=False)
    assert pull.returncode != 0 and "okfpro merge-file: .okf/board.md: 1 conflict(s)" in pull.stderr + pull.stdout
    text = (b / ".okf" / "board.md").read_text(encoding="utf-8").splitlines()
    start = next(i for i, x in enumerate(text) if x.startswith("<<<<<<< "))
    hunk = text[start : start + 7]
    assert [x[:8] for x in hunk[::2]] == ["<<<<<<< ", "||||||| ", "=======", ">>>>>>> "]
    assert hunk[1] == "- alpha work, next month [/projects/alpha/](/projects/alpha/index.md)"
    assert hunk[3] == "- alpha work [/projects/alpha/](/projects/alpha/index.md)"  # the base's line
    assert hunk[5] == "- alpha work, this week [/projects/alpha/](/projects/alpha/index.md)"
    labels = [hunk[0][8:], hunk[2][8:], hunk[6][8:]]
    assert not any("%" in x for x in labels)  # Git's placeholders never reach the markers
    git_version = tuple(int(x) for x in git(b, "version").stdout.split()[2].split(".")[:2])
    if git_version < (2, 44):
        assert labels == ["ours", "base", "theirs"]  # no branch labels from this Git
    else:
        assert labels[0] != "ours" and labels[2] != "theirs", labels


def test_labels_given_are_used_and_placeholders_are_not(tmp_path: Path) -> None:
    from okfpro.io import mergedriver

    assert mergedriver.labels_of(["%X", "%S", "%Y"]) == ("ours", "base", "theirs")
    assert mergedriver.labels_of(["HEAD", "merged common\nancestors", "origin/main"]) == (
        "HEAD", "merged common ancestors", "origin/main")
    base = "# Board\n\n## Inbox\n- 2026-12-01 — x\n"
    for name, text in (("o", base), ("a", base.replace("— x", "— x, mine")), ("b", base.replace("— x", "— x, yours"))):
        (tmp_path / name).write_text(text, encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "okfpro", "merge-file", "-L", "HEAD", "-L", "%S", "-L", "feature/b",
                           "o", "a", "b", "board.md"], cwd=tmp_path, capture_output=True, text=True)
    assert proc.returncode == 1, proc.stderr
    got = (tmp_path / "a").read_text(encoding="utf-8").splitlines()
    assert "<<<<<<< HEAD" in got and ">>>>>>> feature/b" in got


def test_the_driver_imports_neither_click_nor_yaml(tmp_path: Path) -> None:
    """Git starts the driver once per file: its path stays light (pinned here, measured in bench/)."""
    base = "# Board\n\n**In flight: 0/5**\n\n## In flight\n\n## Inbox\n- 2026-12-01 — x\n- 2026-12-01 — y\n"
    sides = {"o": base, "a": base.replace("— x", "— x, mine"), "b": base.replace("— x", "— x, yours")}
    for name, text in sides.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    proc = subprocess.run([sys.executable, "-X", "importtime", "-P", "-m", "okfpro", "merge-file", "o", "a", "b",
                           ".okf/board.md"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1  # a conflict: the conflict-style lookup is on the path too
    imported = {line.split("|")[-1].strip() for line in proc.stderr.splitlines() if line.startswith("import time:")}
    assert "okfpro.core.cardmoves" in imported and "okfpro.core.filemerge" in imported
    heavy = sorted(m for m in imported if m.split(".")[0] in ("click", "yaml", "ruamel", "_ruamel_yaml"))
    assert heavy == [], heavy
