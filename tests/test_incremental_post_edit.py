"""The incremental post-edit answers exactly what a full run answers, edit after edit.

A seeded random walk over a real bundle on disk — add concepts, change frontmatter, add and remove
links, rename, delete, break the YAML, edit an index.md, add a duplicate id or title, write a file
that is not UTF-8 — and after every step the post-edit answer through the incremental state
(``okfpro.io.analysis``) is compared with a full recomputation (``OKFPRO_NO_CACHE=1``).  The
attacks on the state itself (truncated, foreign, newer, garbage, concurrent writers) run through
the real hook door.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import hookkit  # noqa: E402

from okfpro.core import delta  # noqa: E402
from okfpro.hooks import post_edit  # noqa: E402
from okfpro.hooks.context import Ctx  # noqa: E402
from okfpro.core.event import parse  # noqa: E402
from okfpro.io import analysis, cache  # noqa: E402

DIRS = ["", "learnings", "learnings/deep", "projects/alpha", "reference", "glossary", "new room"]
WORDS = "search cache ranking ledger alpha plan corpus board index log tenant".split()


def workspace(base: Path) -> Path:
    ws = base / "ws"
    root = ws / ".okf"
    root.mkdir(parents=True)
    (ws / "okfpro.toml").write_text("")
    subprocess.run(["git", "init", "-q", str(ws)], check=True)  # the fence: one bundle, nested indexes or not
    (root / "index.md").write_text('---\nokf_version: "0.2"\n---\n\n# Root\n\n* [Learnings](learnings/index.md)\n')
    (root / "log.md").write_text("# Update Log\n\n## 2026-11-29\n\n* start\n")
    for d in DIRS[1:5]:
        (root / d).mkdir(parents=True, exist_ok=True)
        (root / d / "index.md").write_text(f"# {d}\n\n")
    return ws


class Walk:
    """Random edits on one bundle; ``step()`` returns the (tool, rel) a host would report."""

    def __init__(self, ws: Path, rng: random.Random) -> None:
        self.ws, self.root, self.rng = ws, ws / ".okf", rng
        self.tick = 1_700_000_000_000_000_000
        self.listings: dict[Path, list[str]] = {}

    def files(self, pattern: str = "*.md") -> list[str]:
        return sorted(p.relative_to(self.root).as_posix() for p in self.root.rglob(pattern)
                      if not any(part.startswith(".") for part in p.relative_to(self.root).parts))

    def concepts(self) -> list[str]:
        return [f for f in self.files() if f.rsplit("/", 1)[-1] not in ("index.md", "log.md")]

    def some_path(self) -> str:
        known = self.files()
        if known and self.rng.random() < 0.75:
            return self.rng.choice(known)
        d = self.rng.choice(DIRS)
        return f"{d}/{self.rng.choice(WORDS)}-{self.rng.randrange(6)}.md".lstrip("/")

    def link(self, src: str) -> str:
        target = self.some_path()
        style = self.rng.randrange(4)
        if style == 0:
            return f"[x](/{target})"
        if style == 1:  # relative to the source's directory
            rel = os.path.relpath(target, os.path.dirname(src) or ".")
            return f"[y]({rel})"
        if style == 2:
            return f"[z][r{self.rng.randrange(3)}]\n\n[r{self.rng.randrange(3)}]: /{target}"
        return f"[ext](https://example.com/{self.rng.choice(WORDS)})"

    def concept_text(self, rel: str) -> str:
        r = self.rng
        fm = [f"type: {r.choice(['Learning', 'Briefing', '', 'Attested Computation'])}"]
        if r.random() < 0.7:
            fm.append(f"title: {r.choice(WORDS).title()} {r.choice(WORDS)}")
        if r.random() < 0.6:
            fm.append(f"description: about {r.choice(WORDS)} and {r.choice(WORDS)}")
        if r.random() < 0.25:  # a declared id, often somebody else's
            others = self.concepts()
            fm.append(f"id: {(r.choice(others)[:-3] if others and r.random() < 0.6 else r.choice(WORDS))}")
        if r.random() < 0.3:
            fm.append(f"sources:\n  - id: s1\n    resource: /{self.some_path()}")
        if r.random() < 0.15:
            fm.append(f"computation: {self.some_path()}")
        if r.random() < 0.1:
            fm.append(f"executor: {{resource: /{self.some_path()}}}")
        if r.random() < 0.1:
            fm.append("tags: [caf\u00e9, " + r.choice(WORDS) + "]")  # not plain ASCII: the slow search path
        if r.random() < 0.1:
            fm.append(f"status: {r.choice(['deprecated', 'draft', 'weird'])}")
        body = [f"# {r.choice(WORDS)}", "", " ".join(r.choice(WORDS) for _ in range(r.randrange(3, 20)))]
        body += [self.link(rel) for _ in range(r.randrange(0, 4))]
        if r.random() < 0.2:
            body.append("A claim.[^s1] [^zz]")
        if r.random() < 0.1:
            body.append("[undefined ref][nowhere]")
        return "---\n" + "\n".join(fm) + "\n---\n\n" + "\n".join(body) + "\n"

    def index_text(self, rel: str) -> str:
        r = self.rng
        head = "---\nokf_version: \"0.2\"\n---\n\n" if rel == "index.md" or r.random() < 0.1 else ""
        here = os.path.dirname(rel)
        lines = [f"# {here or 'root'}", ""]
        for c in r.sample(self.concepts(), min(len(self.concepts()), r.randrange(0, 6))):
            lines.append(f"* [c]({os.path.relpath(c, here or '.')})")
        if r.random() < 0.3:
            lines.append(f"* [gone](missing-{r.randrange(3)}.md)")
        return head + "\n".join(lines) + "\n"

    def write(self, rel: str, data: str | bytes) -> None:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data.encode() if isinstance(data, str) else data)
        self.stamp(path)

    def stamp(self, path: Path) -> None:
        # every change gets its own mtime: a same-size rewrite inside one clock tick would otherwise
        # look unchanged to an identity key (the racy-file rule covers that case in real use)
        self.tick += 1_000_003
        os.utime(path, ns=(self.tick, self.tick))

    def step(self) -> tuple[str, str]:
        done = self._step()
        # a directory whose entries changed gets its own mtime too: two steps inside one clock tick
        # would otherwise leave its identity unchanged (the racy rule covers that in real use)
        for d in [self.root, *(p for p in self.root.rglob("*") if p.is_dir())]:
            names = sorted(os.listdir(d))
            if self.listings.get(d) != names:
                self.listings[d] = names
                self.stamp(d)
        return done

    def _step(self) -> tuple[str, str]:
        r = self.rng
        op = r.choice(["add", "add", "change", "links", "rename", "delete", "yaml", "index", "duplicate",
                       "bytes", "log", "rmtree"])
        concepts = self.concepts()
        if op in ("change", "links", "rename", "delete", "yaml", "duplicate") and not concepts:
            op = "add"
        if op == "rmtree":  # a whole directory goes (a checkout, rm -r): its files are gone
            gone = r.choice(["learnings/deep", "new room", "glossary", "projects"])
            if (self.root / gone).is_dir():
                shutil.rmtree(self.root / gone)
            op = "add"
        if op == "add":
            d = r.choice(DIRS)
            rel = f"{d}/{r.choice(WORDS)}-{r.choice(WORDS)}-{r.randrange(40)}.md".lstrip("/")
            self.write(rel, self.concept_text(rel))
            return "Write", rel
        rel = r.choice(concepts) if concepts else "x.md"
        if op == "change":
            self.write(rel, self.concept_text(rel))
        elif op == "links":
            text = (self.root / rel).read_text(errors="replace")
            lines = text.split("\n")
            if r.random() < 0.5 and len(lines) > 6:
                del lines[r.randrange(6, len(lines))]
            else:
                lines.append(self.link(rel))
            self.write(rel, "\n".join(lines))
        elif op == "rename":
            new = f"{r.choice(DIRS)}/{r.choice(WORDS)}-{r.randrange(40)}.md".lstrip("/")
            (self.root / new).parent.mkdir(parents=True, exist_ok=True)
            os.replace(self.root / rel, self.root / new)
            return "Write", new
        elif op == "delete":
            (self.root / rel).unlink()
        elif op == "yaml":
            self.write(rel, "---\ntitle: [unclosed\n---\n\nbody [x](/learnings/index.md)\n")
        elif op == "duplicate":
            other = r.choice(concepts)
            text = self.concept_text(rel).replace("---\n", f"---\nid: {other[:-3]}\ntitle: Same Title\n", 1)
            self.write(rel, text)
        elif op == "bytes":
            self.write(rel, b"---\ntype: x\n---\n\n\xff\xfe not utf-8 [x](/index.md)\n")
        elif op == "index":
            d = r.choice(DIRS)
            rel = f"{d}/index.md".lstrip("/")
            if (self.root / rel).exists() and r.random() < 0.15 and rel != "index.md":
                (self.root / rel).unlink()
            else:
                self.write(rel, self.index_text(rel))
        elif op == "log":
            rel = r.choice(["log.md", "learnings/log.md"])
            self.write(rel, f"# Log\n\n## {r.choice(['2026-11-02', '2026-13-01', 'someday'])}\n\n* [x](/{self.some_path()})\n")
        return "Edit", rel


def answer(ws: Path, tool: str, rel: str, *, full: bool, monkeypatch) -> tuple:
    if full:
        monkeypatch.setenv("OKFPRO_NO_CACHE", "1")
    else:
        monkeypatch.delenv("OKFPRO_NO_CACHE", raising=False)
    path = str(ws / ".okf" / rel)
    event = parse(json.dumps({"cwd": str(ws), "hook_event_name": "PostToolUse", "tool_name": tool,
                              "tool_input": {"file_path": path, "content": "x"}}))
    ctx = Ctx(event)
    got = post_edit.post_edit(ctx)
    target = ctx.target()
    # the whole findings, not only the answer (it lists the first few elsewhere and counts the rest):
    # a full run's lists, or everything the state holds (read back without changing it)
    findings = None
    if target is not None and full:
        findings = ctx.memo[("post-edit", *target)]["findings"]
    elif target is not None:
        state, reason = analysis.open_state(target[0])
        try:
            if reason is None:
                findings = state.findings()
                # the bounded reads behind the answer, with lists short enough to cut: checked against
                # the same summary computed from the whole lists
                for shown in (0, 1, 3):
                    assert state.summary(delta.stem(target[1]), shown) == post_edit.summarise(findings, target[1], shown)
        finally:
            analysis.abandon(state.db)
    return got.kind, got.messages, ctx.notes, target[0] if target else None, findings


def split_walk(monkeypatch) -> list[int]:
    """Make every identity walk fork its child (``analysis.SPLIT_AT`` 0); the pids forked, to show it did."""
    forked: list[int] = []
    fork = os.fork

    def counted() -> int:
        pid = fork()
        if pid:
            forked.append(pid)
        return pid

    monkeypatch.setattr(analysis, "SPLIT_AT", 0)
    monkeypatch.setattr(os, "fork", counted)
    return forked


def walk(tmp_path: Path, monkeypatch, seed: int, steps: int, racy: bool, split: bool = False) -> int:
    monkeypatch.setenv("OKFPRO_TODAY", hookkit.TODAY)
    forked = split_walk(monkeypatch) if split else None
    if not racy:  # every change is judged by its identity key alone (the walk gives each its own mtime)
        monkeypatch.setattr(cache, "RACY_NS", -1)
    ws = workspace(tmp_path)
    w = Walk(ws, random.Random(seed))
    compared = 0
    roots: set[str] = set()  # an index.md with frontmatter makes its directory a bundle of its own
    for i in range(steps):
        tool, rel = w.step()
        inc = answer(ws, tool, rel, full=False, monkeypatch=monkeypatch)
        ref = answer(ws, tool, rel, full=True, monkeypatch=monkeypatch)
        assert inc[:2] == ref[:2], f"seed {seed} step {i}: {tool} {rel}\nfull: {ref[1]}\nincremental: {inc[1]}"
        assert inc[4] == ref[4], f"seed {seed} step {i}: {tool} {rel}: the findings differ"
        if inc[3] in roots:
            assert inc[2] == [], f"seed {seed} step {i}: the state should have answered: {inc[2]}"
        roots.add(inc[3])
        compared += 1
    if forked is not None:
        assert len(forked) >= steps - 1  # every incremental answer after the first walked in two processes
    return compared


@pytest.mark.parametrize("seed", [1, 2])
def test_incremental_equals_full_on_a_random_walk(tmp_path, monkeypatch, seed):
    assert walk(tmp_path, monkeypatch, seed, steps=60, racy=False) == 60


def test_incremental_equals_full_with_the_identity_walk_split_across_a_child(tmp_path, monkeypatch):
    walk(tmp_path, monkeypatch, seed=4, steps=40, racy=False, split=True)


def test_incremental_equals_full_with_the_racy_rule_on(tmp_path, monkeypatch):
    walk(tmp_path, monkeypatch, seed=3, steps=30, racy=True)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(10, 16))
def test_incremental_equals_full_on_long_walks(tmp_path, monkeypatch, seed):
    walk(tmp_path, monkeypatch, seed, steps=250, racy=False)


# --------------------------------------------------------------------------- the state attacked


def _post(ws: Path, rel: str, tool: str = "Edit", **env) -> subprocess.CompletedProcess:
    """The post-edit hook in the test's process (the state lives on disk, as between processes);
    the racing writers below are real processes, and the unwritable-cache test compares the two."""
    event = {"cwd": str(ws), "hook_event_name": "PostToolUse", "tool_name": tool,
             "tool_input": {"file_path": str(ws / ".okf" / rel), "content": "x"}}
    return hookkit.hook("post-tool-use", event=event, extra_env=env, process=False)


def _db(ws: Path) -> Path:
    return Path(analysis.db_path(os.path.realpath(ws / ".okf")))


def _notes(proc: subprocess.CompletedProcess) -> list[str]:
    return [line for line in hookkit.err_text(proc).splitlines() if "post-edit ran in full" in line]


@pytest.fixture
def ready(tmp_path) -> Path:
    ws = workspace(tmp_path)
    (ws / ".okf" / "learnings" / "a.md").write_text("---\ntype: Learning\ntitle: A\n---\n\nSee [b](/learnings/b.md).\n")
    first = _post(ws, "learnings/a.md")
    assert _notes(first) and "no incremental state yet" in _notes(first)[0]
    assert _notes(_post(ws, "learnings/a.md")) == []
    return ws


def _same_as_full(ws: Path, rel: str = "learnings/a.md") -> subprocess.CompletedProcess:
    inc = _post(ws, rel)
    full = _post(ws, rel, OKFPRO_NO_CACHE="1")
    assert inc.returncode == full.returncode
    strip = [line for line in hookkit.err_text(inc).splitlines() if "post-edit ran in full" not in line]
    assert strip == hookkit.err_text(full).splitlines()
    return inc


@pytest.mark.parametrize("attack", ["truncated", "garbage", "empty", "foreign", "newer", "other code"])
def test_a_damaged_or_foreign_state_runs_in_full_says_so_once_and_is_rebuilt(ready, tmp_path, attack):
    db = _db(ready)
    if attack == "truncated":
        data = db.read_bytes()
        db.write_bytes(data[: len(data) // 3])
    elif attack == "garbage":
        db.write_bytes(b"SQLite format 3\x00" + os.urandom(5000))
    elif attack == "empty":
        db.write_bytes(b"")
    elif attack == "foreign":
        other = workspace(tmp_path / "other")
        (other / ".okf" / "learnings" / "z.md").write_text("---\ntype: Learning\n---\n\nother bundle\n")
        _post(other, "learnings/z.md")
        shutil.copy2(_db(other), db)
    else:
        con = sqlite3.connect(db)
        key, value = ("schema", "99") if attack == "newer" else ("code", "0000")
        con.execute("UPDATE meta SET v=? WHERE k=?", (value, key))
        con.commit()
        con.close()
    proc = _same_as_full(ready)
    notes = _notes(proc)
    assert len(notes) == 1, hookkit.err_text(proc)
    expected = {"truncated": "unreadable", "garbage": "unreadable", "empty": "no incremental state",
                "foreign": "another bundle", "newer": "another okfpro version", "other code": "another okfpro version"}
    assert expected[attack] in notes[0]
    assert _notes(_same_as_full(ready)) == []  # rebuilt: the next edit is incremental again


@pytest.mark.parametrize("part", ["dirs", "files", "files_cid", "found"])
def test_a_state_damaged_past_its_header_runs_in_full_says_so_and_is_rebuilt(ready, part):
    """A page the header and the meta table do not reach is garbage (a torn write, a bad disk): the
    query that meets it fails inside the run, not when the state is opened.  The answer is still a
    full run's, one stderr line says so, the state is removed and the next edit rebuilds it."""
    db = _db(ready)
    con = sqlite3.connect(db)
    page_size = con.execute("PRAGMA page_size").fetchone()[0]
    root = con.execute("SELECT rootpage FROM sqlite_master WHERE name=?", (part,)).fetchone()[0]
    con.close()
    with open(db, "r+b") as f:
        f.seek((root - 1) * page_size)
        f.write(b"\xa5" * page_size)
    notes = _notes(_same_as_full(ready))
    assert len(notes) == 1 and "unreadable" in notes[0], notes
    assert not db.exists()  # removed: it is only a cache
    notes = _notes(_same_as_full(ready))
    assert len(notes) == 1 and "no incremental state yet" in notes[0], notes
    assert _notes(_same_as_full(ready)) == []  # rebuilt: the next edit is incremental again


