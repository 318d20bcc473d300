"""Plumbing every verb shares: refusing, printing, and finding the bundle.

* :func:`fail` — print one line to stderr and end the command with an exit code (2 unless
  told otherwise).  Commands otherwise *return* their exit code (0 ok, 1 findings); the
  table's runner (:func:`okfpro.cli.app.run`) turns it into the process's code.
* :func:`json_options` / :func:`emit` — ``--json`` (one compact line) and ``--pretty``
  (indented; implies ``--json``), printed one way everywhere; :func:`projection` — a list
  view's ``--fields`` / ``--except``.
* :func:`bundle_for` — the addressing rules, written once (below); :func:`load` reads the bundle;
  :func:`open_bundle` does both for the readers that take ``[DIR]`` / ``--bundle DIR``.
* :func:`memory_scope` / :func:`memory_identity` — the memory door as every CLI verb opens it,
  its refusals as exit 2.

Addressing: a verb's bundle is named by a directory, the positional ``[DIR]`` (the views
also take ``--bundle DIR``, kept as an alias).  The rules, per verb family:

==================  ===========================  ==================================================
family              DIR given                    no DIR
==================  ===========================  ==================================================
validate, lint,     ``DIR/.okf`` if it holds     ``$OKFPRO_BUNDLE`` for the writers, else the bundle
views, writers      ``index.md``, else ``DIR``   enclosing the working directory
                    (a named directory is read   (:func:`okfpro.io.roots.enclosing`), else ``./.okf``
                    as a bundle, as the          or ``.``
                    reference reads it)
state, board,       ``DIR/.okf`` or ``DIR``,     as if DIR were ``.`` (the reference's reading: a
snapshot, doors,    whichever holds ``index.md``; directory with its own ``index.md`` is its own
friction            else refused                 bundle)
==================  ===========================  ==================================================

Everywhere: ``@slug`` names a registered bundle (:mod:`okfpro.io.registry`) and is read as
its directory was given; an unknown slug, ``@all`` (search only), a missing path and a file where a
directory was meant are refused — exit 2 with the reason, nothing read.
"""

from __future__ import annotations

import os

from okfpro.core.jsonable import dumps, jsonable  # noqa: F401  (the CLI's verbs and tests import them from here)
from okfpro.core.record import Frozen, set_field

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds on the memory verbs' path
    import datetime as _dt
    from pathlib import Path  # imported where a bundle is located: the memory verbs need none
    from typing import Any, Callable, Iterable, Literal, Mapping, NoReturn, TypeVar

    from okfpro.core.concept import Bundle
    from okfpro.io.config import Config
    from okfpro.io.identity import Resolution
    from okfpro.memory.door import MemoryDoor
    from okfpro.memory.store import MemoryStore

# click is imported where it is used, not here: okfpro/cli/memverbs.py shares dumps and today
# with a door that never imports click.

if TYPE_CHECKING:
    F = TypeVar("F", bound=Callable[..., Any])


def fail(reason: str, code: int = 2) -> NoReturn:
    """``okfpro VERB: reason`` on stderr, then end the command with ``code`` (2: usage, refused, could not run)."""
    import click

    ctx = click.get_current_context(silent=True)
    click.echo(f"{ctx.command_path if ctx is not None else 'okfpro'}: {reason}", err=True)
    raise click.exceptions.Exit(code)


# --------------------------------------------------------------------------- output
def today(refuse: Callable[[str], NoReturn] = fail) -> _dt.date:
    """Today from okfpro's one clock (okfpro/io/clock.py), or ``refuse`` (exit 2) saying what is wrong with it."""
    from okfpro.io.clock import ClockError, today as clock_today

    try:
        return clock_today()
    except ClockError as exc:
        refuse(str(exc))


def json_options(func: F) -> F:
    """``--json`` and ``--pretty``: the command receives ``as_json`` and ``pretty``."""
    import click

    func = click.option("--pretty", is_flag=True, help="Indented JSON (implies --json).")(func)
    return click.option("--json", "as_json", is_flag=True, help="One line of compact JSON.")(func)


def emit(data: Any, as_json: bool, pretty: bool, text: Callable[[], object] | None = None) -> int:
    """JSON when asked (``--pretty`` wins), else ``text()`` prints the human form; returns 0 (printed)."""
    if as_json or pretty or text is None:
        import click

        click.echo(dumps(data, pretty))
    else:
        text()
    return 0


