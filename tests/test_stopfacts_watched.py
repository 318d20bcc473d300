"""The Stop gate's briefings, projects and board-link entries, narrowed: always the fresh answer.

* :func:`okfpro.io.stopfacts.briefings` with a resident watch view (a real WatchSet, real inotify)
  keeps the briefings at the view's token and re-reads only what changed under ``reference/``
  since; after random edits, renames, deletes, directories made, moved in, moved out and replaced,
  symlinks, hidden names and case variants, it must equal a fresh read every time.
* :func:`okfpro.io.stopfacts.projects` with a view reads again only the projects holding a change;
  after random index rewrites (closed, not closed, negated), concepts added and removed deep down,
  projects made, removed, renamed, hidden, linked, replaced by a file, and ``projects`` itself
  replaced, it must equal :func:`okfpro.io.workstate.projects` every time.
* :func:`okfpro.io.workstate.present_entries` answers for the board's links from the directories
  on their way; it must equal the whole bundle's listing (:func:`okfpro.io.workstate.all_entries`)
  compared in lower case, over random trees with case variants, hidden names, links to directories
  and files, dangling links and names that lower-case to another.
"""

from __future__ import annotations

import os
import random
import shutil
import sys
from pathlib import Path

import pytest

import okfpro.resident as resident
from okfpro.io import workstate
from okfpro.io.stopfacts import briefings, projects
from tests.helpers import quick

sys.path.insert(0, str(Path(__file__).resolve().parent))
import watchkit  # noqa: E402
from test_stop_briefings import GENERATED, HUMAN, MACHINE, briefings_everywhere, concept  # noqa: E402


@pytest.fixture
def ws():
    yield from watchkit.watchset()


def fresh(root: Path) -> list:
    assert resident.SERVED is None
    return briefings(str(root))


def viewed(ws, root: Path) -> list:
    with watchkit.served(ws):
        return briefings(str(root))


KINDS = ("", GENERATED, GENERATED + HUMAN, GENERATED + MACHINE, HUMAN)


def random_step(rng: random.Random, root: Path, outside: Path, n: int) -> None:
    try:
        _step(rng, root, outside, n)
    except OSError:
        pass  # an operation the tree does not allow now (a rename over a filled directory): none


def _step(rng: random.Random, root: Path, outside: Path, n: int) -> None:
    ref = root / "reference"
    if not ref.is_dir() or ref.is_symlink():
        if ref.is_symlink() or ref.exists():
            ref.unlink() if not ref.is_dir() or ref.is_symlink() else shutil.rmtree(ref)
        ref.mkdir()
    dirs = [ref] + sorted(p for p in ref.rglob("*") if p.is_dir() and not p.is_symlink())
    files = sorted(p for p in ref.rglob("*") if (p.is_file() or p.is_symlink()) and not p.is_dir())
    where = rng.choice(dirs)
    op = rng.randrange(20)
    name = rng.choice(["a", "B", "b", "c-d", ".hid", "deep"]) + f"{n % 3}"
    if op <= 3:
        concept(where / f"{name}.md", f"T{n}", rng.choice(KINDS))
    elif op == 4 and files:
        t = rng.choice(files)
        if not t.is_symlink():
            concept(t, f"R{n}", rng.choice(KINDS))  # rewritten in place
    elif op == 5 and files:
        rng.choice(files).unlink()
    elif op == 6 and files:
        t = rng.choice(files)
        t.rename(rng.choice(dirs) / f"{name}.md")  # renamed, maybe over another
    elif op == 7:
        d = where / name
        if not d.exists():
            d.mkdir()
            concept(d / "in.md", f"In{n}", rng.choice(KINDS))
    elif op == 8 and len(dirs) > 1:
        shutil.rmtree(rng.choice(dirs[1:]))
    elif op == 9 and len(dirs) > 1:
        d = rng.choice(dirs[1:])
        target = rng.choice(dirs) / f"{name}-moved"
        if not target.exists() and target.parent != d and d not in target.parents:
            d.rename(target)  # a directory moved within reference/
    elif op == 10:
        held = outside / f"held-{n}"
        concept(held / "x.md", f"Held{n}", GENERATED)
        concept(held / "sub" / "y.md", f"HeldY{n}", GENERATED + HUMAN)
        held.rename(where / f"{name}-in")  # a filled directory moved in
    elif op == 11 and len(dirs) > 1:
        rng.choice(dirs[1:]).rename(outside / f"away-{n}")  # moved out
    elif op == 12 and files:
        t = rng.choice(files)
        if not (where / f"{name}-link.md").exists():
            (where / f"{name}-link.md").symlink_to(t)  # a link inside
    elif op == 13:
        far = outside / f"far-{n}.md"
        concept(far, f"Far{n}", GENERATED)
        if not (where / f"{name}-far.md").exists():
            (where / f"{name}-far.md").symlink_to(far)  # a link out: escapes, never read
    elif op == 14:
        far = outside / "fardir"
        concept(far / "z.md", "Z", GENERATED)
        if not (where / f"{name}-dl").exists():
            (where / f"{name}-dl").symlink_to(far, target_is_directory=True)  # a linked directory: not entered
    elif op == 15 and files:
        t = rng.choice(files)
        if t.is_file() and not t.is_symlink():
            t.write_text("---\ntitle: [unclosed\n---\n")  # no longer a concept
    elif op == 16 and len(dirs) > 1:
        d = rng.choice(dirs[1:])
        shutil.rmtree(d)
        concept(d, f"Was a dir {n}", GENERATED)  # a directory replaced by a file of its name
        d.rename(d.with_name(d.name + ".md")) if not d.with_name(d.name + ".md").exists() else d.unlink()
    elif op == 17:
        concept(where / f"{name}.md", f"Id{n}", GENERATED + "id: elsewhere/declared\n")  # not a briefing by id
    elif op == 18 and rng.random() < 0.3:
        stash = outside / f"ref-{n}"
        ref.rename(stash)  # reference/ itself replaced
        ref.mkdir()
        concept(ref / "fresh.md", "Fresh", GENERATED)
    else:
        pass


