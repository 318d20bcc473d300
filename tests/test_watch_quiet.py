"""A kept bundle stays kept while nothing changes, however the watcher's queue overflows — and every
change made meanwhile is still seen on the next call.

The 50,000-concept bug: a read of every file of a bundle queues four inotify events per file
(its open and close, and its directory's echo of each), so a bundle larger than a quarter of
``fs.inotify.max_queued_events`` overflows the queue on okfpro's own first read (or anyone's
``grep -r``); the watcher then answers "unknown" and the server re-read the whole bundle on every
call.  Here the queue is overflowed the same way — by reads that change nothing — on a small bundle,
and the oracle for every change is a fresh read (``io.bundle.load``).  Loads are counted by wrapping
``okfpro.io.bundle.load``, the one door the kept bundle re-reads through."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest

import okfpro.io.bundle as bundle_mod
from okfpro.io import cache
from okfpro.mcp.watch import Warm

pytestmark = pytest.mark.skipif(os.uname().sysname != "Linux", reason="inotify is Linux's")

CONCEPT = "---\ntype: Learning\ntitle: {title}\n---\n\n# {title}\n\n{body}\n"
GITENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}
WINDOW_NS = 50_000_000  # the parse cache's racy window, shortened so a test need not wait two seconds


def git(cwd: Path, *args: str) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")} | GITENV
    subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True)


def queue_limit() -> int:
    with open("/proc/sys/fs/inotify/max_queued_events") as fh:
        return int(fh.read())


def flood(root: Path) -> None:
    """Overflow the watcher's queue by reading the bundle's files, changing nothing."""
    files = sorted(root.rglob("*.md"))
    for i in range(queue_limit() // 4 + 64):
        with open(files[i % len(files)], "rb") as fh:
            fh.read(1)


def bodies(bundle) -> dict[str, str]:
    return {c.id: c.body for c in bundle.concepts}


def write_bundle(root: Path, n: int) -> None:
    for i in range(n):
        sub = root / "learnings" / f"g{i % 3}"
        sub.mkdir(parents=True, exist_ok=True)
        (sub / f"c{i}.md").write_text(CONCEPT.format(title=f"Concept {i}", body=f"body {i:04d}"), encoding="utf-8")


@pytest.fixture()
def loads(monkeypatch):
    """Every read of the kept bundle, counted."""
    count = [0]
    real = bundle_mod.load

    def counted(*args, **kwargs):
        count[0] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(bundle_mod, "load", counted)
    monkeypatch.setattr(cache, "RACY_NS", WINDOW_NS)
    return count


@pytest.fixture()
def kept(tmp_path: Path, loads):
    """A bundle of 12 concepts in a git work tree, older than the racy window, kept by a watched Warm."""
    root = tmp_path / "repo" / ".okf"
    write_bundle(root, 12)
    git(root.parent, "init", "-q")
    git(root.parent, "add", "-A")
    git(root.parent, "commit", "-qm", "init")
    time.sleep(2 * WINDOW_NS / 1e9)
    warm = Warm(root)
    assert warm.mode == "inotify", warm.why
    yield root, warm
    warm.close()


def agrees(root: Path, warm: Warm) -> None:
    assert bodies(warm.bundle()) == bodies(bundle_mod.load(root))


def test_reads_that_overflow_the_queue_leave_the_kept_bundle_kept(kept, loads) -> None:
    root, warm = kept
    first = warm.bundle()
    assert loads[0] == 1
    for _ in range(3):
        flood(root)
        warm._watch.drain()
        assert warm._watch.changes_since(root, warm._token) is None  # the watcher does not know
        assert warm.bundle() is first  # ... and the files say nothing changed
    assert warm.bundle() is first and loads[0] == 1 and warm.checks == 3
    # an edit after that is seen, by the watcher alone
    with open(root / "learnings" / "g0" / "c0.md", "a", encoding="utf-8") as fh:
        fh.write("appended\n")
    assert bodies(warm.bundle())["learnings/g0/c0"].strip().endswith("appended")
    assert loads[0] == 2 and warm.checks == 3


def _edit(root: Path) -> None:
    with open(root / "learnings" / "g1" / "c1.md", "a", encoding="utf-8") as fh:
        fh.write("appended\n")


def _same_size(root: Path) -> None:
    path = root / "learnings" / "g1" / "c4.md"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("body 0004", "body 9999"), encoding="utf-8")


def _delete(root: Path) -> None:
    (root / "learnings" / "g2" / "c5.md").unlink()


def _rename(root: Path) -> None:
    os.rename(root / "learnings" / "g2" / "c8.md", root / "learnings" / "g2" / "moved.md")


def _swap(root: Path) -> None:  # two files trade names: every name, size and count stays
    g = root / "learnings" / "g0"
    os.rename(g / "c3.md", g / "tmp")
    os.rename(g / "c6.md", g / "c3.md")
    os.rename(g / "tmp", g / "c6.md")


def _new_file(root: Path) -> None:
    (root / "learnings" / "g0" / "new.md").write_text(CONCEPT.format(title="New", body="new"), encoding="utf-8")


def _new_dir(root: Path) -> None:
    (root / "projects" / "p").mkdir(parents=True)
    (root / "projects" / "p" / "n.md").write_text(CONCEPT.format(title="Deep", body="deep"), encoding="utf-8")


def _dir_away(root: Path) -> None:
    os.rename(root / "learnings" / "g1", root.parent / "g1-away")


def _atomic_save(root: Path) -> None:
    tmp = root / "learnings" / "g0" / ".c9.md.swp"
    tmp.write_text(CONCEPT.format(title="Concept 9", body="body 0009"), encoding="utf-8")  # same text
    os.replace(tmp, root / "learnings" / "g0" / "c9.md")


@pytest.mark.parametrize("change", [_edit, _same_size, _delete, _rename, _swap, _new_file, _new_dir, _dir_away,
                                    _atomic_save], ids=lambda f: f.__name__.strip("_"))
def test_a_change_lost_in_an_overflow_is_still_seen(kept, loads, change) -> None:
    """The queue is full before the change is made: its events are dropped, the watcher can only say
    "unknown", and the files' identities must tell."""
    root, warm = kept
    first = warm.bundle()
    flood(root)
    change(root)
    flood(root)
    again = warm.bundle()
    assert again is not first and loads[0] == 2
    assert bodies(again) == bodies(bundle_mod.load(root))
    assert warm.bundle() is again  # and kept again after it