def projection(fields: str | None, exclude: str | None, known: Iterable[str]) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """``--fields a,b`` / ``--except a,b`` as a row function (case-insensitive names), or exit 2
    when both are given or a name is not one of the view's row fields ``known``."""
    known = list(known)
    if fields and exclude:
        fail("--fields and --except are mutually exclusive")
    spec = fields or exclude
    if not spec:
        return lambda row: row
    names = [n.strip().lower() for n in spec.split(",") if n.strip()]
    unknown = [n for n in names if n not in {k.lower() for k in known}]
    if unknown or not names:
        fail(f"unknown field(s): {', '.join(unknown) or '(none given)'} (available: {', '.join(known)})")
    if fields:
        return lambda row: {k: v for k, v in row.items() if k.lower() in names}
    return lambda row: {k: v for k, v in row.items() if k.lower() not in names}


# --------------------------------------------------------------------------- addressing
class Located(Frozen):
    """A bundle found for a verb: its root (absolute) and the name the reports print for it (frozen)."""

    __slots__ = ("root", "name", "slug")
    _fields = __slots__
    root: Path
    name: str
    slug: str | None  # the registry slug when DIR was ``@slug``

    def __init__(self, root: Path, name: str, slug: str | None = None) -> None:
        set_field(self, "root", root)
        set_field(self, "name", name)
        set_field(self, "slug", slug)

    def head(self) -> dict[str, Any]:
        """A report's head: ``bundle`` (its directory), and ``slug`` when named as ``@slug``."""
        return {"bundle": self.name, "slug": self.slug} if self.slug else {"bundle": self.name}


def registered(dir_arg: str) -> tuple[str, str | None]:
    """(the directory, the slug) for ``@slug``; any other DIR as given, no slug.  Exit 2 when the
    slug names nothing readable."""
    if not dir_arg.startswith("@"):
        return dir_arg, None
    from okfpro.io import registry

    try:
        entry = registry.resolve(dir_arg)
    except registry.RegistryError as exc:
        fail(str(exc))
    return entry.dir, entry.slug


def given_dir(dir_arg: str) -> Path:
    """``DIR`` as a directory, or exit 2: a missing path and a file are refused."""
    from pathlib import Path

    dir_arg, _ = registered(dir_arg)
    given = Path(dir_arg)
    if not given.is_dir():
        fail(f"{dir_arg}: {'not a directory' if given.exists() else 'no such directory'}.")
    return given


def bundle_for(
    dir_arg: str | None,
    *,
    default: Literal["here", "enclosing"] = "enclosing",
    named_is_bundle: bool = False,
    env: bool = False,
) -> Located:
    """The bundle a verb acts on, by the module's table, or exit 2 naming why there is none.

    ``default``: what no DIR means; ``named_is_bundle``: a named directory without
    ``index.md`` is still read as a bundle; ``env``: ``$OKFPRO_BUNDLE`` names it when no DIR.
    """
    from pathlib import Path

    from okfpro.io import roots

    if dir_arg is None and default == "here":
        dir_arg = "."
    if dir_arg is None:
        named = os.environ.get("OKFPRO_BUNDLE", "").strip() if env else ""
        if named:
            found = _as_path(roots.resolve(named)) if os.path.isdir(named) else None
            if found is None:
                fail(f"refused: OKFPRO_BUNDLE={named} holds no OKF bundle (no bundle there).")
        else:
            found = _as_path(roots.enclosing(os.getcwd()) or roots.resolve("."))
            if found is None:
                fail(
                    f"no bundle here: no index.md in {os.getcwd()} or a .okf/ below it, and none enclosing it "
                    "(give DIR, or run `okfpro init`)."
                )
        return Located(Path(os.path.abspath(found)), _relative(found))
    dir_arg, slug = registered(dir_arg)
    given = given_dir(dir_arg)
    found = _as_path(roots.resolve(given)) or (given if named_is_bundle else None)
    if found is None:
        fail(f"{dir_arg} holds no OKF bundle (no bundle: no index.md there, and none in "
             f"{os.path.join(dir_arg, '.okf')}).")
    return Located(Path(os.path.abspath(found)), dir_arg if found == given else os.path.join(dir_arg, found.name),
                   slug)


