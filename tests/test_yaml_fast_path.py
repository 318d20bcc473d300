"""The frontmatter fast path must agree with the full safe loader, or step aside."""

from __future__ import annotations

import glob

import pytest

from okfpro.core import yamlfast, yamlsafe
from okfpro.core.concept import FRONTMATTER, split
from tests.helpers import shared_dir

TRICKY = [
    "a: 012", "a: 1_000", "a: 0x10", "a: .5", "a: 1.", "a: yes", "a: Off", "a: NULL", "a: 2026-1-5",
    "a: 2026-02-30", "a: 2026-11-30", "a:  x", "a:\n- x\n- y", "a:\n  - x\n  - y", "a: [x, y,]", "a: []",
    "a: [1, 2.5, no]", 'a: "x"', "a: 'it''s'", "a: b:c", "a: http://x/y#z", "a: -1", "a: +1", "a: 1e3",
    "a: 1.0e+3", "a: x #c", "a:\n  b:\n    c: d", "a:\n  - b: 1\n    c: 2\n  - d", "key with space: 1",
    "a: ~", "a: -", "a: - x", "a: ,x", "a: x,y", "a: [a b, c]", "a: =", "<<: x", "a: 0", "a: -0", "a: 0.2",
    "a: 1:20", "a: 190:20:30", "a: .inf", "a: -.Inf", "a: .NaN", "a: 2026-11-30 10:00:00", "a: 2026-11-30T10:00:00Z",
    "a: true\na: false", "a:\nb: 1", "a: [x, [y]]", "a: {b: 1}", "a: x\n  y", "a:\n  - x\n  y: 1", "- a",
    "a: 'x'y", 'a: "x\\ny"', "a: [\"x\", 'y']", "a:   ", "1: a", "a: @x", "a: `x`", "a: %x", "a: ?x",
    "a:\n  -\n  - b", "a: b: c", "a: b:", "a: 00", "a: 08", "a: 1__0", "a: +.5", "a: 1.5e3", "a: 6.8523015e+5",
    "a: 0o17", "a: 0b101", "a:\n    - x\n    - y\nb: 2", "a:\n  b: 1\n c: 2", "title: Türkçe ünïcode",
]


def _full(text: str):
    try:
        return ("ok", yamlsafe.load(text))
    except yamlsafe.YamlError:
        return ("error", None)


@pytest.mark.parametrize("text", TRICKY)
def test_fast_path_agrees_or_steps_aside(text: str) -> None:
    fast = yamlfast.load(text)
    if fast is None:
        return
    status, full = _full(text)
    assert status == "ok", f"fast path accepted what the full loader rejects: {text!r}"
    assert repr(fast) == repr(full)


def test_fast_path_handles_the_common_shapes() -> None:
    text = ("type: Briefing\ntitle: A title\ndescription: One sentence.\ntags: [a, b]\n"
            "generated:\n  by: claude/opus-5\n  at: 2026-11-30\nsources:\n  - id: s1\n    resource: /x.md\n"
            "status: no\nokf_version: 0.2")
    fast = yamlfast.load(text)
    assert fast is not None
    assert fast == yamlsafe.load(text)
    assert fast["status"] is False and fast["okf_version"] == 0.2


def test_fast_path_agrees_on_every_corpus_frontmatter() -> None:
    files = sorted(glob.glob(str(shared_dir() / "conformance/bundles/*/.okf/**/*.md"), recursive=True))
    assert files, "conformance corpus not found"
    fast_count = 0
    for path in files:
        try:
            text = open(path, encoding="utf-8").read()
        except UnicodeDecodeError:
            continue
        m = FRONTMATTER.match(text)
        if not m:
            continue
        fast = yamlfast.load(m.group(1))
        if fast is None:
            continue
        fast_count += 1
        status, full = _full(m.group(1))
        assert status == "ok", path
        assert repr(fast) == repr(full), path
    assert fast_count > 1000


def test_split_uses_either_path_with_the_same_answer() -> None:
    fm, body = split("---\ntype: X\ntags: [a]\n---\n\nbody\n")
    assert fm == {"type": "X", "tags": ["a"]} and body == "body\n"
