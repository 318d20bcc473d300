"""okfpro.core.textview.decoded decodes base64 as the base64 module does, without importing it
(``import base64`` imports ``re``, which the per-event paths no longer load)."""

from __future__ import annotations

import base64
import binascii

from hypothesis import example, given, settings
from hypothesis import strategies as st

from okfpro.core.textview import decoded

ALPHABET = "ABCDEFabcdef0123456789+/-_=xyz \u00e9"


def reference(run: str) -> str | None:
    """decoded() as it was written with the base64 module."""
    data: bytes | None = None
    if len(run) % 2 == 0 and all(c in "0123456789abcdefABCDEF" for c in run):
        try:
            data = binascii.unhexlify(run)
        except (binascii.Error, ValueError):
            data = None
    if data is None:
        body = run.rstrip("=")
        if len(body) % 4 == 1:
            return None
        padded = body + "=" * (-len(body) % 4)
        try:
            if "-" in body or "_" in body:
                data = base64.urlsafe_b64decode(padded)
            else:
                data = base64.b64decode(padded, validate=True)
        except (binascii.Error, ValueError):
            return None
    if len(data) < 12:
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    printable = sum(1 for c in text if c.isprintable() or c in "\n\r\t")
    return text if printable * 20 >= len(text) * 19 else None


ENCODED = st.binary(min_size=10, max_size=60).map(lambda b: base64.b64encode(b).decode())
URLSAFE = st.text(min_size=10, max_size=60).map(lambda t: base64.urlsafe_b64encode(t.encode()).decode())


@settings(max_examples=1500, deadline=None)
@given(st.one_of(st.text(alphabet=ALPHABET, max_size=48), ENCODED, URLSAFE))
@example(base64.b64encode(b"the deploy password is hunter2").decode())
@example(base64.urlsafe_b64encode("the key is \u00e9t\u00e9 ok??>>".encode()).decode())
@example("dGhlIGRlcGxveSBwYXNzd29yZCBpcyBodW50ZXIy\u00e9")
@example("dGhlIGRlcGxveS-wYXNzd29yZCBp cyBodW50ZXIy")
@example("dGhlIGRl    cGxveSBwYXNzd29yZCBpcyBodW50ZXIyIQ==")  # blanks: refused by the strict check
def test_decoded_is_what_the_base64_module_decodes(run):
    assert decoded(run) == reference(run)
