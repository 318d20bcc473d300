"""The one door to a workspace's memory: hooks, CLI and MCP open it the same way.

``open_door(start, event)`` decides the workspace by the one rule
(:func:`okfpro.io.config.workspace_for`), reads ``okfpro.toml`` once, and takes the host's
event as the one event type (:class:`okfpro.core.event.Event`; a mapping is wrapped once,
here).  The identity (:func:`okfpro.io.identity.resolve`) and the store
(:meth:`okfpro.memory.store.MemoryStore.for_workspace`) are resolved from that one
configuration when first asked for, at most once per door: capture switched off never
binds a session, and a verb that needs no store never opens one.

What a door cannot do is the caller's to say (a hook: one stderr line and exit 0; the CLI:
exit 2; MCP: a tool error), so the door raises only :class:`DoorError` (okfpro.toml
unreadable) and otherwise reports: ``identity.scope`` is None with ``identity.reason``,
``store`` is None with ``problem``.
"""

from __future__ import annotations

import os
from functools import cached_property

from okfpro.core.event import Event, as_event

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds on the hook path
    from typing import Any, Mapping

    from okfpro.io.config import Config
    from okfpro.io.identity import Resolution
    from okfpro.memory.store import MemoryStore


class DoorError(Exception):
    """The workspace's okfpro.toml cannot be read; the message says why."""


class MemoryDoor:
    """The memory of one workspace, for the identity its configuration and the event resolve.
    ``workspace`` is a path string (as :class:`okfpro.io.config.Config` keeps it)."""

    def __init__(self, workspace: str, config: Config, event: Event, *, bind: bool = True,
                 env: Mapping[str, str] | None = None) -> None:
        self.workspace = workspace
        self.config = config
        self.event = event
        self.bind = bind  # an agent session binds its identity; the CLI and MCP never do
        self.env = env

    @cached_property
    def identity(self) -> Resolution:
        from okfpro.io.identity import resolve

        return resolve(self.workspace, self.event, env=self.env, config=self.config, bind=self.bind)

    @cached_property
    def _opened(self) -> tuple[MemoryStore | None, str | None]:
        from okfpro.memory.store import MemoryStore

        return MemoryStore.for_workspace(self.workspace, self.config)

    @property
    def store(self) -> MemoryStore | None:
        return self._opened[0]

    @property
    def problem(self) -> str | None:
        """Why there is no store (None when there is one)."""
        return self._opened[1]

    @property
    def refusal(self) -> str | None:
        """Why a memory verb cannot act through this door — no identity resolved (in ``multi-user``
        mode an unresolved identity is refused, never the local scope) or no store — else None."""
        if self.identity.scope is None:
            return self.identity.reason or "no identity resolved"
        if self.store is None:
            return self.problem or "memory store unavailable"
        return None

    def setting(self, section: str, key: str, default: Any = None) -> Any:
        return self.config.get(section, key, default)


def open_door(start: str | os.PathLike[str] | None = None, event: Event | Mapping[str, Any] | None = None, *,
              workspace: str | os.PathLike[str] | None = None, bind: bool = True,
              env: Mapping[str, str] | None = None) -> MemoryDoor:
    """The door for the workspace holding ``start`` (default: the working directory), or for
    ``workspace`` itself when one is named (``--workspace``, the served directory)."""
    from okfpro.io import config as config_mod

    if workspace is not None:
        ws = os.fspath(workspace)
    else:
        ws = config_mod.workspace_for(start if start is not None else os.getcwd())
    try:
        cfg = config_mod.load(ws)
    except (config_mod.ConfigError, OSError) as exc:
        raise DoorError(str(exc)) from None
    return MemoryDoor(ws, cfg, as_event(event), bind=bind, env=env)
