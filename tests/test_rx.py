"""okfpro.core.rx and okfpro.io.rxcache: patterns built from kept recipes are the stdlib's patterns.

A recipe is what ``re``'s compiler handed ``_sre.compile``; CPython compares patterns by their
string, flags and code words, so ``==`` against ``re.compile`` is the whole check.  The cache is
read only when it is whole (its digest), of this interpreter build, a regular file of this user that nobody
else may write; anything else reads as no recipes and the patterns compile as before.  Real
processes show the round trip: the first reader writes the recipes, the next builds every pattern
from them (and writes nothing), and answers the same.  A gate, a guard or a writer never reads the
file: a forged one, digest and all, changes no redaction (and no gate: tests/test_forged_cache.py).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import _sre
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from okfpro.core import redact, rx, secretshapes
from okfpro.io import rxcache
from tests.helpers import memory_workspace, scoped_env

TRICKY = [
    (r"(?P<name>[A-Za-z_]\w*)=(?P<value>.*)$", rx.M),
    (r"(?i)\bpass(?:word|wd)?\b", 0),
    (r"(?x) a  b # a comment\n c", 0),
    (r"(?<!\w)fo+(?=bar)|\d{2,5}?", rx.I),
    (r"[^\W_][\w\-.]*[^\W_]|[^\W_]", rx.U),
    (r"^## (\d\d:\d\d:\d\d) UTC$", rx.A | rx.M),
    (r"[\s\S]*?(?:</x>|\Z)", rx.S),
    (rb"^## (\d\d:\d\d:\d\d) UTC$", rx.M),
    (r"(a)(b)?(?(2)c|d)", 0),
    (r"[\u00e0-\u00ff\U0001F600-\U0001F64F]+ß", rx.I),
]


@pytest.mark.parametrize("pattern,flags", TRICKY, ids=[f"p{i}" for i in range(len(TRICKY))])
def test_a_recipe_rebuilds_the_stdlibs_pattern(pattern, flags):
    args = rx.recipe(pattern, flags)
    assert args is not None
    built = _sre.compile(pattern, *args)
    assert built == re.compile(pattern, flags)
    assert built.groupindex == re.compile(pattern, flags).groupindex


def test_every_redaction_rule_rebuilds_from_its_recipe():
    for rule in secretshapes.TIER_A:
        args = rx.recipe(rule.regex, 0)
        assert args is not None, rule.id
        assert _sre.compile(rule.regex, *args) == re.compile(rule.regex), rule.id


def test_a_recipe_that_does_not_rebuild_the_pattern_is_not_kept():
    assert rx.recipe("(unclosed", 0) is None
    other = rx.recipe("b", 0)
    assert other is not None and _sre.compile("a", *other) != re.compile("a")  # the check can fail


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_escape_is_the_stdlibs(text):
    assert rx.escape(text) == re.escape(text)
    assert rx.compile(rx.escape(text), remember=False).fullmatch(text)


# ------------------------------------------------------------------ the file, in real processes


def _env(cache: Path) -> dict[str, str]:
    return scoped_env("OKFPRO_MEMORY_INDEX", OKFPRO_TENANT="acme", OKFPRO_USER="alice", XDG_CACHE_HOME=str(cache))


def run_remember(ws: Path, cache: Path, text: str) -> subprocess.CompletedProcess:
    proc = subprocess.run([sys.executable, "-m", "okfpro", "memory", "remember", text], cwd=ws, env=_env(cache),
                          capture_output=True)
    assert proc.returncode == 0, proc.stderr[-800:]
    return proc


def run_recall(ws: Path, cache: Path, *words: str) -> subprocess.CompletedProcess:
    proc = subprocess.run([sys.executable, "-m", "okfpro", "memory", "recall", *words], cwd=ws, env=_env(cache),
                          capture_output=True)
    assert proc.returncode == 0, proc.stderr[-800:]
    return proc


def recipe_file(cache: Path, kind: str = "memory-recall") -> Path:
    found = list((cache / "okfpro").glob(f"rx-*-{kind}.bin"))
    assert len(found) == 1, found
    return found[0]


SECRET = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"


def day_files(ws: Path) -> str:
    return "".join(p.read_text() for p in sorted((ws / ".okf-memory").rglob("*.md")))


@pytest.fixture
def stored(tmp_path: Path) -> tuple[Path, Path, bytes]:
    """A workspace with two entries (written by ``remember``, which keeps no recipes), its cache
    directory, and ``recall``'s answer with no recipes at all."""
    ws, cache = memory_workspace(tmp_path), tmp_path / "cache"
    run_remember(ws, cache, f"the deploy token is {SECRET}")
    run_remember(ws, cache, "the deploy runs on fridays, from ci-3")
    assert not (cache / "okfpro").exists() or not list((cache / "okfpro").glob("rx-*"))  # a writer: none kept
    text = day_files(ws)
    assert SECRET not in text and text.count("[REDACTED:") == 1
    return ws, cache, run_recall(ws, cache, "deploy").stdout