def test_a_change_made_outside_any_hook_is_seen(ready):
    # a shell command creates the missing link target: a.md's broken link must go away
    assert "link target does not exist: /learnings/b.md" in hookkit.err_text(_post(ready, "learnings/a.md", "Edit"))
    (ready / ".okf" / "learnings" / "b.md").write_text("---\ntype: Learning\ntitle: B\n---\n\nback to [a](a.md)\n")
    proc = _same_as_full(ready)
    assert "link target does not exist: /learnings/b.md" not in hookkit.err_text(proc)


def test_concurrent_post_edits_leave_a_state_that_still_equals_a_full_run(ready):
    root = ready / ".okf" / "learnings"
    procs = []
    for i in range(6):
        (root / f"c{i}.md").write_text(f"---\ntype: Learning\ntitle: C{i}\n---\n\nSee [a](a.md) and [n](c{(i + 1) % 7}.md).\n")
        event = {"cwd": str(ready), "hook_event_name": "PostToolUse", "tool_name": "Write",
                 "tool_input": {"file_path": str(root / f"c{i}.md"), "content": "x"}}
        procs.append(subprocess.Popen([sys.executable, "-m", "okfpro", "hook", "post-tool-use"], stdin=subprocess.PIPE,
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=hookkit.env()))
        procs[-1].stdin.write(json.dumps(event).encode())
        procs[-1].stdin.close()
    for p in procs:
        p.wait(timeout=120)
        assert p.returncode in (0, 2), p.stderr.read().decode()
        assert "ENFORCEMENT" not in p.stderr.read().decode()
    for i in range(6):
        _same_as_full(ready, f"learnings/c{i}.md")


