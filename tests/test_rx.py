"""okfpro.core.rx and okfpro.io.rxcache: patterns built from kept recipes are the stdlib's patterns.

A recipe is what ``re``'s compiler handed ``_sre.compile``; CPython compares patterns by their
string, flags and code words, so ``==`` against ``re.compile`` is the whole check.  The cache is
read only when it is whole (its digest), of this interpreter build, a regular file of this user that nobody
else may write; anything else reads as no recipes and the patterns compile as before.  Real
processes show the round trip: the first writes the recipes, the next builds every pattern from
them (and writes nothing), and what they do — a secret redacted before it is written — is the same.
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

from okfpro.core import redact, rx
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
    for rule in redact.TIER_A:
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


def run_remember(ws: Path, cache: Path, text: str) -> subprocess.CompletedProcess:
    env = scoped_env("OKFPRO_MEMORY_INDEX", OKFPRO_TENANT="acme", OKFPRO_USER="alice", XDG_CACHE_HOME=str(cache))
    proc = subprocess.run([sys.executable, "-m", "okfpro", "memory", "remember", text], cwd=ws, env=env,
                          capture_output=True)
    assert proc.returncode == 0, proc.stderr[-800:]
    return proc


def recipe_file(cache: Path, kind: str = "memory-remember") -> Path:
    found = list((cache / "okfpro").glob(f"rx-*-{kind}.bin"))
    assert len(found) == 1, found
    return found[0]


SECRET = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"


def day_files(ws: Path) -> str:
    return "".join(p.read_text() for p in sorted((ws / ".okf-memory").rglob("*.md")))


def test_the_first_process_keeps_the_recipes_and_the_next_builds_from_them(tmp_path):
    ws, cache = memory_workspace(tmp_path), tmp_path / "cache"
    run_remember(ws, cache, f"the deploy token is {SECRET}")
    kept = recipe_file(cache)
    assert kept.stat().st_mode & 0o777 == 0o600
    assert (kept.parent.stat().st_mode & 0o777) == 0o700
    recipes = rxcache.read(str(kept))
    assert len(recipes) >= 20  # the memory path's own patterns: the redaction rules it ran, the day file's
    for (pattern, flags), args in recipes.items():
        assert _sre.compile(pattern, *args) == re.compile(pattern, flags), pattern
    before = kept.stat()

    run_remember(ws, cache, f"the staging token is {SECRET.lower()}")
    after = kept.stat()
    # nothing compiled by re on the second run: the file was not rewritten
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
    text = day_files(ws)
    assert SECRET not in text and SECRET.lower() not in text and text.count("[REDACTED:") == 2


@pytest.mark.parametrize("damage", ["flip", "truncate", "foreign-build", "group-writable", "symlink", "huge", "garbage"])
def test_a_damaged_or_foreign_file_reads_as_no_recipes_and_is_replaced(tmp_path, damage):
    ws, cache = memory_workspace(tmp_path), tmp_path / "cache"
    run_remember(ws, cache, "a first entry")
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
    run_remember(ws, cache, f"the deploy token is {SECRET}")
    assert SECRET not in day_files(ws) and "[REDACTED:" in day_files(ws)
    assert rxcache.read(str(kept)) and not kept.is_symlink()  # compiled by re, then kept again


@pytest.mark.skipif(os.getuid() != 0, reason="giving the file to another user needs root")
def test_a_file_of_another_user_is_not_read(tmp_path):
    ws, cache = memory_workspace(tmp_path), tmp_path / "cache"
    run_remember(ws, cache, "a first entry")
    kept = recipe_file(cache)
    os.chown(kept, 65534, 65534)
    assert rxcache.read(str(kept)) == {}


def test_an_unwritable_cache_directory_changes_nothing(tmp_path):
    ws = memory_workspace(tmp_path)
    blocked = tmp_path / "blocked"
    blocked.write_text("a file where the cache directory would be\n")
    proc = run_remember(ws, blocked, f"the deploy token is {SECRET}")
    assert proc.stderr.count(b"\n") <= 1  # at most the redaction note: nothing about the cache
    assert SECRET not in day_files(ws)


def test_writers_at_once_leave_one_whole_file(tmp_path):
    """Six processes with no recipes start together: each writes its recipes at exit, by a
    temporary file renamed into place, so the file left is one of theirs, whole."""
    ws, cache = memory_workspace(tmp_path), tmp_path / "cache"
    env = scoped_env("OKFPRO_MEMORY_INDEX", OKFPRO_TENANT="acme", OKFPRO_USER="alice", XDG_CACHE_HOME=str(cache))
    procs = [subprocess.Popen([sys.executable, "-m", "okfpro", "memory", "remember", f"note {i} about the cache"],
                              cwd=ws, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE) for i in range(6)]
    for proc in procs:
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err[-500:]
    kept = recipe_file(cache)
    recipes = rxcache.read(str(kept))
    assert len(recipes) >= 20
    assert not [p for p in kept.parent.iterdir() if p.name != kept.name]  # no temporary file left behind


def test_each_per_event_path_keeps_its_own_file():
    assert rxcache.kind_of(["hook", "user-prompt-submit"]) == "hook-user-prompt-submit"
    assert rxcache.kind_of(["memory", "remember", "x"]) == "memory-remember"
    assert rxcache.kind_of(["lint", ".okf"]) == rxcache.kind_of([]) == "cli"
    for hostile in (["hook", "../../etc/passwd"], ["hook", "a/b"], ["memory", ""], ["hook", "x\x00y"]):
        assert rxcache.kind_of(hostile) == "cli", hostile  # never a path out of the cache directory


def test_another_verb_does_not_grow_what_a_hook_reads(tmp_path):
    """The recipes a remember reads are the remember's: a verb with many more patterns (lint)
    keeps its own file, so a per-event process never reads what it does not use."""
    ws, cache = memory_workspace(tmp_path), tmp_path / "cache"
    run_remember(ws, cache, "a first entry")
    kept = recipe_file(cache)
    before = kept.read_bytes()
    env = scoped_env(XDG_CACHE_HOME=str(cache))
    subprocess.run([sys.executable, "-m", "okfpro", "lint", str(ws / ".okf")], cwd=ws, env=env, capture_output=True)
    assert kept.read_bytes() == before
    assert len(rxcache.read(str(recipe_file(cache, "cli")))) > 0
