"""okfpro/core/jsonc.py answers as the standard library's json does, without importing it.

Every answer is compared with ``json``'s for the same input: the value (its ``repr``, so 1, 1.0
and True differ and NaN equals NaN), the string, or the error (its type, message, position and
chained context).  The paths a host runs per event decode and encode through ``jsonc``
(tests/test_import_diet.py pins that they import no ``json``).
"""

from __future__ import annotations

import datetime
import enum
import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from okfpro.cli.common import jsonable
from okfpro.core import jsonc
from tests.helpers import examples


def outcome(fn, *args, **kwargs):
    """What a call answers: ("ok", repr of the value) or ("error", its type, message and more)."""
    try:
        value = fn(*args, **kwargs)
    except Exception as exc:  # noqa: BLE001 - the error is what is compared
        more = tuple(getattr(exc, a, None) for a in ("msg", "doc", "pos", "lineno", "colno"))
        context = exc.__context__
        return ("error", type(exc), str(exc), more, exc.__suppress_context__, type(exc.__cause__),
                type(context), getattr(context, "args", None))
    return ("ok", type(value), repr(value))


def same_loads(text) -> tuple:
    got = outcome(jsonc.loads, text)
    assert got == outcome(json.loads, text), text if len(text) < 500 else (text[:200], len(text))
    return got


def same_dumps(obj, **kwargs) -> tuple:
    got = outcome(jsonc.dumps, obj, **kwargs)
    assert got == outcome(json.dumps, obj, **kwargs), (obj, kwargs)
    return got


# characters a JSON document's strings and whitespace get wrong: escapes, controls, lone surrogates,
# Unicode whitespace JSON does not allow, the BOM, astral characters
TRICKY = '"\\/\b\f\n\r\t\x00\x1f\x7f\x0b\x0c\x85\xa0\u2028\u2029\ufeff\ud800\udbff\udc00\udfff\U0001f600é'
chars = st.one_of(st.characters(codec=None), st.sampled_from(TRICKY), st.integers(0xD800, 0xDFFF).map(chr))
texts = st.text(chars, max_size=30)
scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.integers(-(10**40), 10**40),
                    st.floats(allow_nan=True, allow_infinity=True), texts)
values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=5),
                                                      st.dictionaries(texts, inner, max_size=5)), max_leaves=40)
# dumps takes more than JSON gives back: tuples, non-str keys, subclasses, values only default= knows
keys = st.one_of(texts, st.integers(), st.floats(allow_nan=True), st.booleans(), st.none())


class Colour(enum.IntEnum):
    RED = 1


class Name(str):
    pass


extras = st.one_of(st.sampled_from([Colour.RED, Name("x\u2028"), datetime.date(2026, 1, 2), {1, 2}, b"b", 1j,
                                    frozenset(), object, (1, "t")]), st.tuples(scalars, scalars))
dumpables = st.recursive(st.one_of(scalars, extras), lambda inner: st.one_of(
    st.lists(inner, max_size=5), st.dictionaries(keys, inner, max_size=5), st.tuples(inner)), max_leaves=30)


def refuse(value):
    raise ValueError(f"no default for {type(value).__name__}")


options = st.fixed_dictionaries({}, optional={
    "ensure_ascii": st.booleans(), "sort_keys": st.booleans(), "skipkeys": st.booleans(),
    "allow_nan": st.booleans(), "check_circular": st.booleans(),
    "separators": st.sampled_from([None, (",", ":"), (", ", ": "), (" ,", " : "), ("\n", "=")]),
    "default": st.sampled_from([None, jsonable, refuse, repr]),
})


@settings(max_examples=examples(400), deadline=None)
@given(dumpables, options)
def test_dumps_is_json_dumps_for_every_option_okfpro_uses(value, kwargs) -> None:
    same_dumps(value, **kwargs)


@settings(max_examples=examples(400), deadline=None)
@given(values, st.sampled_from([None, 0, 2, "\t"]), st.booleans(), st.booleans())
def test_loads_reads_what_json_writes(value, indent, ensure_ascii, sort_keys) -> None:
    text = json.dumps(value, indent=indent, ensure_ascii=ensure_ascii, sort_keys=sort_keys)
    assert same_loads(text)[0] == "ok"


WS = st.text(st.sampled_from(" \t\n\r\x0b\x0c\xa0\u2028\ufeff\x00x,]}"), max_size=4)


