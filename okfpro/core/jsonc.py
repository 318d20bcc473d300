"""``json.loads`` and ``json.dumps`` over the C accelerator ``_json``, without importing ``json``.

``import json`` imports ``re`` (``json.decoder``, ``json.scanner`` and ``json.encoder`` compile
patterns when they load) and with it ``enum``: ~31 M instructions of a fresh process that costs
~38 M doing nothing (callgrind), where ``import _json`` is ~0.5 M.  A hook or a memory verb is a
fresh process per event (issues 13, 18), so the modules on those paths decode and encode through
here; the measured account is in ``.okf/design/json-without-re.md``.

Both functions drive the same C objects the standard library drives, with the same arguments, so
their answers are the standard library's: :func:`loads` builds ``_json.make_scanner`` from the
decoder's defaults and skips JSON whitespace (``[ \\t\\n\\r]*``) before and after the value as
``json.decoder.JSONDecoder.decode`` does; :func:`dumps` calls ``_json.make_encoder`` as
``JSONEncoder.iterencode(_one_shot=True)`` does.  Whatever the C objects cannot answer alone
goes to the standard library itself: every failure of :func:`loads` (the error raised is then
``json.JSONDecodeError``, a ``ValueError``, with the standard library's message), ``bytes``
input, ``indent``, ``cls`` or extra keywords, and an interpreter without ``_json``.  The calls
into C sit as many Python frames deep as the standard library's, so a deeply nested value hits
the recursion limit at the same depth.  ``tests/test_jsonc.py`` holds both to the standard
library's answers and errors.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds on the hook path
    from typing import Any, Callable

_WHITESPACE = " \t\n\r"  # json.decoder.WHITESPACE, [ \t\n\r]*


class _Context:
    """What ``_json.make_scanner`` reads of a ``json.JSONDecoder()`` (its defaults)."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = {"-Infinity": float("-inf"), "Infinity": float("inf"), "NaN": float("nan")}.__getitem__


_scan: Any = None  # the scanner and the encoder's class; None without the accelerator
_make_encoder: Any = None
try:
    from _json import encode_basestring, encode_basestring_ascii, make_encoder, make_scanner
except ImportError:  # an interpreter without _json: the standard library does it all
    pass
else:
    _scan = make_scanner(_Context())  # type: ignore[arg-type]  # a duck: the scanner reads its six attributes
    _make_encoder = make_encoder
_FAILED = object()


def loads(s: str | bytes | bytearray) -> Any:
    """``json.loads(s)``: the same value, or the same error (raised by ``json`` itself)."""
    if _scan is not None and s.__class__ is str:
        value = _decode(s)
        if value is not _FAILED:
            return value
    import json  # an error (or bytes): the standard library answers, and raises its own error

    return json.loads(s)


def _decode(s: str) -> Any:
    """``JSONDecoder.decode``, answering ``_FAILED`` where that raises."""
    try:
        value, end = _raw_decode(s, len(s) - len(s.lstrip(_WHITESPACE)))
    except Exception:  # StopIteration, JSONDecodeError, RecursionError, ValueError (int digits)...
        return _FAILED
    if len(s.rstrip(_WHITESPACE)) != end:  # extra data after the value (it ends on no whitespace)
        return _FAILED
    return value


def _raw_decode(s: str, idx: int) -> Any:
    # a frame of its own, as JSONDecoder.raw_decode: the scanner recurses from the same depth
    return _scan(s, idx)


def _not_serializable(o: object) -> Any:
    """``JSONEncoder.default``."""
    raise TypeError(f"Object of type {o.__class__.__name__} is not JSON serializable")


def dumps(obj: object, *, skipkeys: bool = False, ensure_ascii: bool = True, check_circular: bool = True,
          allow_nan: bool = True, cls: Any = None, indent: int | str | None = None,
          separators: tuple[str, str] | None = None, default: Callable[[Any], Any] | None = None,
          sort_keys: bool = False, **kw: Any) -> str:
    """``json.dumps`` with the same arguments: the same string, or the same exception."""
    if _make_encoder is None or cls is not None or indent is not None or kw:
        import json

        return json.dumps(obj, skipkeys=skipkeys, ensure_ascii=ensure_ascii, check_circular=check_circular,
                          allow_nan=allow_nan, cls=cls, indent=indent, separators=separators, default=default,
                          sort_keys=sort_keys, **kw)
    return _encode(obj, skipkeys, ensure_ascii, check_circular, allow_nan, separators, default, sort_keys)


def _encode(o: object, skipkeys: bool, ensure_ascii: bool, check_circular: bool, allow_nan: bool,
            separators: tuple[str, str] | None, default: Callable[[Any], Any] | None, sort_keys: bool) -> str:
    """``JSONEncoder(...).encode(o)`` without an indent (the separators unpacked first, as ``__init__`` does)."""
    item_separator, key_separator = separators if separators is not None else (", ", ": ")
    encoder = encode_basestring_ascii if ensure_ascii else encode_basestring
    if isinstance(o, str):
        return encoder(o)
    return "".join(_iterencode(o, {} if check_circular else None, default if default is not None else _not_serializable,
                               encoder, key_separator, item_separator, sort_keys, skipkeys, allow_nan))


def _iterencode(o: object, *args: Any) -> Any:
    """``JSONEncoder.iterencode(o, _one_shot=True)`` (``args``: ``_json.make_encoder``'s but the indent):
    a frame of its own, so the encoder recurses from the standard library's depth."""
    markers, default, encoder, key_separator, item_separator, sort_keys, skipkeys, allow_nan = args
    return _make_encoder(markers, default, encoder, None, key_separator, item_separator, sort_keys, skipkeys,
                         allow_nan)(o, 0)



# --- JSON with comments, as Gemini CLI reads its settings --------------------------------------------


def _blank(text: str) -> str:
    return "".join(c if c.isspace() else " " for c in text)


def _escaped(text: str, quote: int) -> bool:
    """Is the quote at ``quote`` preceded by an odd number of backslashes?"""
    i = quote
    while i > 0 and text[i - 1] == "\\":
        i -= 1
    return (quote - i) % 2 == 1


def strip_comments(text: str) -> str:
    """The npm package strip-json-comments (what Gemini CLI 0.61 runs before ``JSON.parse`` on
    ``settings.json`` and ``trustedFolders.json``): ``//`` (to the line's end) and ``/* */`` comments
    outside strings become blanks of the same length (line breaks kept), so positions in the text are
    unchanged; an unterminated comment runs to the end."""
    out: list[str] = []
    start = i = 0
    n = len(text)
    in_string = False
    while i < n:
        if text[i] == '"' and not _escaped(text, i):
            in_string = not in_string
        elif not in_string and text.startswith(("//", "/*"), i):
            if text[i + 1] == "/":
                end = text.find("\n", i)
                end = n if end < 0 else end
            else:
                end = text.find("*/", i + 2)
                end = n if end < 0 else end + 2
            out.append(text[start:i])
            out.append(_blank(text[i:end]))
            start = i = end
            continue
        i += 1
    out.append(text[start:])
    return "".join(out)


def loads_commented(text: str) -> Any:
    """``JSON.parse(stripJsonComments(text))``: JSON with comments, no trailing commas."""
    return loads(strip_comments(text))
