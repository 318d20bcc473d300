"""The two places a remember skips PyYAML, held to PyYAML's own answers.

* ``dayfile.split_concept`` accepts the frontmatter ``dayfile.frontmatter`` writes without
  parsing it (``_OWN_HEAD``); every other head is parsed as before.
* ``mempolicy.render`` writes a record's frontmatter with ``plain_yaml`` when every value is a
  word, digits or a date; the text must be exactly ``yaml.dump``'s.
"""

from __future__ import annotations

import datetime as dt
import re

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from okfpro.core import dayfile, mempolicy, yamlsafe
from okfpro.core.dayfile import MalformedConcept, frontmatter, split_concept
from tests.helpers import examples

NEVER = re.compile(r"(?!)")


def verdict(raw: bytes):
    try:
        return split_concept(raw)
    except MalformedConcept as exc:
        return f"malformed: {exc}"


def slow_verdict(raw: bytes, monkeypatch):
    with monkeypatch.context() as m:
        m.setattr(dayfile, "_OWN_HEAD", NEVER)
        return verdict(raw)


moments = st.datetimes(min_value=dt.datetime(1970, 1, 2), max_value=dt.datetime(9999, 12, 30),
                       timezones=st.just(dt.timezone.utc))
versions = st.from_regex(r"okfpro/[0-9A-Za-z][0-9A-Za-z.+_\-]{0,20}", fullmatch=True)


@settings(max_examples=examples(200), deadline=None)
@given(moments, versions)
def test_own_frontmatter_needs_no_parser_and_is_what_yaml_says(when, tool):
    day = when.date().isoformat()
    raw = (frontmatter(day, when, tool) + "\n## 09:00:00 UTC\n\n> hello\n").encode()
    text = raw.decode()
    assert dayfile._OWN_HEAD.fullmatch(text, 4, text.find("\n---\n", 3) + 1)
    data = yamlsafe.load(text[4 : text.find("\n---\n", 3) + 1])
    assert data["type"] == "AgentMemory" and data["title"] == f"Agent memory {day}" and data["generated"]["by"] == tool
    assert split_concept(raw)[1] == "\n## 09:00:00 UTC\n\n> hello\n"


def test_own_frontmatter_is_split_without_yaml(monkeypatch):
    def no_yaml(text):
        raise AssertionError("parsed")

    monkeypatch.setattr(yamlsafe, "load", no_yaml)
    head = frontmatter("2026-12-01", dt.datetime(2026, 12, 1, 8, tzinfo=dt.timezone.utc), "okfpro/0.1.0")
    assert split_concept((head + "\nbody").encode()) == (head, "\nbody")


OWN = frontmatter("2026-12-01", dt.datetime(2026, 12, 1, 8, tzinfo=dt.timezone.utc), "okfpro/0.1.0")


@pytest.mark.parametrize("edit", [
    lambda h: h,
    lambda h: h.replace("type: AgentMemory\n", "type: AgentMemory\ntype: Other\n"),
    lambda h: h.replace("title: Agent memory 2026-12-01\n", "title: ''\n"),
    lambda h: h.replace("  by:", "   by:"),
    lambda h: h.replace("  at: '", "  at: '\n"),
    lambda h: h.replace("okfpro/0.1.0", "okfpro/0.1.0 #c"),
    lambda h: h.replace("okfpro/0.1.0", "okfpro/[x"),
    lambda h: h.replace("okfpro/0.1.0", "okfpro/x: y"),
    lambda h: h.replace("memory 2026-12-01\n", "memory 2026-12-01: x\n"),
    lambda h: h.replace("T08:00:00Z'", "T08:00:00Z''"),
    lambda h: h.replace("description: Scoped", "description: |\n  Scoped"),
    lambda h: h.replace("\n---\n", "\nextra: [\n---\n"),
    lambda h: h.replace("2026-12-01 (UTC)", "٢٠٢٦-١٢-٠١ (UTC)"),
    lambda h: h.replace("type: AgentMemory", "type: AgentMemory\t"),
    lambda h: h.replace("---\n", "---\n\ufeff", 1),
])
def test_any_other_head_gets_the_parser_s_verdict(edit, monkeypatch):
    raw = (edit(OWN) + "\n## 09:00:00 UTC\n\n> x\n").encode()
    assert verdict(raw) == slow_verdict(raw, monkeypatch)


def dump(data):
    return yaml.dump(data, Dumper=getattr(yaml, "CSafeDumper", yaml.SafeDumper), sort_keys=False,
                     default_flow_style=False, allow_unicode=True, width=1000).strip("\n")


