"""``okfpro.toml``: the workspace's configuration file (see README, "Configuration")."""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing and dataclasses cost milliseconds on the hook path (a Stop reads this file)
    from typing import Any

CONFIG_NAME = "okfpro.toml"

DEFAULTS: dict[str, Any] = {
    "bundle": {"path": ".okf"},
    "knowledge": {"bundles": []},  # registered bundles recall also draws on: "@slug", "@group", "@all"
    "memory": {
        "root": ".okf-memory",
        "mode": "local",
        "capture": False,
        "capture_tier": "user",
        "tiers": ["session", "user", "agent", "tenant"],
        "budget_tokens": 2000,
        "knowledge_share": 0.6,
        "memory_share": 0.4,
        "session_cleanup": True,
    },
    "identity": {"tenant": "", "user": "", "agent": ""},
    "ci": {"requirement": ""},  # what the CI workflow installs (okfpro.io.scaffold.ci_install)
}


class ConfigError(ValueError):
    """The configuration file exists but cannot be used (bad TOML, wrong types)."""


class Config:
    """The workspace, its merged settings (``data``) and the file they came from (None: the
    defaults).  Paths are strings: the hooks read this on every event, and ``pathlib`` costs a
    tenth of a capturing Stop (.okf/design/lean-memory-verbs.md)."""

    __slots__ = ("workspace", "data", "source")

    def __init__(self, workspace: str | os.PathLike[str], data: dict[str, Any] | None = None,
                 source: str | None = None) -> None:
        self.workspace: str = os.fspath(workspace)
        self.data: dict[str, Any] = data if data is not None else _copied(DEFAULTS)
        self.source = source

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Config):
            return NotImplemented
        return (self.workspace, self.data, self.source) == (other.workspace, other.data, other.source)

    def __repr__(self) -> str:
        return f"Config(workspace={self.workspace!r}, data={self.data!r}, source={self.source!r})"

    def get(self, section: str, key: str, default: Any = None) -> Any:
        return self.data.get(section, {}).get(key, default)


def _copied(value: Any) -> Any:
    """A deep copy of TOML data (tables, arrays, scalars), without the copy module."""
    if isinstance(value, dict):
        return {k: _copied(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copied(v) for v in value]
    return value


def _merge(base: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    out = _copied(base)
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = value
    return out


def find_workspace(start: str | os.PathLike) -> str | None:
    """Walk up from ``start`` (its real path) to the first directory holding ``okfpro.toml``."""
    here = os.path.realpath(start)
    if os.path.isfile(here):
        here = os.path.dirname(here)
    while True:
        if os.path.isfile(os.path.join(here, CONFIG_NAME)):
            return here
        up = os.path.dirname(here)
        if up == here:
            return None
        here = up


def workspace_for(start: str | os.PathLike[str]) -> str:
    """The workspace of ``start``, by the one rule every door uses (hooks from the event's
    ``cwd``, the CLI from the working directory, MCP from the served bundle): the nearest
    directory at or above ``start`` holding ``okfpro.toml``; else the workspace of the bundle
    enclosing ``start`` (the parent of ``.okf``); else the Git repository holding it; else
    ``start`` itself."""
    from okfpro.io.roots import enclosing, git_fence, repo_of

    here = os.path.abspath(start)
    try:
        found = find_workspace(here)
    except OSError:
        found = None
    if found is not None:
        return found
    root = enclosing(here)
    if root is not None:
        return repo_of(root)
    fence = git_fence(here)
    return fence if fence is not None else here


def load(workspace: str | os.PathLike) -> Config:
    """Read ``<workspace>/okfpro.toml`` over the defaults; a missing file means defaults."""
    root = os.fspath(workspace)
    path = os.path.join(root, CONFIG_NAME)
    if not os.path.isfile(path):
        return Config(workspace=root)
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML ({exc})") from exc
    import tomllib

    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML ({exc})") from exc
    return Config(workspace=root, data=_merge(DEFAULTS, raw), source=path)
