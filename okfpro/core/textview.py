"""The text as a reader would see it: the views that undo a spelling which hides a secret.

A secret hidden from the redaction rules by its spelling is found in a *view* of the text
and redacted at the original span:
  * normalised: NFKC (fullwidth letters), compatibility decomposition with combining
    marks dropped, format characters removed (zero-width space/joiner, soft hyphen,
    bidi marks, BOM), lookalike letters mapped to ASCII (U+0261 for g, Cyrillic and
    Greek homoglyphs);
  * joined: a token broken over lines (token characters on both sides of a line break,
    an optional trailing backslash, indentation or a quote/comment lead on the next line);
  * decoded: base64 / base64url / hex runs that decode to text are scanned once more
    (two levels deep); a secret inside makes the whole encoded run a secret.
Every view carries, for each of its characters, the index of the original character
it came from, so a match maps back to the exact original span.

Pure; the redaction rules (:mod:`okfpro.core.redact`) run over each view.  Patterns compile on
first use (:mod:`re`'s cache keeps them): a hook pays only for the views its text needs.
"""

from __future__ import annotations

import base64
import re
import unicodedata


_CONFUSABLES = str.maketrans({
    # Latin extensions and IPA
    "\u0261": "g", "\u0251": "a", "\u0131": "i", "\u0237": "j", "\u01c0": "l", "\u0269": "i", "\u028b": "v",
    "\u0252": "a", "\u025b": "e", "\u0254": "o", "\u01bf": "p",
    # Cyrillic
    "\u0430": "a", "\u0435": "e", "\u043e": "o", "\u0440": "p", "\u0441": "c", "\u0443": "y", "\u0445": "x",
    "\u0456": "i", "\u0458": "j", "\u0455": "s", "\u0501": "d", "\u04bb": "h", "\u043a": "k", "\u0432": "b",
    "\u043c": "m", "\u043d": "h", "\u0442": "t", "\u051b": "q", "\u051d": "w", "\u0475": "v",
    "\u0410": "A", "\u0412": "B", "\u0415": "E", "\u041a": "K", "\u041c": "M", "\u041d": "H", "\u041e": "O",
    "\u0420": "P", "\u0421": "C", "\u0422": "T", "\u0425": "X", "\u04ae": "Y", "\u0406": "I", "\u0408": "J",
    "\u0405": "S", "\u0417": "3", "\u0411": "b",
    # Greek
    "\u03bf": "o", "\u03b1": "a", "\u03bd": "v", "\u03c1": "p", "\u03c5": "u", "\u03ba": "k", "\u03b9": "i",
    "\u03c4": "t", "\u03c7": "x", "\u03b5": "e",
    "\u0391": "A", "\u0392": "B", "\u0395": "E", "\u0396": "Z", "\u0397": "H", "\u0399": "I", "\u039a": "K",
    "\u039c": "M", "\u039d": "N", "\u039f": "O", "\u03a1": "P", "\u03a4": "T", "\u03a5": "Y", "\u03a7": "X",
    # Armenian, Cherokee and others that pass for ASCII
    "\u0585": "o", "\u0578": "n", "\u057d": "u", "\u0566": "q", "\u13a0": "D", "\u13a1": "R", "\u13a2": "T",
    "\u13a9": "Y", "\u13aa": "A", "\u13ab": "J", "\u13ac": "E", "\u13b3": "W", "\u13b7": "M", "\u13bb": "H",
    "\u13c0": "G", "\u13c2": "h", "\u13c3": "Z", "\u13cf": "b", "\u13d2": "R", "\u13da": "S", "\u13de": "L",
    "\u13df": "C", "\u13e2": "P", "\u13e6": "K",
    # dashes and underscores that read as '-' / '_'
    "\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2013": "-", "\u2212": "-", "\u02cd": "_",
})
_TOKEN_CHARS = "A-Za-z0-9+/=_.~\\-"
_LINE_JOIN = (
    r"(?<=[" + _TOKEN_CHARS + r"])\\?[ \t]*\r?\n[ \t]*(?:(?:#|//|>|\*|--)[ \t]*)?[\"']?(?=[" + _TOKEN_CHARS + r"])"
)
B64_RUN = r"(?<![A-Za-z0-9+/_\-])[A-Za-z0-9+/_\-]{20,}={0,2}"
HEX_RUN = r"(?<![0-9A-Fa-f])(?:[0-9A-Fa-f]{2}){16,}(?![0-9A-Fa-f])"




def normalise(text: str) -> tuple[str, list[int]] | None:
    """The normalised view and its origin map, or None when it equals ``text``."""
    if text.isascii():
        return None
    parts: list[str] = []
    origin: list[int] = []
    pos = 0
    changed = False
    for m in re.finditer(r"[^\x00-\x7f]", text):
        i = m.start()
        if i > pos:
            parts.append(text[pos:i])
            origin.extend(range(pos, i))
        ch = text[i]
        pos = i + 1
        if unicodedata.category(ch) == "Cf":
            changed = True
            continue
        mapped = unicodedata.normalize("NFKD", ch)
        mapped = "".join(c for c in mapped if not unicodedata.combining(c))
        mapped = unicodedata.normalize("NFKC", mapped).translate(_CONFUSABLES)
        if mapped != ch:
            changed = True
        parts.append(mapped)
        origin.extend([i] * len(mapped))
    if not changed:
        return None
    parts.append(text[pos:])
    origin.extend(range(pos, len(text)))
    return "".join(parts), origin


def join(text: str, origin: list[int] | None) -> tuple[str, list[int]] | None:
    """Line-broken tokens joined (view + origin map), or None when nothing joins."""
    if "\n" not in text:
        return None
    cuts = [m.span() for m in re.finditer(_LINE_JOIN, text)]
    if not cuts:
        return None
    base = origin if origin is not None else range(len(text))
    parts: list[str] = []
    out: list[int] = []
    pos = 0
    for a, b in cuts:
        parts.append(text[pos:a])
        out.extend(base[pos:a])
        pos = b
    parts.append(text[pos:])
    out.extend(base[pos:])
    return "".join(parts), out


def decoded(run: str) -> str | None:
    """The text a base64/base64url/hex run encodes, when it is text; else None."""
    import binascii

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
            data = (base64.urlsafe_b64decode(padded) if "-" in body or "_" in body
                    else base64.b64decode(padded, validate=True))
        except (binascii.Error, ValueError):
            return None
    if len(data) < 12:
        return None
    try:
        decoded = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    printable = sum(1 for c in decoded if c.isprintable() or c in "\n\r\t")
    return decoded if printable * 20 >= len(decoded) * 19 else None