@pytest.mark.parametrize("seed", range(2 if quick() else 6))
def test_briefings_with_a_view_always_equal_a_fresh_read(ws, tmp_path, seed):
    rng = random.Random(seed)
    root = tmp_path / "bundle"
    outside = tmp_path / "outside"
    outside.mkdir()
    briefings_everywhere(root, outside)
    ws.add(str(root))
    narrowed = 0
    for n in range(50 if quick() else 120):
        random_step(rng, root, outside, n)
        if rng.random() < 0.8:
            got = viewed(ws, root)
            assert got == fresh(root), n
            narrowed += 1
    assert narrowed


def test_the_view_reads_only_what_changed(ws, tmp_path, monkeypatch):
    root = tmp_path / "bundle"
    outside = tmp_path / "outside"
    briefings_everywhere(root, outside)
    ws.add(str(root))
    assert viewed(ws, root) == fresh(root)
    import okfpro.io.stopfacts as mod

    read: list[str] = []
    real = mod._read
    monkeypatch.setattr(mod, "_read", lambda root_real, rel: (read.append(rel), real(root_real, rel))[1])
    concept(root / "learnings" / "elsewhere.md", "Elsewhere", GENERATED)
    assert viewed(ws, root) == fresh(root)
    assert [r for r in read if not r.endswith(("escape.md", "inside.md"))] == []  # the links: blind, read each time
    read.clear()
    concept(root / "reference" / "deep" / "er" / "new.md", "New", GENERATED)
    assert viewed(ws, root) == fresh(root)
    assert "reference/deep/er/new.md" in read and "reference/owed.md" not in read


