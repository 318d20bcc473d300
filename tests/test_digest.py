"""okfpro/core/digest.py gives hashlib's digests without loading OpenSSL."""

from __future__ import annotations

import hashlib
import subprocess
import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from okfpro.core import digest
from tests.helpers import examples


@settings(max_examples=examples(300), deadline=None)
@given(st.binary(max_size=4096), st.integers(1, 64))
def test_the_same_digests_as_hashlib(data: bytes, size: int) -> None:
    assert digest.sha256(data).hexdigest() == hashlib.sha256(data).hexdigest()
    assert digest.sha1(data).hexdigest() == hashlib.sha1(data).hexdigest()
    assert digest.blake2b(data, digest_size=size).hexdigest() == hashlib.blake2b(data, digest_size=size).hexdigest()
    h = digest.sha256(data[:7])
    h.update(data[7:])
    assert h.digest() == hashlib.sha256(data).digest()


def test_it_loads_no_openssl() -> None:
    probe = "import sys, okfpro.core.digest as d; d.sha256(b'x'); print('_hashlib' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", probe], check=True, capture_output=True, text=True).stdout
    assert out.strip() == "False"
