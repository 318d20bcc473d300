"""Value classes for the fresh-process paths, without the ``dataclasses`` module.

A hook or a memory verb is a new interpreter per event, and what it imports is most of what it
costs.  ``import dataclasses`` brings ``inspect`` (and with it ``ast``, ``dis``, ``tokenize``):
~46 M instructions on top of the modules the memory path needs anyway, and each ``@dataclass``
then generates and compiles its methods in every process (~3.4 M instructions a class, callgrind;
16 classes on the way of a ``remember``).  The measured account is in
``.okf/design/lean-memory-verbs.md``.

So the types on those paths are plain classes over :class:`Value`: a hand-written ``__init__``
(compiled once into the ``.pyc``), ``_fields`` naming the fields in order, and ``_frozen`` for the
ones a ``@dataclass(frozen=True)`` was.  :class:`Value` gives them the dataclass's equality (same
class, same field values), ``repr``, hash (frozen only; the others are unhashable, as an
``eq=True`` dataclass is) and read-only fields; :func:`replace` is ``dataclasses.replace``.
``tests/test_record.py`` holds these to the stdlib's answers.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds on the hook path
    from typing import Any, TypeVar

    _V = TypeVar("_V", bound="Value")


class Value:
    """Equality, repr (and hash, read-only fields when ``_frozen``) over ``_fields``."""

    __slots__ = ()
    _fields: tuple[str, ...] = ()
    _frozen = False

    def _values(self) -> tuple[Any, ...]:
        return tuple([getattr(self, f) for f in self._fields])

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._values() == other._values()

    def __repr__(self) -> str:
        return f"{type(self).__qualname__}({', '.join(f'{f}={getattr(self, f)!r}' for f in self._fields)})"

    def __hash__(self) -> int:
        if not self._frozen:
            raise TypeError(f"unhashable type: {type(self).__name__!r}")
        return hash(self._values())

    def __setattr__(self, name: str, value: Any) -> None:
        if self._frozen:
            raise AttributeError(f"cannot assign to field {name!r}")
        object.__setattr__(self, name, value)

    def __delattr__(self, name: str) -> None:
        if self._frozen:
            raise AttributeError(f"cannot delete field {name!r}")
        object.__delattr__(self, name)


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