def test_the_first_reader_keeps_the_recipes_and_the_next_builds_from_them(stored):
    ws, cache, answer = stored
    kept = recipe_file(cache)
    assert kept.stat().st_mode & 0o777 == 0o600
    assert (kept.parent.stat().st_mode & 0o777) == 0o700
    recipes = rxcache.read(str(kept))
    assert len(recipes) >= 5  # the recall path's own patterns: the query's, the day file's
    for (pattern, flags), args in recipes.items():
        assert _sre.compile(pattern, *args) == re.compile(pattern, flags), pattern
    before = kept.stat()
    assert run_recall(ws, cache, "deploy").stdout == answer
    after = kept.stat()
    # nothing compiled by re on the second run: the file was not rewritten
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)


def never_matching(keys) -> dict:
    """For each (pattern, flags): a recipe with the same groups that matches nothing."""
    forged = {}
    for pattern, flags in keys:
        real = rx.recipe(pattern, flags)
        if real is None:
            continue
        empty = "(?!)" + "()" * (real[2] - 1)
        other = rx.recipe(empty if isinstance(pattern, str) else empty.encode(), flags)
        assert other is not None
        forged[(pattern, flags)] = (other[0], other[1], real[2], real[3], real[4])
    return forged


def plant_recipes(cache_home: Path, forged: dict, kinds) -> None:
    """``forged`` sealed as a whole recipe file of this build, this user's alone, under each path ``kinds``
    names in the user cache directory ``cache_home``: what a reader would build its patterns from."""
    import marshal

    blob = rxcache.seal(marshal.dumps((rxcache._build(), forged)))
    (cache_home / "okfpro").mkdir(parents=True, mode=0o700, exist_ok=True)
    for kind in kinds:
        where = cache_home / "okfpro" / os.path.basename(rxcache.path(kind))
        where.write_bytes(blob)
        where.chmod(0o600)
        assert rxcache.read(str(where)) == forged


def test_a_forged_recipe_file_changes_no_redaction(tmp_path):
    """A recipe file sealed with a valid digest, of this build and this user, whose every recipe —
    the redaction rules' included — matches nothing, under every path's name: ``remember`` still
    redacts the secret, because a writer builds no pattern from the file."""
    ws, cache = memory_workspace(tmp_path), tmp_path / "cache"
    for rule in secretshapes.TIER_A:
        assert rule.pattern is not None  # compiled here: its key is in rx.used()
    redact.redact(f"the deploy token is {SECRET}\npassword = hunter2-Xy9\n")
    forged = never_matching(rx.used())
    assert len(forged) >= 10
    plant_recipes(cache, forged, ("memory-remember", "memory-recall", "cli", "hook-stop"))
    run_remember(ws, cache, f"the deploy token is {SECRET}")
    text = day_files(ws)
    assert SECRET not in text and "[REDACTED:" in text