def test_files_inside_the_racy_window_are_never_vouched_for(tmp_path: Path, loads) -> None:
    """A file written right before the read could change again within one timestamp tick, unseen by
    its identity: the kept bundle is then re-read on "unknown", not trusted."""
    root = tmp_path / "b"
    write_bundle(root, 3)
    warm = Warm(root)
    try:
        first = warm.bundle()  # read at once: every file inside the window
        flood(root)
        assert warm.bundle() is not first and loads[0] == 2 and warm.checks == 1
        assert bodies(warm.bundle()) == bodies(bundle_mod.load(root))
    finally:
        warm.close()


@pytest.mark.parametrize("overflow", [False, True], ids=["watched", "overflowed"])
def test_a_git_pull_of_many_files_is_seen(kept, loads, tmp_path: Path, overflow: bool) -> None:
    root, warm = kept
    upstream = tmp_path / "upstream"
    git(tmp_path, "clone", "-q", str(root.parent), str(upstream))
    write_bundle(upstream / ".okf", 40)  # 12 rewritten, 28 new
    (upstream / ".okf" / "learnings" / "g2" / "c2.md").unlink()
    git(upstream, "add", "-A")
    git(upstream, "commit", "-qm", "many")
    first = warm.bundle()
    if overflow:
        flood(root)
    git(root.parent, "pull", "-q", str(upstream), "HEAD")
    if overflow:
        flood(root)
    pulled = warm.bundle()
    assert pulled is not first and len(pulled.concepts) == 39
    assert bodies(pulled) == bodies(bundle_mod.load(root))


def test_without_a_watcher_an_unchanged_bundle_is_kept_and_a_change_is_read(kept, loads) -> None:
    root, _ = kept
    plain = Warm(root, watch=False)
    first = plain.bundle()
    assert plain.bundle() is first and plain.bundle() is first and loads[0] == 1
    _same_size(root)
    agrees(root, plain)
    assert loads[0] == 3  # the warm read, and the oracle's
