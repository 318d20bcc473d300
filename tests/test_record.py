"""The plain value classes (okfpro/core/record.py) behave as the dataclasses they replaced.

Every subclass of :class:`okfpro.core.record.Value` in the package is compared with a stdlib
dataclass twin of the same name, fields and frozenness, built from the same values: equality,
inequality across classes and values, hash (frozen) or unhashability, repr, read-only fields,
``replace`` and keyword construction.  Its ``__init__`` must take exactly its fields, in order,
and give each instance fresh mutable defaults (``field(default_factory=...)``).
"""

from __future__ import annotations

import copy
import dataclasses
import importlib
import inspect
import pickle
import pkgutil
from typing import Any

import pytest

import okfpro
from okfpro.core.record import Frozen, Value, replace


def _all_value_classes() -> list[type[Value]]:
    for info in pkgutil.walk_packages(okfpro.__path__, "okfpro."):
        if info.name.endswith("__main__"):
            continue
        importlib.import_module(info.name)
    out: list[type[Value]] = []
    todo = list(Value.__subclasses__())
    while todo:
        cls = todo.pop()
        if cls.__module__ != "okfpro.core.record":  # the bases themselves (Frozen)
            out.append(cls)
        todo.extend(cls.__subclasses__())
    return sorted(out, key=lambda c: f"{c.__module__}.{c.__qualname__}")


CLASSES = _all_value_classes()


def _sample(cls: type[Value], salt: str) -> dict[str, Any]:
    """A value for every field (strings and ints, distinct per field and salt; a field whose
    ``__init__`` checks its value keeps a valid default-like spelling)."""
    params = inspect.signature(cls.__init__).parameters
    values: dict[str, Any] = {}
    for i, name in enumerate(cls._fields):
        default = params[name].default
        if isinstance(default, bool):
            values[name] = (i + len(salt)) % 2 == 0
        elif isinstance(default, int):
            values[name] = i + len(salt)
        elif isinstance(default, tuple):
            values[name] = (f"{salt}{i}",)
        else:
            values[name] = f"{salt}{i}"
    return values


def _build(cls: type[Value], values: dict[str, Any]) -> Value | None:
    try:
        return cls(**values)
    except (ValueError, TypeError):
        return None  # the class checks its values (Scope's segments): see test_scope below


def _twin(cls: type[Value]) -> type:
    return dataclasses.make_dataclass(cls.__name__, list(cls._fields), frozen=issubclass(cls, Frozen))


def test_the_package_has_value_classes() -> None:
    names = {c.__qualname__ for c in CLASSES}
    assert {"MemoryRecord", "Decision", "Scope", "StoredEntry", "Resolution", "Rule", "Hit"} <= names


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: f"{c.__module__}.{c.__qualname__}")
def test_init_takes_exactly_the_fields_in_order(cls: type[Value]) -> None:
    params = list(inspect.signature(cls.__init__).parameters)[1:]
    assert params == list(cls._fields)
    if "__slots__" in cls.__dict__:
        assert set(cls.__slots__) == set(cls._fields)


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: f"{c.__module__}.{c.__qualname__}")
def test_behaves_as_its_dataclass_twin(cls: type[Value]) -> None:
    a_values, b_values = _sample(cls, "a"), _sample(cls, "bb")
    if cls.__qualname__ == "Scope":
        a_values, b_values = dict.fromkeys(cls._fields, "acme"), dict.fromkeys(cls._fields, "bob")
    a, a2, b = _build(cls, a_values), _build(cls, dict(a_values)), _build(cls, b_values)
    if a is None or b is None or a2 is None:
        pytest.skip(f"{cls.__qualname__} refuses the sample values")
    twin = _twin(cls)
    ta, ta2, tb = twin(**a_values), twin(**dict(a_values)), twin(**b_values)
    for name in cls._fields:
        if getattr(a, name) != a_values[name]:  # an __init__ that normalises (RecallResult.reason)
            a_values[name] = getattr(a, name)
            ta, ta2 = twin(**a_values), twin(**dict(a_values))
    assert (a == a2, a == b, a != b) == (ta == ta2, ta == tb, ta != tb) == (True, False, True)
    assert (a == ta) is False and a.__eq__(object()) is NotImplemented
    sub, tsub = type(cls.__name__, (cls,), {"__slots__": ()})(**a_values), type(twin.__name__, (twin,), {})(**a_values)
    assert (a == sub, sub == a) == (ta == tsub, tsub == ta) == (False, False)  # same fields, another class
    assert repr(a) == repr(ta).replace(f"{twin.__qualname__}(", f"{cls.__qualname__}(", 1)
    if issubclass(cls, Frozen):
        assert hash(a) == hash(a2) == hash(ta) and len({a, a2, b}) == 2
        for name in cls._fields:
            with pytest.raises(AttributeError):
                setattr(a, name, "x")
            with pytest.raises(dataclasses.FrozenInstanceError):
                setattr(ta, name, "x")
            with pytest.raises(AttributeError):
                delattr(a, name)
    else:
        with pytest.raises(TypeError):
            hash(a)
        with pytest.raises(TypeError):
            hash(ta)
        name = cls._fields[-1]
        setattr(a, name, b_values[name])
        assert getattr(a, name) == b_values[name] and a != a2
        setattr(a, name, a_values[name])
        assert a == a2
    changed = replace(a2, **{cls._fields[0]: b_values[cls._fields[0]]})
    twin_changed = dataclasses.replace(ta2, **{cls._fields[0]: b_values[cls._fields[0]]})
    assert [getattr(changed, f) for f in cls._fields] == [getattr(twin_changed, f) for f in cls._fields]
    assert type(changed) is cls and a2 == _build(cls, a_values)  # the original is untouched
    with pytest.raises(TypeError):
        replace(a2, no_such_field=1)
    for copied in (copy.copy(a2), copy.deepcopy(a2), pickle.loads(pickle.dumps(a2))):
        assert type(copied) is cls and copied == a2


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: f"{c.__module__}.{c.__qualname__}")
def test_mutable_defaults_are_fresh_per_instance(cls: type[Value]) -> None:
    params = inspect.signature(cls.__init__).parameters
    required = {n: v for n, v in _sample(cls, "a").items() if params[n].default is inspect.Parameter.empty}
    if cls.__qualname__ == "Scope":
        required = {}
    one, two = cls(**required), cls(**required)
    for name in cls._fields:
        value = getattr(one, name)
        if isinstance(value, (list, dict, set)):
            assert value is not getattr(two, name), f"{cls.__qualname__}.{name} is shared between instances"


def test_scope_checks_every_part_on_construction_and_on_replace() -> None:
    from okfpro.core.scope import Scope, ScopeError

    for name in Scope._fields:
        with pytest.raises(ScopeError):
            Scope(**{name: "../etc"})
        with pytest.raises(ScopeError):
            replace(Scope(tenant="acme"), **{name: "a b"})
    assert replace(Scope(tenant="acme"), user="alice") == Scope("acme", "alice")


def test_memory_record_round_trips_through_its_json_form() -> None:
    from okfpro.core.mempolicy import MemoryRecord
    from okfpro.memory.ranking import record_json, record_of

    rec = MemoryRecord("m-0123456789ab", "text", supersedes=("m-aaaaaaaaaaaa",), related=("m-bbbbbbbbbbbb",),
                       explicit=False, created="2026-12-01")
    assert record_of(record_json(rec)) == rec