@pytest.mark.parametrize("damage", ["flip", "truncate", "foreign-build", "group-writable", "symlink", "huge", "garbage"])
def test_a_damaged_or_foreign_file_reads_as_no_recipes_and_is_replaced(stored, tmp_path, damage):
    ws, cache, answer = stored
    kept = recipe_file(cache)
    data = kept.read_bytes()
    if damage == "flip":  # one code word changed inside a well-formed payload, the old digest kept
        import marshal

        payload = rxcache.unseal(data)
        assert payload is not None
        build, recipes = marshal.loads(payload)
        key = sorted(recipes, key=repr)[0]
        flags, code, *rest = recipes[key]
        recipes[key] = (flags, [code[0] ^ 1, *code[1:]], *rest)
        kept.write_bytes(data[:len(data) - len(payload)] + marshal.dumps((build, recipes)))
    elif damage == "truncate":
        kept.write_bytes(data[: len(data) // 2])
    elif damage == "foreign-build":
        import marshal

        kept.write_bytes(rxcache.seal(marshal.dumps(("another interpreter", rxcache.read(str(kept))))))
    elif damage == "group-writable":
        kept.chmod(0o620)
    elif damage == "symlink":
        real = tmp_path / "elsewhere.bin"
        real.write_bytes(data)
        real.chmod(0o600)
        kept.unlink()
        kept.symlink_to(real)
    elif damage == "huge":
        with open(kept, "ab") as f:
            f.truncate(rxcache.MAX_BYTES + 1)
    else:
        kept.write_bytes(b"\x00" * 64)
    assert rxcache.read(str(kept)) == {}
    assert run_recall(ws, cache, "deploy").stdout == answer
    assert rxcache.read(str(kept)) and not kept.is_symlink()  # compiled by re, then kept again


@pytest.mark.skipif(os.getuid() != 0, reason="giving the file to another user needs root")
def test_a_file_of_another_user_is_not_read(stored):
    _ws, cache, _answer = stored
    kept = recipe_file(cache)
    os.chown(kept, 65534, 65534)
    assert rxcache.read(str(kept)) == {}


def test_an_unwritable_cache_directory_changes_nothing(stored, tmp_path):
    ws, _cache, answer = stored
    blocked = tmp_path / "blocked"
    blocked.write_text("a file where the cache directory would be\n")
    proc = run_recall(ws, blocked, "deploy")
    assert proc.stdout == answer and proc.stderr == b""


def test_readers_at_once_leave_one_whole_file(stored):
    """Six processes with no recipes start together: each writes its recipes at exit, by a
    temporary file renamed into place, so the file left is one of theirs, whole."""
    ws, cache, answer = stored
    recipe_file(cache).unlink()
    procs = [subprocess.Popen([sys.executable, "-m", "okfpro", "memory", "recall", "deploy"],
                              cwd=ws, env=_env(cache), stdout=subprocess.PIPE, stderr=subprocess.PIPE) for _ in range(6)]
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0 and out == answer, err[-500:]
    kept = recipe_file(cache)
    assert len(rxcache.read(str(kept))) >= 5
    assert not [p for p in kept.parent.iterdir() if p.name != kept.name]  # no temporary file left behind


def test_each_reading_path_keeps_its_own_file_and_no_gate_reads_one():
    assert rxcache.kind_of(["hook", "user-prompt-submit"]) == "hook-user-prompt-submit"
    assert rxcache.kind_of(["memory", "recall", "x"]) == "memory-recall"
    assert rxcache.kind_of(["search", "x"]) == "cli"
    for gate in (["hook", "pre-tool-use"], ["hook", "stop"], ["hook", "post-tool-use"], ["hook", "session-end"],
                 ["hook", "check", "shell-guard"], ["memory", "remember", "x"], ["memory", "import", "f"],
                 ["memory", "sync"], ["audit", "."], ["records", "."], ["validate"], ["lint", ".okf"],
                 ["merge-file", "a", "b", "c", "d"], []):
        assert rxcache.kind_of(gate) is None, gate
    for hostile in (["hook", "../../etc/passwd"], ["hook", "a/b"], ["memory", ""], ["hook", "x\x00y"]):
        assert rxcache.kind_of(hostile) is None, hostile  # never a path out of the cache directory


def test_another_verb_does_not_grow_what_a_hook_reads(stored):
    """The recipes a recall reads are the recall's: a verb with many more patterns (search) keeps
    its own file, so a per-event process never reads what it does not use."""
    ws, cache, _answer = stored
    kept = recipe_file(cache)
    before = kept.read_bytes()
    subprocess.run([sys.executable, "-m", "okfpro", "search", "deploy", "--bundle", str(ws / ".okf")], cwd=ws,
                   env=_env(cache), capture_output=True)
    assert kept.read_bytes() == before
    assert len(rxcache.read(str(recipe_file(cache, "cli")))) > 0