# 300 examples (was 600): seeds 1-3 caught each of the six mutations of jsonc.loads that 600 caught
# (JSON whitespace with a form feed, Unicode whitespace stripped either side, strict off, ints as floats,
# trailing data ignored) at 300 as well; NaN read as inf: 2/3 at 300, 0/3 at 600 (test_adversarial_documents
# holds it); the leading whitespace left to the scanner is no fault (json answers)
@settings(max_examples=examples(300), deadline=None)
@given(values, WS, WS, st.data())
def test_loads_fails_as_json_does_on_broken_documents(value, before, after, data) -> None:
    """Whitespace (JSON's and not), a BOM or garbage around a document; the document cut short,
    a character dropped, or one put in: the same value or the same JSONDecodeError."""
    text = json.dumps(value, ensure_ascii=data.draw(st.booleans()))
    same_loads(before + text + after)
    cut = data.draw(st.integers(0, len(text)))
    same_loads(text[:cut])
    if text:
        at = data.draw(st.integers(0, len(text) - 1))
        same_loads(text[:at] + text[at + 1:])
        same_loads(text[:at] + data.draw(st.sampled_from(TRICKY + "0-e.:,[]{}ntfNIa ")) + text[at:])


@settings(max_examples=examples(400), deadline=None)
@given(st.text(st.sampled_from('[]{}",:0123456789-+.eEtrufalsnNIiy \t\n\r\x0c\\u\x00\ud800'), max_size=40))
def test_loads_of_any_json_like_text_is_json_loads(text) -> None:
    same_loads(text)


ADVERSARIAL = [
    "", " ", "\t\n\r ", "[", "[1,", "[1,]", '{"a":1,}', '{"a" 1}', '{"a":}', '{1: 2}', "{'a': 1}", '"abc', '"\\x"',
    '"\\u12"', '"\\u12g4"', '"a\nb"', '"a\x00b"', '"\x1f"', "[1] x", "[1] [2]", "1 2", "tru", "nul", "True",
    "\ufeff[1]", " \ufeff[1]", "[1]\x0c", "\x0c[1]", "\xa0[1]", "[1]\xa0", "[1]\u2028", "\x0b1", "1\x0b",
    " \t\n\r[ \t\n\r1 \t\n\r, \t\n\r2 \t\n\r] \t\n\r", "[1\x0c,2]",
    "NaN", "-NaN", "Infinity", "-Infinity", "+Infinity", "infinity", "[NaN, -Infinity, Infinity]", "nan",
    "1e400", "-1e400", "1e-400", "-0", "-0.0", "0.1e1", "01", "-", "1.", ".5", "1e", "1e+", "+1", "0x10",
    "1" * 4300, "1" * 4301, "-" + "9" * 4300, "1." + "5" * 5000,
    '"\\ud800"', '"\\udc00\\ud800"', '"\\ud83d\\ude00"', '"\\ud83d"', '"\ud800"', '"\\u0000"', '"\\/"',
    '{"a": 1, "a": 2}', '{"": 0}', '{"a":{"a":{"a":[]}}}', "[" * 100 + "]" * 100, "[" * 100, "]",
    '"' + "x" * 1_000_000 + '"', '["' + "é" * 100_000 + '"]', "[" + "1," * 100_000 + "1]",
]


@pytest.mark.parametrize("text", ADVERSARIAL, ids=range(len(ADVERSARIAL)))
def test_adversarial_documents(text) -> None:
    same_loads(text)


@pytest.mark.parametrize("doc", [b"[1]", b"\xef\xbb\xbf[1]", "[1]".encode("utf-16"), "[1]".encode("utf-32-be"),
                                 bytearray(b'{"a":1}'), b"\xff", None, 1, ["[1]"], Name("[1]"), Name("\ufeff1")])
def test_other_inputs_are_json_s(doc) -> None:
    same_loads(doc)


def deepest(fn, build) -> int:
    """The deepest nesting ``fn`` takes without a RecursionError (bisected)."""
    lo, hi = 1, 20_000
    while lo < hi:
        mid = (lo + hi + 1) // 2
        try:
            fn(build(mid))
        except RecursionError:
            hi = mid - 1
        else:
            lo = mid
    return lo


def nested(depth: int) -> list:
    value: list = []
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize("build", [lambda n: "[" * n + "]" * n, lambda n: '{"a":' * n + "1" + "}" * n],
                         ids=["arrays", "objects"])
def test_a_deep_document_fails_at_json_s_depth_with_json_s_error(build) -> None:
    limit = deepest(json.loads, build)
    assert deepest(jsonc.loads, build) == limit
    same_loads(build(limit))
    assert same_loads(build(limit + 1))[1] is RecursionError


