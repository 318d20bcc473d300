"""``okfpro.toml`` read without tomllib (okfpro/core/plaintoml.py), held to tomllib's answers.

Whatever the plain reader accepts, ``tomllib.loads`` reads as the same data, types included
(``1``, ``1.0`` and ``true`` are three answers); whatever tomllib refuses, the plain reader
declines.  The file ``okfpro init`` writes is read without tomllib (a hook then never imports it).
"""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from okfpro.core import plaintoml
from okfpro.io.config import load
from tests.helpers import examples

REPO = Path(__file__).resolve().parents[1]


def typed(value: object) -> object:
    """The data with every value's type spelled out: equality that tells 1, 1.0 and True apart."""
    if isinstance(value, dict):
        return ("table", sorted((k, typed(v)) for k, v in value.items()))
    if isinstance(value, list):
        return ("array", [typed(v) for v in value])
    return (type(value).__name__, repr(value))


def agrees(text: str) -> dict | None:
    mine = plaintoml.load(text)
    try:
        theirs = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        assert mine is None, f"accepted what tomllib refuses: {text!r} -> {mine!r}"
        return None
    if mine is not None:
        assert typed(mine) == typed(theirs), f"{text!r}: {mine!r} != tomllib's {theirs!r}"
    return mine


# The pieces of a line: mostly what the reader takes (so that its answers get compared), and
# TOML's own edge cases and hostile spellings next to them (so that its refusals do).
texts = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=6)
plain_keys = st.sampled_from(["a", "b", "memory", "root", "A-b_9", "true", "1"])
keys = plain_keys | st.sampled_from(["", "a.b", '"q"', "'l'", "é", "a b"])
plain_scalars = st.one_of(
    st.sampled_from(["0", "1", "-1", "+1", "0.6", "-0.0", "+1.5", "true", "false", '""', '"a,b"', '"a]"', '"#"']),
    texts.map(lambda t: '"' + t + '"'),
    st.integers(-10**20, 10**20).map(str),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
)
hostile_scalars = st.sampled_from([
    "01", "1_000", "0x1f", "1.", ".5", "1e3", "inf", "nan", "True", "1979-05-27", "''", "'lit'", '"a\\"b"',
    '"\\u00e9"', '"\\n"', '"back\\\\slash"', '"tab\there"', '"del\x7f"', '"nul\x00"', '"""x"""',
    "18446744073709551616", "-", "+", "[[1]]", "[1", "{a = 1}", "[,]", "[1,,2]"])
arrays = st.lists(plain_scalars | hostile_scalars, max_size=4).flatmap(
    lambda items: st.sampled_from([", ", ",", " , ", ",\n", " ", ""]).map(lambda sep: "[" + sep.join(items) + "]"))
spaces = st.sampled_from(["", " ", "\t", "  "])
plain_comments = st.sampled_from(["", " # note", "#", " # é ünïcode", " # a = 1", " #\t"])
comments = plain_comments | st.sampled_from(["# x\x01", " #\x7f", " #\x00"]) | texts.map(lambda t: " #" + t)
plain_line = st.tuples(spaces, plain_keys, spaces, st.just("="), spaces, plain_scalars | arrays, plain_comments).map(
    "".join)
header = st.tuples(spaces, st.just("["), spaces, plain_keys, spaces, st.just("]"), plain_comments).map("".join)
hostile_line = st.one_of(
    st.tuples(spaces, keys, spaces, st.sampled_from(["=", "==", ""]), spaces, plain_scalars | hostile_scalars | arrays,
              comments).map("".join),
    st.tuples(spaces, st.sampled_from(["[", "[[", "[ "]), keys, st.sampled_from(["]", "]]", " ]", ""]), comments).map(
        "".join),
    comments,
    texts,
)
plain_lines = st.one_of(plain_line, plain_line, plain_line, plain_line, header, header, plain_comments)
lines = plain_lines | hostile_line
ends = st.sampled_from(["\n", "\n", "\n", "\r\n", "\r", ""])
documents = st.lists(st.tuples(plain_lines, st.just("\n")), max_size=12) | st.lists(st.tuples(lines, ends), max_size=12)


@settings(max_examples=examples(600), deadline=None)
@given(documents)
def test_whatever_it_reads_tomllib_reads_the_same(parts: list[tuple[str, str]]) -> None:
    agrees("".join(line + end for line, end in parts))


def test_the_pieces_it_is_meant_to_read() -> None:
    text = ('# top\n\nk = 1\n[memory]   # c\nroot = ".okf-memory"  # where\ntiers = ["session", "user",]\n'
            'budget = 2000\nshare = 0.6\ncapture = false\nempty = []\n\t [ci]\nrequirement = ""\n')
    assert agrees(text) == {"k": 1, "memory": {"root": ".okf-memory", "tiers": ["session", "user"], "budget": 2000,
                                               "share": 0.6, "capture": False, "empty": []},
                            "ci": {"requirement": ""}}
    for refused in ("a = 1\na = 2\n", "[m]\n[m]\n", "m = 1\n[m]\n", "a = 1\r\n", "a = 01\n", "a = \"\x01\"\n",
                    "[m]\n# \x00\n", 'a = "\\u00e9"\n', 'a = "x\\"y"\n', 'a = "\x7f"\n', "# \x7f\n", "a = 1.\n",
                    'a = ["x",\n"y"]\n', "a = [1 2]\n", 'a = ["x""y"]\n', "a = [1, [2]]\n", "[a.b]\n", "[[a]]\n", '"a" = 1\n', "a.b = 1\n"):
        assert plaintoml.load(refused) is None, refused
        agrees(refused)


def test_the_file_init_writes_is_read_without_tomllib(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    subprocess.run([sys.executable, "-m", "okfpro", "init", str(ws)], check=True, capture_output=True)
    text = (ws / "okfpro.toml").read_text(encoding="utf-8")
    assert agrees(text) is not None, "okfpro init's own okfpro.toml needs tomllib"
    probe = ("import sys; from okfpro.io.config import load; c = load(sys.argv[1]); "
             "print(c.get('memory', 'root'), 'tomllib' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", probe, str(ws)], check=True, capture_output=True, text=True).stdout
    assert out.split() == [".okf-memory", "False"]


def test_anything_else_goes_to_tomllib_and_its_error_is_the_answer(tmp_path: Path) -> None:
    (tmp_path / "okfpro.toml").write_text('[memory]\nroot = "mem"\n[identity]\nuser = "\\u0061lice"\n'
                                          "when = 1979-05-27\n", encoding="utf-8")
    cfg = load(tmp_path)
    assert cfg.get("identity", "user") == "alice" and cfg.get("memory", "root") == "mem"
    assert str(cfg.get("identity", "when")) == "1979-05-27"
    (tmp_path / "okfpro.toml").write_text('[memory]\nroot = "a"\nroot = "b"\n', encoding="utf-8")
    try:
        load(tmp_path)
    except ValueError as exc:
        assert "not valid TOML" in str(exc)
    else:
        raise AssertionError("a duplicate key was read")