TOKENS = ["m-3ef0f1a9793e", "fact", "active", "user", "1", "0", "007", "12", "2026-12-01", "2026-13-45", "1.5",
          "yes", "Yes", "YES", "yES", "no", "No", "on", "Off", "true", "False", "null", "Null", "NULL", "NuLL", "~",
          "y", "n", "", " ", "a b", "x:", "-x", "a-", "_x", "é", "ünï", "0x1f", "1e3", ".inf", "=", "<<", "a#b",
          "A_B-c9", "inf", "nan", "True1"]
values = st.one_of(st.sampled_from(TOKENS), st.lists(st.sampled_from(TOKENS), min_size=0, max_size=3),
                   st.text(max_size=6), st.none(), st.integers())
keys = st.one_of(st.sampled_from(["memory", "kind", "created", "supersedes", "policy_version"]), st.sampled_from(TOKENS))


@settings(max_examples=examples(400), deadline=None)
@given(st.dictionaries(keys, values, min_size=1, max_size=6))
def test_plain_yaml_is_yaml_dump_or_declines(data):
    fast = mempolicy.plain_yaml(data)
    if fast is not None:
        assert fast == dump(data)


@pytest.mark.parametrize("kind", mempolicy.KINDS)
@pytest.mark.parametrize("source", mempolicy.SOURCES)
def test_every_usual_record_renders_without_yaml_and_as_yaml_would(kind, source, monkeypatch):
    rec = mempolicy.make("the staging db is db-7", kind=kind, source=source, created=dt.date(2026, 12, 1),
                         valid_until="2027-01-01", review_at="2026-12-24")
    rec = mempolicy.replace(rec, supersedes=("m-aaaaaaaaaaaa",), related=("m-bbbbbbbbbbbb", "m-cccccccccccc"))
    records = [rec, mempolicy.change_record("archive", rec.id, source=source, created="2026-12-02")]
    for r in records:
        fast = mempolicy.render(r)
        with monkeypatch.context() as m:
            m.setattr(mempolicy, "plain_yaml", lambda data: None)
            assert fast == mempolicy.render(r)
        data = yamlsafe.load(fast[4 : fast.index("\n---")])
        assert mempolicy.plain_yaml(data) is not None  # the shortcut served it


@settings(max_examples=examples(400), deadline=None)
@given(st.dictionaries(keys, values, min_size=1, max_size=6))
def test_plain_load_reads_back_what_plain_yaml_writes(data):
    text = mempolicy.plain_yaml(data)
    if text is not None:
        assert mempolicy.plain_load(text) == data == yamlsafe.load(text)


LINES = st.one_of(
    st.builds(lambda k, v: f"{k}: {v}", st.sampled_from(TOKENS + ["'1'", "'2026-12-01'", "'x'", "''"]),
              st.sampled_from(TOKENS + ["'1'", "'2026-12-01'", "'x'", "''", "'12'x", "[a]", "{}", "a: b"])),
    st.builds(lambda k: f"{k}:", st.sampled_from(TOKENS)),
    st.builds(lambda v: f"- {v}", st.sampled_from(TOKENS + ["'1'", "'2026-12-01'"])),
    st.sampled_from(["", " ", "  - x", "#c", "---", "key:  two", "key:x", "key: x ", "? x"]),
)


@settings(max_examples=examples(600), deadline=None)
@given(st.lists(LINES, min_size=1, max_size=6))
def test_plain_load_is_the_parser_or_declines(lines):
    text = "\n".join(lines)
    fast = mempolicy.plain_load(text)
    if fast is not None:
        assert fast == yamlsafe.load(text)


def test_a_record_is_parsed_without_yaml_and_as_yaml_would(monkeypatch):
    rec = mempolicy.make("the staging db is db-7", kind="decision", source="user", created=dt.date(2026, 12, 1))
    rec = mempolicy.replace(rec, supersedes=("m-aaaaaaaaaaaa", "m-bbbbbbbbbbbb"))
    text = mempolicy.render(rec)
    with monkeypatch.context() as m:
        m.setattr(mempolicy, "plain_load", lambda head: None)
        slow = mempolicy.parse(text, "e#1")
    monkeypatch.setattr(yamlsafe, "load", lambda head: pytest.fail("parsed with yaml"))
    assert mempolicy.parse(text, "e#1") == slow
    assert slow.supersedes == ("m-aaaaaaaaaaaa", "m-bbbbbbbbbbbb") and slow.kind == "decision"


@pytest.mark.parametrize("text", ["a:\nb: x", "a:", "a: x\na: y", "a:\n- x\na: y", "a: x\n- y", "a:\n- x\n- '1'\nb: z",
                                  "a: 'yes'", "a: yes", "a: Null", "a:\n- no", "- x", "a: x\n", "a:  x", "a: m-1\nb:"])
def test_plain_load_on_edges(text):
    fast = mempolicy.plain_load(text)
    if fast is not None:
        assert fast == yamlsafe.load(text)