def test_an_unwritable_cache_directory_runs_in_full_every_time(tmp_path, monkeypatch):
    ws = workspace(tmp_path)
    # The hook runs outside the workspace, so its state lives in the user's cache directory: put a
    # regular file where that directory's parent would be. No directory can be made under a file, not
    # even by root (CI runs as root, for whom a mode-0555 directory is still writable).
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("x\n")
    (ws / ".okf" / "learnings" / "a.md").write_text("---\ntype: Learning\n---\n\nx\n")
    for _ in range(2):
        proc = _post(ws, "learnings/a.md", XDG_CACHE_HOME=str(blocker / "cache"))
        assert proc.returncode == 2 and "cannot be written" in " ".join(_notes(proc))
    # no state to change between runs: a real hook process says the same, byte for byte
    event = {"cwd": str(ws), "hook_event_name": "PostToolUse", "tool_name": "Edit",
             "tool_input": {"file_path": str(ws / ".okf" / "learnings" / "a.md"), "content": "x"}}
    hookkit.hook_both_ways("post-tool-use", event=event, extra_env={"XDG_CACHE_HOME": str(blocker / "cache")})
    assert blocker.read_text() == "x\n"


def test_identity_keys_follow_the_rule_file_by_file(tmp_path, monkeypatch):
    """``identities``' key per file: the hash of (size, mtime_ns, ctime_ns, inode) for a regular
    file whose mtime and ctime both lie before the cut; None for a symlink, for a file whose mtime
    is at or past the cut (set into the future), and for one whose ctime is (mtime in the past)."""
    import time

    root = tmp_path / "b"
    root.mkdir()
    (root / "old.md").write_text("x")
    (root / "future.md").write_text("y")
    os.utime(root / "future.md", ns=(0, time.time_ns() + 10**13))
    (root / "link.md").symlink_to(root / "old.md")
    (root / "past.md").write_text("z")
    os.utime(root / "past.md", ns=(0, 1_600_000_000 * 10**9))

    def keys() -> dict[str, int | None]:
        tree = analysis.identities(str(root))
        return dict(zip(tree.dirs[""][1], tree.dirs[""][3]))

    monkeypatch.setattr(cache, "RACY_NS", -10**12)  # the cut 1,000 s ahead: every ctime of now lies before it
    got = keys()
    for name in ("old.md", "past.md"):
        st = os.stat(root / name)
        assert got[name] == hash((st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)), name
    assert got["future.md"] is None and got["link.md"] is None
    monkeypatch.setattr(cache, "RACY_NS", 2_000_000_000)  # the cut 2 s back: the ctimes of now are past it
    assert keys() == {"old.md": None, "future.md": None, "link.md": None, "past.md": None}


