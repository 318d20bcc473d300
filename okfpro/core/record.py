"""Value classes for the fresh-process paths, without the ``dataclasses`` module.

A hook or a memory verb is a new interpreter per event, and what it imports is most of what it
costs.  ``import dataclasses`` brings ``inspect`` (and with it ``ast``, ``dis``, ``tokenize``), and
each ``@dataclass`` then generates and compiles its methods in every process.  Measured against
dataclasses on the hook and memory paths in ``.okf/design/stand-ins.md`` (kept: it saves more
than the 5 ms bar on most of them).

So the types on those paths are plain classes over :class:`Value` (or :class:`Frozen`, for the
ones a ``@dataclass(frozen=True)`` was): a hand-written ``__init__`` (compiled once into the
``.pyc``) and ``_fields`` naming the fields in order.  They get the dataclass's equality (same
class, same field values) and ``repr``; :class:`Frozen` adds the hash and read-only fields, the
others are unhashable as an ``eq=True`` dataclass is; :func:`replace` is ``dataclasses.replace``.
``tests/test_record.py`` holds these to the stdlib's answers.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds on the hook path
    from typing import Any, TypeVar

    _V = TypeVar("_V", bound="Value")


class Value:
    """Equality (same class, same field values) and repr over ``_fields``; unhashable, as an
    ``eq=True`` dataclass is.  Fields are set as plain attributes (C speed: no ``__setattr__``
    here, a bundle's concepts are built by the ten thousand)."""

    __slots__ = ()
    _fields: tuple[str, ...] = ()

    def _values(self) -> tuple[Any, ...]:
        return tuple([getattr(self, f) for f in self._fields])

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._values() == other._values()

    def __repr__(self) -> str:
        return f"{type(self).__qualname__}({', '.join(f'{f}={getattr(self, f)!r}' for f in self._fields)})"

    def __hash__(self) -> int:
        raise TypeError(f"unhashable type: {type(self).__name__!r}")  # as a mutable dataclass is

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled and copied through ``__init__`` (a frozen value's slots refuse ``setattr``)."""
        return type(self), self._values()


class Frozen(Value):
    """A :class:`Value` whose fields are read-only once ``__init__`` has set them (through
    :data:`set_field`), hashed over its fields: a ``@dataclass(frozen=True)``."""

    __slots__ = ()

    def __hash__(self) -> int:
        return hash(self._values())

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r}")


def replace(obj: _V, **changes: Any) -> _V:
    """A copy of ``obj`` with ``changes`` (``dataclasses.replace``): built through ``__init__``,
    so whatever it checks is checked again."""
    unknown = set(changes).difference(obj._fields)
    if unknown:
        raise TypeError(f"{type(obj).__name__} has no field {sorted(unknown)[0]!r}")
    values = {f: getattr(obj, f) for f in obj._fields}
    values.update(changes)
    return type(obj)(**values)


# The frozen classes' __init__ sets fields through this (their own __setattr__ refuses).
set_field = object.__setattr__
