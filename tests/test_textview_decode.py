"""okfpro.core.textview.b64decode decodes as the base64 module does, without importing it
(``import base64`` imports ``re``, which the per-event paths no longer load)."""

from __future__ import annotations

import base64
import binascii

from hypothesis import example, given, settings
from hypothesis import strategies as st

from okfpro.core.textview import b64decode

ALPHABET = "ABCDEFabcdef0123456789+/-_=xyz \u00e9"


def outcome(fn, text: str) -> object:
    try:
        return fn(text)
    except (binascii.Error, ValueError) as exc:
        return type(exc) if isinstance(exc, binascii.Error) else ValueError


ENCODED = st.binary(min_size=10, max_size=60).map(lambda b: base64.b64encode(b).decode())
URLSAFE = st.text(min_size=10, max_size=60).map(lambda t: base64.urlsafe_b64encode(t.encode()).decode())


# 300 examples: seeds 1-3 caught each of five mutations of b64decode (strict mode off, "_" or "-" left
# untranslated or swapped, latin-1 for ascii, the urlsafe decode made strict) at 300 as at 1500, at a fifth
# of the CPU
@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(alphabet=ALPHABET, max_size=48), ENCODED, URLSAFE))
@example(base64.b64encode(b"the deploy password is hunter2").decode())
@example(base64.urlsafe_b64encode("the key is \u00e9t\u00e9 ok??>>".encode()).decode())
@example("dGhlIGRlcGxveSBwYXNzd29yZCBpcyBodW50ZXIy\u00e9")
@example("dGhlIGRl    cGxveSBwYXNzd29yZCBpcyBodW50ZXIyIQ==")  # blanks: refused by the strict check
@example("dGhl-IGRl_cGxveSBw")
def test_b64decode_is_the_base64_modules(text):
    assert outcome(lambda t: b64decode(t, urlsafe=False), text) == outcome(
        lambda t: base64.b64decode(t, validate=True), text)
    assert outcome(lambda t: b64decode(t, urlsafe=True), text) == outcome(base64.urlsafe_b64decode, text)
