"""The MCP server's warm bundle (okfpro/mcp/watch.py) on okfpro's one file watcher: it answers the kept
bundle only when nothing that can change it changed, and re-reads on every way a bundle can change —
including those a directory watch alone misses (a write through a hard link from outside the bundle,
a symlink's target).  Real files, real git, the real inotify watcher; the oracle is a fresh read."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from okfpro.io.bundle import load
from okfpro.mcp.watch import Warm

pytestmark = pytest.mark.skipif(not hasattr(os, "pipe2") or os.uname().sysname != "Linux", reason="inotify is Linux's")

CONCEPT = "---\ntype: Learning\ntitle: {title}\n---\n\n# {title}\n\n{body}\n"


def bodies(bundle) -> dict[str, str]:
    return {c.id: c.body for c in bundle.concepts}


@pytest.fixture()
def bundle(tmp_path: Path):
    root = tmp_path / "repo" / ".okf"
    (root / "learnings").mkdir(parents=True)
    (root / "learnings" / "a.md").write_text(CONCEPT.format(title="Alpha", body="first"), encoding="utf-8")
    (root / "learnings" / "b.md").write_text(CONCEPT.format(title="Beta", body="second"), encoding="utf-8")
    repo = root.parent
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    warm = Warm(root)
    assert warm.mode == "inotify", warm.why
    yield root, warm
    warm.close()


def agrees(root: Path, warm: Warm) -> None:
    assert bodies(warm.bundle()) == bodies(load(root))


def test_nothing_changed_is_the_kept_bundle_and_every_change_is_a_reread(bundle, tmp_path: Path) -> None:
    root, warm = bundle
    first = warm.bundle()
    assert warm.bundle() is first and warm.reloads == 1  # nothing changed: the kept one, no read

    # changes the reader cannot see leave it kept: hidden names, the git state
    (root / ".obsidian").mkdir()
    (root / ".obsidian" / "workspace.json").write_text("{}", encoding="utf-8")
    (root / ".draft.md").write_text(CONCEPT.format(title="Hidden", body="x"), encoding="utf-8")
    subprocess.run(["git", "-C", str(root.parent), "add", "-A"], check=True)
    assert warm.bundle() is first and warm.reloads == 1

    # in place, same inode
    with open(root / "learnings" / "a.md", "a", encoding="utf-8") as fh:
        fh.write("appended\n")
    agrees(root, warm)
    # an editor's atomic save (hidden temporary, renamed over)
    tmp = root / "learnings" / ".a.md.tmp"
    tmp.write_text(CONCEPT.format(title="Alpha", body="replaced"), encoding="utf-8")
    os.replace(tmp, root / "learnings" / "a.md")
    agrees(root, warm)
    # a new directory, then a file inside it, then a change of that file
    deep = root / "projects" / "new" / "deeper"
    deep.mkdir(parents=True)
    (deep / "note.md").write_text(CONCEPT.format(title="Quokka", body="quokka"), encoding="utf-8")
    agrees(root, warm)
    (deep / "note.md").write_text(CONCEPT.format(title="Quokka", body="wombat"), encoding="utf-8")
    agrees(root, warm)
    # a deletion, and a directory renamed away
    (root / "learnings" / "b.md").unlink()
    agrees(root, warm)
    os.rename(root / "projects", tmp_path / "elsewhere")
    agrees(root, warm)
    assert "projects/new/deeper/note" not in bodies(warm.bundle())


def test_a_write_through_a_hard_link_from_outside_the_bundle_is_seen(bundle, tmp_path: Path) -> None:
    root, warm = bundle
    outside = tmp_path / "outside.md"
    os.link(root / "learnings" / "a.md", outside)
    assert bodies(warm.bundle())["learnings/a"].strip().endswith("first")
    with open(outside, "w", encoding="utf-8") as fh:  # no event in any directory of the bundle
        fh.write(CONCEPT.format(title="Alpha", body="through the link"))
    assert bodies(warm.bundle())["learnings/a"].strip().endswith("through the link")


def test_a_symlinks_target_is_never_taken_as_unchanged(bundle) -> None:
    root, warm = bundle
    (root / ".targets").mkdir()
    target = root / ".targets" / "c.md"
    target.write_text(CONCEPT.format(title="Gamma", body="one"), encoding="utf-8")
    (root / "learnings" / "c.md").symlink_to(target)
    agrees(root, warm)
    target.write_text(CONCEPT.format(title="Gamma", body="two"), encoding="utf-8")  # a hidden path: only the link says
    assert bodies(warm.bundle())["learnings/c"].strip().endswith("two")


def test_a_root_replaced_is_watched_again(bundle, tmp_path: Path) -> None:
    root, warm = bundle
    warm.bundle()
    os.rename(root, tmp_path / "old-okf")
    (root / "learnings").mkdir(parents=True)
    (root / "learnings" / "z.md").write_text(CONCEPT.format(title="Zulu", body="new root"), encoding="utf-8")
    agrees(root, warm)
    assert warm.mode == "inotify"
    kept = warm.reloads
    assert set(bodies(warm.bundle())) == {"learnings/z"} and warm.reloads == kept  # watched again: kept
    (root / "learnings" / "z.md").write_text(CONCEPT.format(title="Zulu", body="edited"), encoding="utf-8")
    agrees(root, warm)


def test_without_a_watch_a_bundle_just_written_is_read_on_every_call(bundle) -> None:
    """Without a watch each call checks the files; one written within the racy window is never
    vouched for, so it is read again (tests/test_watch_quiet.py: an older, unchanged one is kept)."""
    root, _warm = bundle
    for path in Path(root).rglob("*.md"):
        os.utime(path)  # just written, whatever the machine's speed since the fixture made it
    plain = Warm(root, watch=False)
    assert plain.mode == "reload-per-call"
    plain.bundle()
    plain.bundle()
    assert plain.reloads == 2