def load(root: Path, cache: bool = True) -> Bundle:
    """The parsed bundle at ``root`` (through the parse cache unless ``cache`` is False: a gate's
    read, :mod:`okfpro.io.bundle`), or exit 2 when it cannot be read."""
    from okfpro.io.bundle import load as load_bundle

    try:
        return load_bundle(root, cache=cache)
    except OSError as exc:
        fail(f"{root}: cannot read the bundle: {exc.strerror or exc}")


def note_skipped(bundle: Bundle | int) -> None:
    """The reference's stderr note when files could not be used (stdout stays clean JSON);
    ``bundle``: the bundle read, or how many of its files could not be used."""
    n = bundle if isinstance(bundle, int) else len(bundle.unparseable)
    if n:
        import click

        click.echo(f"note: skipped {n} unusable file(s) (run `okfpro validate` for details)", err=True)


class Opened:
    """A bundle a view reads: where it is, how the envelope names it, the parsed bundle, and
    (:meth:`reference_files`) what it keeps on disk under ``references/``."""

    def __init__(self, at: Located, bundle: Bundle) -> None:
        self.root, self.name, self.slug, self.bundle = at.root, at.name, at.slug, bundle
        self.head = at.head

    def reference_files(self) -> list[str]:
        """Bundle-relative paths of the files under ``references/`` (the references view's disk half,
        listed by :func:`okfpro.io.reader.reference_files`, which the MCP server calls too)."""
        from okfpro.io.reader import reference_files

        return reference_files(self.root)


def locate(dir_arg: str | None, bundle_opt: str | None) -> Located:
    """Where the bundle named by ``[DIR]`` / ``--bundle DIR`` / ``@slug`` (default: the enclosing one) is."""
    if dir_arg and bundle_opt and dir_arg != bundle_opt:
        fail(f"two bundles named: {dir_arg} and --bundle {bundle_opt} (give one)")
    return bundle_for(dir_arg or bundle_opt, named_is_bundle=True)


def open_bundle(dir_arg: str | None, bundle_opt: str | None, at: Located | None = None) -> Opened:
    """The bundle named by ``[DIR]`` / ``--bundle DIR`` / ``@slug`` (default: the enclosing one), read
    (``at``: where :func:`locate` found it)."""
    at = at or locate(dir_arg, bundle_opt)
    bundle = load(at.root)
    note_skipped(bundle)
    return Opened(at, bundle)


# --------------------------------------------------------------------------- memory
def _memory_door(workspace: Path | None, event: Mapping[str, Any] | None = None,
                 env: Mapping[str, str] | None = None, refuse: Callable[[str], NoReturn] = fail) -> MemoryDoor:
    from okfpro.memory.door import DoorError, open_door

    try:
        return open_door(event=event, workspace=workspace, bind=False, env=env)
    except DoorError as exc:
        refuse(str(exc))


def memory_identity(workspace: Path | None, *, event: Mapping[str, Any] | None = None,
                    env: Mapping[str, str] | None = None) -> Resolution:
    """Who is acting, as the memory door resolves it for ``workspace`` (``--workspace``, else the
    one rule from the working directory; see okfpro/memory/door.py) — never binding a session,
    binding is the agent session's business.  Exit 2 when okfpro.toml cannot be read."""
    return _memory_door(workspace, event, env).identity


def memory_scope(workspace: Path | None,
                 refuse: Callable[[str], NoReturn] = fail) -> tuple[MemoryStore, Resolution, Config]:
    """(store, identity, configuration) for a verb that acts on memory, through the memory door
    as the hooks open it (but never binding a session).  Exit 2 when okfpro.toml cannot be read,
    when no identity resolves (in ``multi-user`` mode an unresolved identity is refused, never the
    local scope), and when there is no store."""
    door = _memory_door(workspace, refuse=refuse)
    store = door.store
    if door.refusal is not None or store is None:  # (no refusal means a store: said for the checker)
        refuse(door.refusal or "memory store unavailable")
    return store, door.identity, door.config


def _as_path(found: str | None) -> Path | None:
    from pathlib import Path

    return Path(found) if found is not None else None


def _relative(path: Path) -> str:
    """``path`` relative to the working directory when it lies inside it, else as given."""
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return str(path)
    return str(path) if rel.startswith("..") else rel