def _trees(root: Path, stored: dict) -> tuple[dict, dict]:
    """The identity walk alone and split across a child, from the same stored listings (every
    directory's names read: the child does not send back the names of one listed as stored)."""
    serial = analysis.identities(str(root), stored, split_at=10**9)
    split = analysis.identities(str(root), stored, split_at=0)
    return ({head: serial.entry(head) for head in serial.dirs}, {head: split.entry(head) for head in split.dirs})


def _slowed(monkeypatch, side: str) -> list[str]:
    """Slow the child's or this process's looks at directories (50 ms each), so that the other
    side takes nearly all of them; the directories this process looked at, in order."""
    import time

    parent = os.getpid()
    look = analysis._look
    here: list[str] = []

    def timed(root, head, old, cut):
        if (os.getpid() == parent) == (side == "parent"):
            time.sleep(0.05)
        if os.getpid() == parent:
            here.append(head)
        return look(root, head, old, cut)

    monkeypatch.setattr(analysis, "_look", timed)
    return here


def _stored(root: Path) -> dict:
    import marshal

    tree = analysis.identities(str(root), None, split_at=10**9)
    return {head: (e[0], marshal.dumps((e[1], e[2]))) for head, e in tree.dirs.items()}


@pytest.fixture
def deep(tmp_path, monkeypatch) -> Path:
    monkeypatch.setattr(cache, "RACY_NS", -10**12)  # every file keyed (the cut 1,000 s ahead)
    root = tmp_path / "b"
    for d in ("", "a", "a/x", "a/x/y", "b", "c"):
        (root / d).mkdir(parents=True, exist_ok=True)
        for i in range(3):
            (root / d / f"n{i}.md").write_text(f"{d} {i}\n")
    return root