# ---------------------------------------------------------------------- the board's link targets
def random_tree(rng: random.Random, base: Path, outside: Path) -> list[str]:
    """A tree of case variants, hidden names and links; returns candidate keys to ask about."""
    names = ["a", "A", "b", "B.md", "b.md", ".h", "ß", "SS", "ss", "Σa", "σa", "İx", "i̇x", "x.MD"]
    made: list[str] = []
    for _ in range(40):
        parent_rel = rng.choice([""] + [m for m in made if (base / m).is_dir() and not (base / m).is_symlink()])
        name = rng.choice(names)
        rel = f"{parent_rel}/{name}" if parent_rel else name
        path = base / rel
        if os.path.lexists(path):
            continue
        kind = rng.randrange(6)
        if kind <= 1:
            path.mkdir()
        elif kind == 2:
            path.write_text("x")
        elif kind == 3:
            (outside / "d").mkdir(exist_ok=True)
            (outside / "d" / "inside").write_text("x")  # reached only through the link: never an entry
            path.symlink_to(outside / "d", target_is_directory=True)
        elif kind == 4:
            path.symlink_to(outside / "nowhere")  # dangling
        else:
            target = rng.choice(made) if made else "a"
            path.symlink_to(base / target)
        made.append(rel)
    keys = set()
    for rel in made + ["nope", "a/", "", "a//b", "./a", "a/../a", "d/inside"]:
        for variant in (rel, rel.upper(), rel.lower(), rel.swapcase()):
            keys.add(variant.strip("/").lower())
        keys.add(f"{rel}/d/x".lower())
        keys.add(f"{rel}/inside".lower())
        for name in names:  # what a linked directory holds is not listed under the link
            keys.add(f"{rel}/{name}".lower())
    return sorted(keys)


@pytest.mark.parametrize("seed", range(10 if quick() else 40))
def test_present_entries_is_the_whole_listing_asked_in_lower_case(tmp_path, seed):
    rng = random.Random(seed)
    base = tmp_path / "b"
    base.mkdir()
    outside = tmp_path / "o"
    outside.mkdir()
    keys = random_tree(rng, base, outside)
    listing = {e.strip("/").lower() for e in workstate.all_entries(base)}
    assert workstate.present_entries(base, keys) == {k for k in keys if k in listing}


# ---------------------------------------------------------------------- the projects
CLOSURES = ("# P\n", "# P\nclosed 2026-11-01\n", "# P\nnot closed 2026-11-01\n", "closed — 2026-11-02\n# P\n", "")


def _project_step(rng: random.Random, root: Path, outside: Path, n: int) -> None:
    base = root / "projects"
    if not base.is_dir() or base.is_symlink():
        if os.path.lexists(base):
            base.unlink()
        base.mkdir()
    slugs = sorted(p.name for p in base.iterdir())
    slug = rng.choice(slugs + [f"p{n % 7}", ".hidden", "Q"])
    here = base / slug
    op = rng.randrange(12)
    if op <= 2:
        here.mkdir(exist_ok=True) if not os.path.lexists(here) else None
        if here.is_dir():
            (here / "index.md").write_text(rng.choice(CLOSURES))
    elif op <= 4 and here.is_dir():
        deep = here / rng.choice(["", "a", "a/b", ".h"])
        deep.mkdir(parents=True, exist_ok=True)
        (deep / rng.choice(["c.md", "index.md", "note.txt"])).write_text("x")
    elif op == 5 and here.is_dir() and not here.is_symlink():
        mds = sorted(here.rglob("*.md"))
        if mds:
            rng.choice(mds).unlink()
    elif op == 6 and os.path.lexists(here):
        shutil.rmtree(here) if here.is_dir() and not here.is_symlink() else here.unlink()
    elif op == 7 and os.path.lexists(here):
        here.rename(base / f"r{n}")
    elif op == 8 and not os.path.lexists(here):
        far = outside / f"proj-{n}"
        far.mkdir()
        (far / "index.md").write_text(rng.choice(CLOSURES))
        here.symlink_to(far, target_is_directory=True)  # a linked project: read through
    elif op == 9 and not os.path.lexists(here):
        here.write_text("a file, not a project")
    elif op == 10:
        far = sorted(outside.glob("proj-*"))
        if far:
            (rng.choice(far) / "x.md").write_text("x")  # inside a linked project's target
    elif op == 11 and rng.random() < 0.2:
        base.rename(outside / f"projects-{n}")  # projects itself replaced
        base.mkdir()


@pytest.mark.parametrize("seed", range(3 if quick() else 8))
def test_projects_with_a_view_always_equal_a_fresh_read(ws, tmp_path, seed):
    rng = random.Random(seed)
    root = tmp_path / "bundle"
    (root / "projects").mkdir(parents=True)
    outside = tmp_path / "outside"
    outside.mkdir()
    ws.add(str(root))
    for n in range(80):
        try:
            _project_step(rng, root, outside, n)
        except OSError:
            pass
        if rng.random() < 0.8:
            with watchkit.served(ws):
                got = projects(str(root))
            assert got == workstate.projects(root), n
