"""Every reader survives every YAML scalar: the interpreter's limits, fed through every verb.

A concept's frontmatter is attacker-controlled text.  Python has limits PyYAML does not
guard: ``int()`` and ``str()`` refuse integers over 4,300 digits (and a hex or sexagesimal
scalar builds one cheaply), recursion stops near 1,000 frames, ``json`` refuses bytes,
sets and date keys.  One such concept once crashed validate, lint, search, catalog, graph,
``state --full`` and audit with a traceback, and PostToolUse then blocked every edit.

The parser layer (``core/yamlsafe.py`` + ``core/yamlfast.py``) closes the class: a value a
reader cannot handle never leaves it.  An integer too long to print stays its digits (the
reference prints a big integer's digits too), bytes become text, a set a mapping, a nested
non-text key text; nesting past :data:`okfpro.core.yamlsafe.MAX_DEPTH` levels makes the file
unparseable with a reason (the reference itself dies with a stack overflow there).

Each hostile value sits in the fields readers use (title, id, tags, status, stale_after,
generated, verified, sources), one concept per value, and every verb runs as a real process
over the bundle: it must answer with its ordinary exit code (0 or 1), never a traceback.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from okfpro.core import concept as concept_mod
from okfpro.core import yamlsafe
from tests import hookkit
from tests.helpers import invoke

# one worker builds the hostile workspace (a 7 MiB concept among them, ~1.2 s) for all its tests
pytestmark = pytest.mark.xdist_group("hostile_yaml")

DIGITS = sys.get_int_max_str_digits() if hasattr(sys, "get_int_max_str_digits") else 4300

HOSTILE: dict[str, str] = {
    "huge_int": "1" * (DIGITS + 1),
    "huge_negative_int": "-" + "9" * (DIGITS * 3),
    "huge_underscored_int": "1_" * (DIGITS + 5) + "1",
    "huge_hex_int": "0x" + "f" * (DIGITS * 2),
    "huge_octal_int": "0o" + "7" * (DIGITS * 2),
    "huge_binary_int": "0b" + "1" * (DIGITS * 4),
    "huge_sexagesimal": "1" + ":59" * 3000,
    "huge_float": "1" + "0" * 5000 + ".5e308",
    "tiny_float": "1.0e-400",
    "nan": ".nan",
    "inf": "-.inf",
    "timestamp_year_0": "0000-01-01",
    "timestamp_out_of_range": "2026-13-45 99:99:99",
    "timestamp_far": "9999-12-31T23:59:59.999999999-23:59",
    "binary": "!!binary aGVsbG8gd29ybGQ=",
    "binary_invalid_utf8": "!!binary //79/A==",
    "set": "!!set {a, b}",
    "omap": "!!omap [a: 1, b: 2]",
    "pairs": "!!pairs [a: 1, a: 2]",
    "date_keys": "{2026-01-01: a, 1: b, 1.5: c, null: d, true: e}",
    "deep_flow_list": "[" * 3000 + "]" * 3000,
    "deep_flow_map": "{a: " * 3000 + "1" + "}" * 3000,
    "moderate_nesting": "[" * 40 + "x" + "]" * 40,
    "huge_string": '"' + "x" * (7 * 1024 * 1024) + '"',
    "str_tagged_int": "!!int " + "1" * (DIGITS + 1),
    "float_tagged": "!!float " + "9" * (DIGITS + 10),
    "null_bytes_escape": '"a\\0b\\x00c"',
}
FIELDS = ("title", "id", "status", "stale_after", "description")


def _block_deep(levels: int) -> str:
    return "deep:\n" + "".join(" " * (2 * i) + f"k{i}:\n" for i in range(1, levels)) + " " * (2 * levels) + "v: 1\n"


def _concept(name: str, value: str) -> str:
    lines = ["---", "type: Note"]
    for field in FIELDS:
        lines.append(f"{field}: {value}" if field != "id" else f"id: {value}")
    lines.append(f"tags: [{value}]" if not value.startswith(("[", "{", "!!", '"')) else f"tags:\n  - {value}")
    lines.append(f"generated:\n  by: {value}\n  at: {value}")
    lines.append(f"verified:\n  - by: {value}\n    at: {value}")
    lines.append(f"sources:\n  - resource: {value}\n    title: {value}")
    lines.append(f"extra: {value}")
    lines.append("---")
    return "\n".join(lines) + f"\n\n# {name}\n\nA hostile concept; see [the plain one](/plain.md).\n"


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    ws = hookkit.make_workspace(tmp_path_factory.mktemp("hostile-yaml"), commit=False)
    root = ws / ".okf" / "hostile"
    root.mkdir()
    entries = []
    for name, value in HOSTILE.items():
        (root / f"{name}.md").write_text(_concept(name, value), encoding="utf-8")
        entries.append(f"* [{name}]({name}.md) - hostile.")
    (root / "block_deep.md").write_text("---\ntype: Note\ntitle: Deep\n" + _block_deep(1500) + "---\n\nbody\n")
    (root / "index.md").write_text("# Hostile\n\n" + "\n".join(entries) + "\n", encoding="utf-8")
    (ws / ".okf" / "plain.md").write_text("---\ntype: Note\ntitle: Plain\ndescription: A plain concept.\n---\n\nPlain.\n")
    hookkit.git(ws, "add", "-A")
    hookkit.git(ws, "commit", "-qm", "hostile")
    return ws


def test_every_hostile_value_parses_to_something_every_reader_can_print() -> None:
    """The unit: split() either returns plain, printable, JSON-able values or a ParseError."""
    for name, value in HOSTILE.items():
        try:
            fm, _ = concept_mod.split(_concept(name, value))
        except concept_mod.ParseError as exc:
            assert "nesting" in str(exc) or "YAML" in str(exc), (name, exc)
            continue
        json.dumps(fm, default=yamlsafe.to_text)  # no bytes, sets or non-text keys survive
        for v in fm.values():
            yamlsafe.to_text(v)
            str(v)
            repr(v)


VERBS: tuple[tuple[str, ...], ...] = (
    ("validate", "{b}"),
    ("validate", "{b}", "--json"),
    ("lint", "{b}"),
    ("lint", "{b}", "--json"),
    ("search", "hostile", "--bundle", "{b}"),
    ("search", "hostile", "--bundle", "{b}", "--json"),
    ("search", "hostile", "--bundle", "{b}", "--engine", "ranked"),
    ("search", "1", "--bundle", "{b}", "--regexp", "--json"),
    ("catalog", "--bundle", "{b}"),
    ("catalog", "--bundle", "{b}", "--json"),
    ("graph", "--bundle", "{b}", "--json"),
    ("graph", "--bundle", "{b}", "--hubs"),
    ("files", "--bundle", "{b}", "--json"),
    ("index", "--bundle", "{b}"),
    ("references", "--bundle", "{b}"),
    ("stats", "--bundle", "{b}", "--json"),
    ("tags", "--bundle", "{b}"),
    ("types", "--bundle", "{b}"),
    ("dirs", "--bundle", "{b}"),
    ("loose", "--bundle", "{b}"),
    ("unverified", "{b}"),
    ("state", "--full", "{b}"),
    ("state", "--full", "{b}", "--json"),
    ("snapshot", "{b}"),
    ("audit", "{ws}"),
    ("read", "hostile/huge_int", "--bundle", "{b}"),
)


@pytest.mark.parametrize("cached", [False, True], ids=["cold", "warm-cache"])
def test_every_reader_survives(workspace: Path, cached: bool) -> None:
    bundle = workspace / ".okf"
    env = {"OKFPRO_TODAY": hookkit.TODAY}
    if not cached:
        env["OKFPRO_NO_CACHE"] = "1"
    failures = []
    for verb in VERBS:
        args = [a.format(b=bundle, ws=workspace) for a in verb]
        proc = invoke(*args, cwd=workspace, env=env)
        if proc.returncode not in (0, 1) or "Traceback" in proc.stderr or "internal error" in proc.stderr:
            failures.append((" ".join(verb), proc.returncode, proc.stderr[-400:]))
        if "--json" in verb and proc.returncode in (0, 1):
            json.loads(proc.stdout)  # JSON output stays JSON
    assert not failures, failures


def test_validate_names_the_too_deep_files(workspace: Path) -> None:
    proc = invoke("validate", str(workspace / ".okf"), "--json", env={"OKFPRO_NO_CACHE": "1"})
    report = json.loads(proc.stdout)
    errors = {e["path"]: e["message"] for e in report["errors"]}
    for name in ("deep_flow_list", "deep_flow_map", "block_deep"):
        assert f"hostile/{name}.md" in errors, (name, errors)
        assert "nest" in errors[f"hostile/{name}.md"]
    # a huge integer is a value like any other: its concept is read (the reference reads it too)
    assert "hostile/huge_int.md" not in errors
    assert "hostile/moderate_nesting.md" not in errors


def test_post_tool_use_answers_beside_hostile_concepts(workspace: Path) -> None:
    """PostToolUse over edits in the hostile bundle: feedback (exit 2 names the broken files) or a
    pass, never exit 1 or a traceback."""
    for rel in ("plain.md", "hostile/huge_int.md", "hostile/deep_flow_list.md", "hostile/binary.md"):
        event = hookkit.edit_event(workspace, rel, "Plain.", tool="Edit", hook_event="PostToolUse")
        proc = hookkit.run_launcher(workspace, "post_edit.py", event)
        err = hookkit.err_text(proc)
        assert proc.returncode in (0, 2), (rel, proc.returncode, err)
        assert "Traceback" not in err and "internal error" not in err, (rel, err)


def test_a_conformant_bundle_with_interpreter_limit_values_does_not_block_edits(tmp_path: Path) -> None:
    """The report's case: a conformant concept carrying a 4,301-digit integer (and its cousins) in
    an extra field.  Every edit elsewhere was blocked; now the edit passes."""
    ws = hookkit.make_workspace(tmp_path, commit=False)
    values = {k: HOSTILE[k] for k in ("huge_int", "huge_hex_int", "huge_sexagesimal", "binary", "set", "nan",
                                       "date_keys", "timestamp_out_of_range", "moderate_nesting")}
    extra = "".join(f"{k}: {v}\n" for k, v in values.items())
    (ws / ".okf" / "areas" / "limits.md").write_text(
        "---\ntype: Overview\ntitle: Limits\ndescription: Values at the interpreter's limits.\n" + extra
        + "---\n\n# Limits\n\nSee [the corpus standard](/areas/corpus.md).\n", encoding="utf-8")
    index = ws / ".okf" / "areas" / "index.md"
    index.write_text(index.read_text() + "* [Limits](limits.md) - values at the limits.\n")
    hookkit.git(ws, "add", "-A")
    hookkit.git(ws, "commit", "-qm", "limits")
    for rel in ("areas/corpus.md", "areas/limits.md"):
        event = hookkit.edit_event(ws, rel, "x", tool="Edit", hook_event="PostToolUse")
        proc = hookkit.run_launcher(ws, "post_edit.py", event)
        assert proc.returncode == 0, (rel, hookkit.err_text(proc)[-2000:])
    proc = invoke("validate", str(ws / ".okf"), env={"OKFPRO_NO_CACHE": "1"})
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_a_memory_record_with_hostile_frontmatter_is_read() -> None:
    """Stored memory entries go through the same parser (mempolicy used its own safe_load)."""
    from okfpro.core import mempolicy

    for name, value in HOSTILE.items():
        if name == "huge_string":
            continue
        text = f"---\nmemory: m-1\nkind: event\nsize: {value}\n---\nremembered text\n"
        record = mempolicy.parse(text, "m-1")
        assert "remembered text" in record.text, name
