"""A commented ``.gemini/settings.json`` merged keeping every comment (issue 38.4), over 200 generated files.

Each owner file is random settings (hooks of their own, other keys, strings that look like comments),
dumped in a random layout with ``//`` and ``/* */`` comments dropped in wherever JSON allows whitespace.
The merge must keep every comment, every key and hook group of the owner (in order), add all of
okfpro's events, read back as Gemini reads it, and be a no-op when run again.  Gemini's own loader on one
such file is tests/test_gemini_doors.py.
"""

from __future__ import annotations

import json
import random

import pytest

from okfpro.core.jsonc import loads_commented, strip_comments
from okfpro.io.scaffold import template_root
from okfpro.io.wiring import MergeError, merge_json

TEMPLATE = (template_root() / "wiring/gemini/.gemini/settings.json").read_text()
OURS = json.loads(TEMPLATE)
def comment_points(text):
    pts=[]; ins=False; i=0
    while i < len(text):
        c=text[i]
        if c=='"':
            j=i-1; b=0
            while j>=0 and text[j]=='\\': b+=1; j-=1
            if b%2==0: ins = not ins
        elif not ins and c in ',:{[':
            pts.append(i+1)
        elif not ins and c in '}]':
            pts.append(i)
        i+=1
    return pts

def owner(rng):
    d={}
    for k in rng.sample(["ui","model","context","mcpServers","tools","hooks","general"], rng.randint(0,5)):
        if k=="hooks":
            h={}
            for ev in rng.sample(["BeforeTool","AfterTool","SessionStart","Notification","AfterAgent"], rng.randint(0,3)):
                h[ev]=[{"matcher": "x", "hooks":[{"type":"command","command":f"echo {ev} \"q\" // not"}]} for _ in range(rng.randint(0,2))]
            d[k]=h
        else:
            d[k]={"v": rng.randint(0,9), "s": "a/*b*/c", "l":[1,2]}
    return d


@pytest.mark.parametrize("seed", range(200))
def test_a_commented_file_keeps_every_comment(seed: int) -> None:
    rng = random.Random(seed)
    o = owner(rng)
    text = json.dumps(o, indent=rng.choice([None, 2, 4]))
    points = comment_points(text)
    tags = []
    for n, p in enumerate(sorted(rng.sample(points, min(len(points), rng.randint(1, 6))), reverse=True)):
        tags.append(f"c{n}x")
        text = text[:p] + (f" /* c{n}x */ " if rng.random() < 0.5 else f" // c{n}x\n") + text[p:]
    if rng.random() < 0.3:
        text = "// head\r\n" + text.replace("\n", "\r\n")
    assert strip_comments(text) != text and loads_commented(text) == o
    out = merge_json(text, TEMPLATE, "x", commented=True)
    assert out is not None
    merged = loads_commented(out)
    assert all(t in out for t in tags), out
    assert set(OURS["hooks"]) <= set(merged["hooks"])
    assert all(merged[k] == v for k, v in o.items() if k != "hooks")
    assert all(merged["hooks"][ev][: len(groups)] == groups for ev, groups in o.get("hooks", {}).items())
    assert merge_json(out, TEMPLATE, "x", commented=True) is None


def test_a_file_gemini_would_not_read_is_refused() -> None:
    for text in ('{"a": 1,}  // trailing comma', "// only a comment", '{"hooks": [] /* not an object */}'):
        with pytest.raises(MergeError):
            merge_json(text, TEMPLATE, "x", commented=True)
