"""Safe YAML for frontmatter, read the way the reference reads it.

The reference loads frontmatter with a safe loader that permits dates and
timestamps only and refuses aliases.  PyYAML's SafeLoader is close; we add:

* aliases refused (``*name``) — an anchor alone is harmless;
* a calendar-invalid timestamp (``2026-02-30``) stays a string instead of
  failing the whole document, as the reference's scanner does;
* the libyaml (C) loader is used when available and the text cannot hold an
  alias, because it is an order of magnitude faster on large bundles.
"""

from __future__ import annotations

import datetime as _dt

import yaml


class YamlError(ValueError):
    """The text is not YAML we accept; the message says why."""


def _timestamp(loader: yaml.SafeLoader, node: yaml.Node) -> object:
    try:
        return yaml.constructor.SafeConstructor.construct_yaml_timestamp(loader, node)
    except (ValueError, OverflowError):
        return loader.construct_scalar(node)


class _PureLoader(yaml.SafeLoader):
    def compose_node(self, parent, index):  # type: ignore[override]
        if self.check_event(yaml.events.AliasEvent):
            event = self.peek_event()
            raise yaml.composer.ComposerError(
                None, None, "aliases are not allowed in frontmatter", event.start_mark
            )
        return super().compose_node(parent, index)


_PureLoader.add_constructor("tag:yaml.org,2002:timestamp", _timestamp)

_FastLoader: type | None
try:  # pragma: no branch - depends on the PyYAML build
    class _FastLoader(yaml.CSafeLoader):  # type: ignore[no-redef]
        pass

    _FastLoader.add_constructor("tag:yaml.org,2002:timestamp", _timestamp)
except AttributeError:  # PyYAML without libyaml
    _FastLoader = None


def load(text: str) -> object:
    """Parse ``text`` as one YAML document; raise :class:`YamlError` with a one-line reason."""
    from okfpro.core import yamlfast

    fast = yamlfast.load(text)
    if fast is not None:
        return fast
    loader = _FastLoader if (_FastLoader is not None and "*" not in text) else _PureLoader
    try:
        return yaml.load(text, Loader=loader)  # noqa: S506 - both loaders are safe loaders
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