def test_the_split_walk_leaves_out_what_the_walk_no_longer_reaches(deep):
    """A stored directory that still opens by its old path but is no longer reached from the root
    (its parent became a symlink, its name hidden) is not in the tree; nor is one that is gone."""
    stored = _stored(deep)
    os.rename(deep / "a", deep / ".a")
    (deep / "a").symlink_to(deep / ".a")  # "a/x" still opens (through the symlink): not reached
    shutil.rmtree(deep / "c")
    serial, split = _trees(deep, stored)
    assert serial == split and list(serial) == list(split)
    assert "a/x" not in split and "c" not in split and "b" in split


@pytest.mark.parametrize("slow", [None, "parent", "child"])
def test_the_split_walk_sees_every_change_behind_the_hooks_back(deep, monkeypatch, slow):
    """Same-size rewrites with the mtime put back, a touch into the past, a new directory the state
    never listed: the split walk's keys are the walk's, and differ from the stored ones — whichever
    side looks at the changed directories (the other one slowed)."""
    stored = _stored(deep)
    before = analysis.identities(str(deep), stored, split_at=10**9).dirs
    f = deep / "a" / "x" / "n1.md"
    st = os.stat(f)
    f.write_text(f.read_text().replace("1", "7"))
    os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns))
    os.utime(deep / "b" / "n0.md", ns=(0, 1_600_000_000 * 10**9))
    (deep / "a" / "x" / "new").mkdir()
    (deep / "a" / "x" / "new" / "z.md").write_text("z\n")
    (deep / "b" / "n2.md").unlink()
    (deep / "b" / "n9.md").write_text("b 9\n")
    if slow:
        _slowed(monkeypatch, slow)
    serial, split = _trees(deep, stored)
    assert serial == split and list(serial) == list(split)
    assert split["a/x"][3][split["a/x"][1].index("n1.md")] != before["a/x"][3][before["a/x"][1].index("n1.md")]
    n0 = split["b"][1].index("n0.md")  # a listing keeps the directory's order (tmpfs: newest first)
    assert split["b"][3][n0] != before["b"][3][before["b"][1].index("n0.md")] and "a/x/new" in split
    assert "n9.md" in split["b"][1] and "n2.md" not in split["b"][1] and "new" in split["a/x"][2]


