"""Safe YAML for frontmatter, read the way the reference reads it.

The reference loads frontmatter with a safe loader that permits dates and
timestamps only and refuses aliases.  PyYAML's SafeLoader is close; we add:

* aliases refused (``*name``) — an anchor alone is harmless;
* a calendar-invalid timestamp (``2026-02-30``) stays a string instead of
  failing the whole document, as the reference's scanner does;
* the libyaml (C) loader is used when available and the text cannot hold an
  alias, because it is an order of magnitude faster on large bundles;
* every value that leaves :func:`load` can be printed, compared and JSON-encoded by
  any reader (the class of "a scalar the interpreter cannot handle"): an integer too
  long for ``str()`` (Python refuses over 4,300 digits; the reference prints a big
  integer's digits) stays its source text, ``!!binary`` becomes text (the reference
  reads it as a string), ``!!set`` a mapping, ``!!omap``/``!!pairs`` lists of pairs,
  a nested non-text key its text; nesting deeper than :data:`MAX_DEPTH` is refused
  with a reason (the reference dies of a stack overflow there; we name the file).
"""

from __future__ import annotations

import datetime as _dt

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds on the hook paths
    from typing import Any, Iterator

    import yaml
# PyYAML is imported when a text needs it (okfpro.core.yamlfast reads most frontmatter without
# it; a bundle served from the parse cache parses none): a prompt hook's import path stays light.


class YamlError(ValueError):
    """The text is not YAML we accept; the message says why."""


MAX_DEPTH = 100  # nested collections; real frontmatter uses 3 or 4
# An integer whose text is longer than this is never built (a 2.6-million-part sexagesimal
# scalar costs minutes of big-integer multiplication); one that builds but cannot be printed
# (over ``sys.get_int_max_str_digits()`` decimal digits, e.g. a long hex scalar) is
# kept as text too.
MAX_INT_TEXT = 4300
_MAX_INT_BITS = 14_000  # < 4,300 decimal digits (4300 * log2(10) = 14,284)


def _int(loader: yaml.SafeLoader, node: yaml.Node) -> object:
    import yaml

    text = str(loader.construct_scalar(node))
    if len(text) > MAX_INT_TEXT:
        return text.replace("_", "")
    try:
        value = yaml.constructor.SafeConstructor.construct_yaml_int(loader, node)
    except ValueError:
        return text.replace("_", "")
    if isinstance(value, int) and value.bit_length() > _MAX_INT_BITS:
        return text.replace("_", "")
    return value


def _binary(loader: yaml.SafeLoader, node: yaml.Node) -> object:
    import yaml

    data = yaml.constructor.SafeConstructor.construct_yaml_binary(loader, node)
    return data.decode("utf-8", "replace")


def _set(loader: yaml.SafeLoader, node: yaml.Node) -> Iterator[dict[Any, Any]]:
    data: dict[Any, Any] = {}
    yield data
    data.update(dict.fromkeys(loader.construct_mapping(node).keys()))


def _pairs(loader: yaml.SafeLoader, node: yaml.Node) -> Iterator[list[Any]]:
    import yaml

    data: list[Any] = []
    yield data
    steps = yaml.constructor.SafeConstructor.construct_yaml_pairs(loader, node)
    pairs = next(steps)
    for _ in steps:
        pass
    data.extend([key, value] for key, value in pairs)


def _tame(value: object) -> object:
    """Walk the loaded value once (iteratively: no recursion to exhaust): refuse nesting
    past :data:`MAX_DEPTH`, give nested mappings text keys, turn anything that slipped
    past the constructors (bytes, sets, tuples) into plain values."""
    stack: list[tuple[object, int]] = [(value, 1)]
    while stack:
        obj, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise YamlError(f"frontmatter nests deeper than {MAX_DEPTH} levels")
        if isinstance(obj, dict):
            if any(not isinstance(k, str) or not _plain(v) for k, v in obj.items()):
                items = [(k if isinstance(k, str) or depth == 1 else to_text(k), _plainly(v)) for k, v in obj.items()]
                obj.clear()
                obj.update(items)
            stack.extend((v, depth + 1) for v in obj.values() if isinstance(v, (dict, list)))
        elif isinstance(obj, list):
            for i, v in enumerate(obj):
                if not _plain(v):
                    obj[i] = _plainly(v)
            stack.extend((v, depth + 1) for v in obj if isinstance(v, (dict, list)))
    return value