def test_a_deep_value_fails_to_encode_at_json_s_depth() -> None:
    for kwargs in ({}, {"sort_keys": True, "separators": (",", ":")}):
        limit = deepest(lambda v: json.dumps(v, **kwargs), nested)
        assert deepest(lambda v: jsonc.dumps(v, **kwargs), nested) == limit
        same_dumps(nested(limit), **kwargs)
        assert same_dumps(nested(limit + 1), **kwargs)[1] is RecursionError


@pytest.mark.parametrize("value", ["", "é\u2028\ud800", Name("x"), "\x00\x1f\"\\", 1, True, None, 1.5, -0.0,
                                   float("nan"), float("-inf"), Colour.RED, 10**5000, [], {}, ()], ids=range(16))
@pytest.mark.parametrize("separators", [None, (",", ":"), (1, 2), ("a",), ("x", 2)], ids=range(5))
def test_a_top_level_scalar_and_odd_separators(value, separators) -> None:
    """``encode`` answers a ``str`` (or subclass) without the encoder, after ``__init__``
    unpacked the separators; ints past the digit limit fail as json's do."""
    for ensure_ascii in (True, False):
        same_dumps(value, separators=separators, ensure_ascii=ensure_ascii)
        same_dumps(value, separators=separators, allow_nan=False)


def test_errors_of_dumps_are_json_s_and_default_runs_as_often() -> None:
    loop: list = []
    loop.append(loop)
    cases = [({1j: 1}, {}), ({1j: 1}, {"skipkeys": True}), ({(1,): 1}, {}), ({1: 1, "a": 2}, {"sort_keys": True}),
             (loop, {}), ([float("nan")], {"allow_nan": False}), ([object()], {}), ({"a": {1, 2}}, {}),
             ({"a": {1, 2}}, {"default": refuse}), ({"a": datetime.datetime(2026, 1, 2, 3, 4)}, {"default": jsonable})]
    for value, kwargs in cases:
        same_dumps(value, **kwargs)
    seen: dict[str, list] = {"json": [], "jsonc": []}
    for name, fn in (("json", json.dumps), ("jsonc", jsonc.dumps)):
        def counting(value, into=seen[name]):
            into.append(type(value).__name__)
            if len(into) > 2:
                raise TypeError("enough")
            return sorted(value) if isinstance(value, set) else str(value)
        assert outcome(fn, [{1, 2}, {3}, {4}, object()], default=counting)[0] == "error"
    assert seen["json"] == seen["jsonc"] == ["set", "set", "set"]  # no second run of the caller's default


def test_indent_cls_and_other_keywords_are_json_s_own() -> None:
    value = {"b": [1, {"c": None}], "a": "é"}
    for kwargs in ({"indent": 2}, {"indent": 0, "ensure_ascii": False}, {"indent": "\t", "sort_keys": True},
                   {"cls": json.JSONEncoder}, {"indent": 2, "default": jsonable, "separators": (",", ":")}):
        same_dumps(value, **kwargs)
    with pytest.raises(TypeError):  # json.dumps hands an unknown keyword to the encoder's class
        jsonc.dumps(value, nonsense=1)


def test_without_the_accelerator_json_answers(monkeypatch) -> None:
    monkeypatch.setattr(jsonc, "_scan", None)
    monkeypatch.setattr(jsonc, "_make_encoder", None)
    for text in ("[1, 2.5]", " {} ", "[1", "\ufeff1"):
        same_loads(text)
    same_dumps({"a": (1, 2)}, sort_keys=True, separators=(",", ":"))


def test_the_module_imports_neither_json_nor_re_until_a_document_is_bad() -> None:
    """On its way to an answer ``jsonc`` loads ``_json`` alone: ``json`` would bring ``re`` and
    ``enum`` (~31 M instructions).  A broken document is json's to report."""
    code = ("import sys\nfrom okfpro.core import jsonc\n"
            "jsonc.loads(' {\"a\": [1, 2.5, null, \"\\\\u00e9\"]} ')\n"
            "jsonc.dumps({'a': [1, 'é']}, ensure_ascii=False, sort_keys=True, separators=(',', ':'), default=str)\n"
            "jsonc.dumps('x')\n"
            "print(sorted(m for m in ('_json', 'json', 'json.decoder', 're', 'enum') if m in sys.modules))\n"
            "try:\n    jsonc.loads('[1,')\nexcept ValueError as e:\n    print(type(e).__module__, type(e).__name__)\n")
    # -S: no site (an editable install's finder imports re at start-up); okfpro from this checkout
    proc = subprocess.run([sys.executable, "-S", "-c", code], cwd=Path(__file__).resolve().parents[1],
                          capture_output=True, text=True, check=True)
    assert proc.stdout.splitlines() == ["['_json']", "json.decoder JSONDecodeError"], proc.stdout