def test_the_child_sends_no_keys_for_a_directory_it_found_as_stored(deep, monkeypatch):
    """Given the stored digests (as ``State.refresh`` passes them), the child sends no keys for a
    directory whose listing key and digest are as stored — nothing reads them, and ``refresh``
    passes over it — and sends them for one with a file rewritten in place (same size, mtime put
    back: its digest differs).  Every other part of each entry is the walk's, and membership
    answers from the names alone."""
    import marshal

    walked = analysis.identities(str(deep), None, split_at=10**9)
    stored = {h: (e[0], marshal.dumps((e[1], e[2])), e[4]) for h, e in walked.dirs.items()}
    f = deep / "a" / "x" / "n1.md"
    st = os.stat(f)
    f.write_text(f.read_text().replace("1", "7"))
    os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns))
    here = _slowed(monkeypatch, "parent")  # the child takes nearly every directory
    serial = analysis.identities(str(deep), stored, split_at=10**9)
    split = analysis.identities(str(deep), stored, split_at=0)
    by_child = [h for h in split.dirs if h not in here[len(serial.dirs):]]
    assert "a/x" in by_child and len(by_child) >= 3, by_child
    for head in serial.dirs:
        want, got = serial.entry(head), split.entry(head)
        if head in by_child and head != "a/x":
            assert got[3] is None and got[:3] + got[4:] == want[:3] + want[4:], head
        else:
            assert got == want, head
    assert split.dirs["a/x"][4] != stored["a/x"][2]
    assert "a/x/n1.md" in split and "b/n0.md" in split and "c/n2.md" in split and "b/n7.md" not in split