def _plain(v: object) -> bool:
    return not isinstance(v, (bytes, set, frozenset, tuple))


def _plainly(v: object) -> object:
    if isinstance(v, bytes):
        return v.decode("utf-8", "replace")
    if isinstance(v, (set, frozenset)):
        return dict.fromkeys(v)
    if isinstance(v, tuple):
        return list(v)
    return v


# A timestamp written with ``Z`` keeps that spelling (its zone is named "Z"); ``+00:00`` is
# ``timezone.utc``.  The two are equal as moments; the reference prints them as written.
ZULU = _dt.timezone(_dt.timedelta(0), "Z")


def _timestamp(loader: yaml.SafeLoader, node: yaml.Node) -> object:
    import yaml

    try:
        value = yaml.constructor.SafeConstructor.construct_yaml_timestamp(loader, node)
    except (ValueError, OverflowError):
        return loader.construct_scalar(node)
    if isinstance(value, _dt.datetime) and str(node.value).rstrip()[-1:] in ("Z", "z"):
        value = value.replace(tzinfo=ZULU)
    return value


_LOADERS: tuple[Any, Any] | None = None


def _loaders() -> tuple[Any, Any]:
    """(the pure-Python loader, the libyaml one or None), built on first use."""
    global _LOADERS
    if _LOADERS is not None:
        return _LOADERS
    import yaml

    class _PureLoader(yaml.SafeLoader):  # type: ignore[misc]  # PyYAML ships no types
        def compose_node(self, parent: Any, index: Any) -> Any:
            if self.check_event(yaml.events.AliasEvent):
                event = self.peek_event()
                raise yaml.composer.ComposerError(
                    None, None, "aliases are not allowed in frontmatter", event.start_mark
                )
            return super().compose_node(parent, index)

    _constructors(_PureLoader)
    fast: Any = None
    if hasattr(yaml, "CSafeLoader"):  # pragma: no branch - depends on the PyYAML build
        class _FastLoader(yaml.CSafeLoader):  # type: ignore[misc]  # PyYAML ships no types
            pass

        _constructors(_FastLoader)
        fast = _FastLoader
    _LOADERS = (_PureLoader, fast)
    return _LOADERS


def _constructors(loader: Any) -> None:
    loader.add_constructor("tag:yaml.org,2002:timestamp", _timestamp)
    loader.add_constructor("tag:yaml.org,2002:int", _int)
    loader.add_constructor("tag:yaml.org,2002:binary", _binary)
    loader.add_constructor("tag:yaml.org,2002:set", _set)
    loader.add_constructor("tag:yaml.org,2002:omap", _pairs)
    loader.add_constructor("tag:yaml.org,2002:pairs", _pairs)


def load(text: str) -> object:
    """Parse ``text`` as one YAML document; raise :class:`YamlError` with a one-line reason."""
    from okfpro.core import yamlfast

    fast = yamlfast.load(text)
    if fast is not None:
        return fast
    import yaml

    pure, libyaml = _loaders()
    loader = libyaml if (libyaml is not None and "*" not in text) else pure
    try:
        return _tame(yaml.load(text, Loader=loader))  # noqa: S506 - both loaders are safe loaders
    except yaml.YAMLError as exc:
        raise YamlError(_one_line(exc)) from None
    except (ValueError, TypeError, RecursionError) as exc:
        raise YamlError(str(exc).splitlines()[0] if str(exc) else type(exc).__name__) from None


def _one_line(exc: yaml.YAMLError) -> str:
    problem = getattr(exc, "problem", None)
    mark = getattr(exc, "problem_mark", None)
    if problem:
        where = f" at line {mark.line + 1} column {mark.column + 1}" if mark is not None else ""
        return f"{problem}{where}"
    return " ".join(str(exc).split())


def to_text(value: object) -> str:
    """Render a YAML scalar as text the way the reference stringifies it.

    ``True`` -> ``"true"``, ``None`` -> ``""``, dates ISO, numbers as written.
    """
    if value is None:
        return ""
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, _dt.datetime):
        return value.isoformat(sep=" ")
    if isinstance(value, _dt.date):
        return value.isoformat()
    return str(value)


def is_blank(value: object) -> bool:
    """The reference's ``blank?``: nil, false, empty or whitespace-only text, empty collection."""
    if value is None or value is False:
        return True
    if isinstance(value, str):
        return not value.strip()
    if isinstance(value, (list, dict, tuple)):
        return len(value) == 0
    return False