def test_a_failing_child_leaves_its_half_to_the_walk(deep, monkeypatch):
    """The child dies on its first directory: the tree is still the whole walk's."""
    stored = _stored(deep)
    parent = os.getpid()
    look = analysis._look

    def dies_in_the_child(*args):
        if os.getpid() != parent:
            raise OSError("the child fails")
        return look(*args)

    monkeypatch.setattr(analysis, "_look", dies_in_the_child)
    serial, split = _trees(deep, stored)
    assert serial == split and list(serial) == list(split)


@pytest.fixture
def wide(tmp_path, monkeypatch) -> Path:
    monkeypatch.setattr(cache, "RACY_NS", -10**12)  # every file keyed (the cut 1,000 s ahead)
    root = tmp_path / "w"
    for d in ["", *(f"d{i:02}" for i in range(24))]:
        (root / d).mkdir(parents=True, exist_ok=True)
        for i in range(3):
            (root / d / f"n{i}.md").write_text(f"{d} {i}\n")
    return root


@pytest.mark.parametrize("slow", ["child", "parent"])
def test_the_split_is_cut_where_the_two_walkers_meet(wide, monkeypatch, slow):
    """The directories are shared as they are taken, not halved beforehand: when one side is slowed
    (the child forks later, either may lose its core), the other takes more than half — and the
    tree is still the walk's."""
    stored = _stored(wide)
    here = _slowed(monkeypatch, slow)
    serial, split = _trees(wide, stored)
    assert serial == split and list(serial) == list(split)
    split_here = here[len(serial):]  # the serial walk's calls come first
    if slow == "child":
        assert len(split_here) > 3 * len(stored) // 4, split_here
    else:
        assert len(split_here) < len(stored) // 4, split_here
