"""One bundle served: its kept parse, the JSON of every view, the pages.

The bundle is read once and kept (:class:`okfpro.mcp.watch.Warm`, the MCP server's door:
revalidated on every request through the file watcher, re-read through the parse cache when
anything changed).  Every JSON answer is the CLI's ``--json`` for the same view, built by the
same functions (:mod:`okfpro.core.views`, :mod:`okfpro.io.search`, :mod:`okfpro.io.workstate`,
:mod:`okfpro.core.lint`, :mod:`okfpro.memory.views`) and headed the same way (``bundle``, and
``slug`` for ``@slug``).  A concept is found through the bundle's own map (its id), never through
a path from the URL; board, log and journal are read only when they do not resolve outside the
bundle.

Memory is the server's identity's only — resolved once at start from the configuration and the
environment, as the CLI resolves it for the served workspace, never from a request — and only
when the server listens on loopback.
"""

from __future__ import annotations

import hashlib
import os
import threading
from pathlib import Path
from typing import Any, Callable

from okfpro.core import views as _views
from okfpro.core.concept import Bundle
from okfpro.serve import pages
from okfpro.serve.markdown import Markdown

SECTIONS = ("In flight", "Backlog", "Waiting", "Inbox", "To read", "Deadlines")
RANKED_DEFAULT_LIMIT = 20
KEPT_JSON = {"catalog", "files", "tags", "types", "stats", "index", "dirs", "loose", "hubs", "graph", "lint"}


class NotFound(Exception):
    """The request names nothing in the bundle; the message says what."""


class BadRequest(Exception):
    """The request cannot be answered as asked; the message says why."""


class Memory:
    """The server's own memory door: the store and scope resolved at start, or why there is none."""

    def __init__(self, root: Path, allowed: bool, why_not: str = "") -> None:
        self.store: Any = None
        self.scope: Any = None
        self.refusal = why_not
        if not allowed:
            return
        from okfpro.io.config import workspace_for
        from okfpro.memory.door import DoorError, open_door

        try:  # the memory door as the MCP server opens it: never binding a session
            door = open_door(workspace=Path(workspace_for(root)), bind=False)
        except DoorError as exc:
            self.refusal = f"memory is not served: {exc}"
            return
        if door.refusal is not None:
            self.refusal = f"memory is not served: {door.refusal}"
        else:
            self.store, self.scope = door.store, door.identity.scope

    @property
    def who(self) -> str:
        return "" if self.scope is None else " / ".join(f"{k}={v}" for k, v in self.scope.parts().items() if v)


class Site:
    """One bundle behind one prefix.  ``name``/``slug``: how the CLI's envelope names it."""

    def __init__(self, root: Path, name: str, slug: str | None = None, *, prefix: str = "", hub: str | None = None,
                 memory: bool = True, memory_why_not: str = "", watch: bool = True, bundle: Bundle | None = None
                 ) -> None:
        self.root, self.name, self.slug, self.prefix = Path(root), name, slug, prefix
        self.links = pages.Links(prefix, hub=hub)
        if bundle is not None:  # okfpro render: one read, never revalidated
            self.warm: Any = _Fixed(bundle)
        else:
            from okfpro.mcp.watch import Warm

            self.warm = Warm(self.root, watch=watch)
        self.memory = Memory(self.root, memory, memory_why_not)
        self._memo: dict[str, Any] = {}
        self._memo_of: Bundle | None = None
        self._lock = threading.Lock()
        self._warming: threading.Thread | None = None
        self._served = threading.Event()  # the first page is out: the warm-up may take the CPU

    # ------------------------------------------------------------------ the bundle, kept
    def head(self) -> dict[str, Any]:
        return {"bundle": self.name, "slug": self.slug} if self.slug else {"bundle": self.name}

    def bundle(self) -> Bundle:
        bundle = self.warm.bundle()
        with self._lock:
            if bundle is not self._memo_of:
                self._memo, self._memo_of = {}, bundle
        return bundle

    def memo(self, key: str, build: Callable[[], Any]) -> Any:
        """``build()`` once per parse of the bundle (a re-read drops every memo; a value built while
        the bundle was re-read is answered once and not kept)."""
        self.bundle()
        with self._lock:
            if key in self._memo:
                return self._memo[key]
            of = self._memo_of
        value = build()
        with self._lock:
            if self._memo_of is of:
                self._memo[key] = value
        return value

    def warm_up(self) -> None:
        """Build the slow, bundle-wide parts (lint, the graph's layout, the index page) in a
        thread, so that the first concept page does not wait for a lint of the whole bundle: until
        the lint is kept, a concept page says its findings are coming, and the version changes
        when they are there (the open page then shows them)."""
        def run() -> None:
            if not self._served.is_set():
                self._served.wait(3.0)
            try:
                self.lint()
                self.layout_text()
                self.main("index", {})
            except Exception:  # noqa: BLE001 - a request builds it again and reports what went wrong
                pass

        with self._lock:
            if self._warming is not None and self._warming.is_alive():
                return
            self._warming = threading.Thread(target=run, name="okfpro-serve-warm", daemon=True)
            self._warming.start()

    def _kept(self, key: str) -> bool:
        with self._lock:
            return key in self._memo

    def version(self) -> str:
        """Changes when anything a page shows changes: the concepts (the kept parse, revalidated),
        board, log and journal days (their size and mtime)."""
        bundle = self.bundle()
        if self.warm.mode in ("inotify", "fixed"):  # a changed bundle is a new parse: its count is the version
            concepts = f"parse {self.warm.reloads}"
        else:  # every request re-reads (through the parse cache): digest what was read
            concepts = self.memo("digest", lambda: _digest(bundle))
        h = hashlib.sha1(f"{concepts} lint:{self._kept('lint')}".encode())
        for rel in ("board.md", "log.md", "journal"):
            try:
                st = os.stat(self.root / rel)
                h.update(f"{rel}:{st.st_size}:{st.st_mtime_ns}".encode())
            except OSError:
                h.update(f"{rel}:-".encode())
        if (self.root / "journal").is_dir():
            for day in sorted(self.journal_days()):
                try:
                    st = os.stat(self.root / "journal" / f"{day}.md")
                    h.update(f"{day}:{st.st_size}:{st.st_mtime_ns}".encode())
                except OSError:
                    pass
        return h.hexdigest()[:16]

    def markdown(self) -> Markdown:
        bundle = self.bundle()

        def resolve(path: str) -> str | None:
            c = bundle.by_path.get(path)
            return c.id if c is not None else None

        dirs = self.memo("dirs-set", lambda: set(_views.directory_set(bundle)))
        views = {"board.md": "board", "log.md": "log", "journal/index.md": "journal"}

        def place(path: str) -> str | None:
            if path in views:
                return self.links.view(views[path])
            if path == "index.md":
                return self.links.view("index")
            if path.endswith("/index.md") and path[:-len("/index.md")] in dirs:
                d = path[:-len("/index.md")]
                return f"#d:{d}" if self.links.export else self.links.view("index", dir=d)
            return None

        return self.memo("md", lambda: Markdown(resolve, self.links.concept, place))

    def titles(self) -> dict[str, str]:
        bundle = self.bundle()
        return self.memo("titles", lambda: {c.id: _views.title_of(c) for c in bundle.concepts})

    # ------------------------------------------------------------------ JSON, the CLI's shapes
    def view_json(self, view: str, params: dict[str, str]) -> Any:
        bundle = self.bundle()
        head = self.head()
        if view in ("catalog", "files", "tags", "types"):
            where = _views.row_filter(bundle, params.get("type"), params.get("dir"), params.get("tag"),
                                      params.get("status"), params.get("trust"))
            if where is None:
                return {**head, **self.memo(view, lambda: getattr(_views, view)(bundle))}
            return {**head, **getattr(_views, view)(bundle, where)}
        if view == "stats":
            return {**head, **self.memo("stats", lambda: _views.stats(bundle))}
        if view == "index":
            if params.get("dir"):
                return {**head, **_views.index(bundle, [params["dir"]])}
            return {**head, **self.memo("index", lambda: _views.index(bundle))}
        if view == "dirs":
            return {**head, **self.memo("dirs", lambda: _views.dirs(bundle))}
        if view == "loose":
            return {**head, **_views.loose(bundle)}
        if view == "hubs":
            return {**head, **_views.hubs(bundle)}
        if view == "graph":
            return {**head, **_views.graph(bundle, minimal=params.get("minimal") == "1",
                                           body=params.get("body") != "0")}
        if view == "lint":
            return {**head, **self.lint()}
        if view == "search":
            return self.search(params)
        if view == "node":
            return self.node(params.get("id", ""))
        if view == "board":
            return self.board_rows()
        if view == "state":
            return self.state()
        if view == "log":
            return {**head, **self.log()}
        if view == "journal":
            return {**head, **self.journal(params.get("day"))}
        raise NotFound(f"no view {view!r}")

    def json_text(self, view: str, params: dict[str, str]) -> str:
        """The JSON of a view as sent: kept per parse for the bundle's own views asked without
        parameters (board, log, journal and searches are built per request)."""
        from okfpro.core.jsonable import dumps

        if not params and view in KEPT_JSON:
            return self.memo(f"json:{view}", lambda: dumps(self.view_json(view, params)))
        return dumps(self.view_json(view, params))

    def lint(self) -> dict[str, Any]:
        from okfpro.core.lint import lint
        from okfpro.io.clock import today

        bundle = self.bundle()
        return self.memo("lint", lambda: lint(bundle, today=today()))

    def search(self, params: dict[str, str]) -> dict[str, Any]:
        from okfpro.io import search

        terms = params.get("q", "").split()
        if not terms:
            raise BadRequest("give the terms as ?q=")
        engine = params.get("engine") or "scan"
        if engine not in ("scan", "ranked"):
            raise BadRequest("engine is scan or ranked")
        limit = RANKED_DEFAULT_LIMIT if engine == "ranked" else None
        if params.get("limit", "").isdigit():
            limit = int(params["limit"])
        q = search.Query(terms, engine, False, False, None, {}, limit, None)
        try:
            rows = search.one(self.root, self.bundle(), q)
        except search.SearchError as exc:
            raise BadRequest(str(exc)) from None
        return {**self.head(), "query": terms, "count": len(rows), "matches": rows}

    def node(self, ident: str) -> dict[str, Any]:
        """``okfpro read ID --json``: the concept's source, found through the bundle's map."""
        from okfpro.io import reader

        why = reader.unsafe_id(ident)
        if why:
            raise BadRequest(f"refusing id {ident[:200]!r}: it holds {why}")
        bundle = self.bundle()
        if ident not in bundle.by_id:
            raise NotFound(f"no concept {ident[:200]!r} in {self.name}")
        try:
            found = reader.read_concept(self.root, bundle, ident)
        except OSError as exc:
            raise NotFound(f"cannot read {exc.filename}: {exc.strerror or exc}") from None
        if found is None:
            raise NotFound(f"no concept {ident[:200]!r} in {self.name}")
        cid, rel, content = found
        return {"bundle": self.name, "id": cid, "path": rel, "content": content}

    # ------------------------------------------------------------------ the workspace
    def _state_ok(self) -> bool:
        from okfpro.io import workstate as ws

        return (self.root / "board.md").is_file() and not ws.escaping_state_files(self.root)

    def board_rows(self) -> list[dict[str, Any]] | None:
        from okfpro.io import workstate as ws
        from okfpro.io.clock import today

        if not self._state_ok():
            return None
        return ws.board_rows(self.root, today())

    def state(self) -> dict[str, Any] | None:
        from okfpro.io import workstate as ws
        from okfpro.io.clock import today

        if not self._state_ok():
            return None
        return ws.state_payload(self.root, today())

    def log(self) -> dict[str, Any]:
        """Ours (no CLI view prints the log): ``{path, content, snapshots}`` — the text and its
        Snapshot lines as chart points, oldest first."""
        from okfpro.core.render import log_snapshots
        from okfpro.io import workstate as ws

        if ws.escaping_state_files(self.root):
            return {"path": "log.md", "content": None, "snapshots": []}
        text = ws.read_optional(self.root / "log.md")
        return {"path": "log.md", "content": text, "snapshots": log_snapshots(text or "")}

    def journal_days(self) -> list[str]:
        from okfpro.core.dormancy import JOURNAL_FILE

        base = self.root / "journal"
        if base.is_symlink() or not base.is_dir():
            return []
        try:
            names = os.listdir(base)
        except OSError:
            return []
        return sorted((m.group(1) for n in names if (m := JOURNAL_FILE.match(n))), reverse=True)

    def journal(self, day: str | None) -> dict[str, Any]:
        """Ours: ``{days}`` newest first, or one ``{day, path, content}``."""
        days = self.journal_days()
        if day is None:
            return {"days": days}
        if day not in days:  # the listing is the map: nothing else is opened
            raise NotFound(f"no journal day {day[:40]!r}")
        from okfpro.io.reader import read_bytes

        rel = f"journal/{day}.md"
        try:
            raw = read_bytes(os.path.realpath(self.root), rel)
        except OSError as exc:
            raise NotFound(f"cannot read {rel}: {exc.strerror or exc}") from None
        return {"day": day, "path": rel, "content": raw.decode("utf-8", "replace")}

    # ------------------------------------------------------------------ memory
    def memory_json(self, what: str, params: dict[str, str]) -> dict[str, Any]:
        m = self.memory
        if m.store is None:
            raise NotFound(m.refusal or "memory is not served")
        if what == "list":
            from okfpro.memory.views import list_payload

            return list_payload(m.store, m.scope)[0]
        if what == "recall":
            from okfpro.io.clock import today
            from okfpro.memory.views import recall_payload

            q = params.get("q", "").strip()
            if not q:
                raise BadRequest("give the words to recall as ?q=")
            limit = int(params["limit"]) if params.get("limit", "").isdigit() else 10
            return recall_payload(m.store, m.scope, q, limit=limit, include_hidden=False, today=today())[0]
        if what == "log":
            result = m.store.log(m.scope, None, None)
            if result.error:
                raise BadRequest(result.error)
            return {"scope": m.scope.parts(), "commits": [e.to_json() for e in result.entries]}
        if what == "entry":
            return self.memory_entry(params.get("id", ""))
        raise NotFound(f"no memory view {what!r}")

    def memory_entry(self, ident: str) -> dict[str, Any]:
        """Ours: one entry the identity may read (looked up in its own listing, never a path) and
        its history — the commits of its scope that name it (``{scope, entry, commits}``)."""
        listed = self.memory_json("list", {})
        entry = next((e for e in listed["entries"] if e.get("id") == ident), None)
        if entry is None:
            raise NotFound(f"no memory entry {ident[:200]!r} among yours")
        scope_key, _, local = ident.rpartition("/")
        commits = [c for c in self.memory_json("log", {})["commits"]
                   if c.get("scope_key") == scope_key and local in (c.get("summary") or "")]
        return {"scope": listed["scope"], "entry": entry, "commits": commits}

    # ------------------------------------------------------------------ pages
    def page(self, view: str, params: dict[str, str]) -> tuple[int, str]:
        """(status, the HTML document) of a view."""
        status = 200
        try:
            main = self.main(view, params)
        except NotFound as exc:
            status, main = 404, pages.missing_page(str(exc))
        except BadRequest as exc:
            status, main = 400, pages.missing_page(str(exc))
        title = view if view != "index" else self.name
        self._served.set()
        return status, pages.document(title, self.name, self.links, main, view=view.split("/")[0],
                                      version=self.version(), memory=self.memory.store is not None)

    def main(self, view: str, params: dict[str, str]) -> str:
        links = self.links
        md = self.markdown()
        if view == "index":
            only = params.get("dir")
            if only is not None:  # one directory: cheap, built per request
                return pages.index_page(self.view_json("index", {}), links, md.render, only)
            return self.memo("page:index", lambda: pages.index_page(self.view_json("index", {}), links, md.render))
        if view in ("catalog", "files"):
            n = int(params["page"]) if params.get("page", "").isdigit() and len(params["page"]) < 7 else 1
            data = self.memo(view, lambda: getattr(_views, view)(self.bundle()))
            build = pages.catalog_page if view == "catalog" else pages.files_page
            return self.memo(f"page:{view}:{n}", lambda: build(data, links, n))
        if view in ("tags", "types"):
            return self.memo(f"page:{view}", lambda: pages.inverted_page(self.view_json(view, {}), links, view[:-1],
                                                                         self.titles()))
        if view == "stats":
            return self.memo("page:stats", lambda: pages.stats_page(self.view_json("stats", {})))
        if view == "search":
            q, engine = params.get("q", "").strip(), params.get("engine") or "scan"
            if not q:
                return pages.search_page("", engine, None, links)
            try:
                return pages.search_page(q, engine, self.search(params), links)
            except BadRequest as exc:
                return pages.search_page(q, engine, None, links, str(exc))
        if view == "concept":
            return self.concept_main(params.get("id", ""))
        if view == "graph":
            return pages.graph_page(links, f"{self.prefix}/_layout", len(self.bundle().concepts))
        if view == "lint":
            bundle = self.bundle()
            return self.memo("page:lint", lambda: pages.lint_page(self.lint(), links, {c.path: c.id for c in bundle.concepts}))
        if view == "board":
            def board() -> str:
                state = self.state()
                return pages.board_page(self.board_rows(), state["board"] if state else None, links,
                                        self._resolve_target, SECTIONS, md.inline)

            return self.memo(f"page:board:{self._stamp('board.md', 'log.md', 'journal')}", board)
        if view == "log":
            def log() -> str:
                data = self.log()
                return pages.log_page(data["content"], data["snapshots"], md.render)

            return self.memo(f"page:log:{self._stamp('log.md')}", log)
        if view == "journal":
            day = params.get("day")
            if day is None:
                return pages.journal_page(self.journal_days(), links)
            data = self.journal(day)
            return pages.journal_day_page(day, data["content"], md.render, links)
        if view == "memory":
            if self.memory.store is None:
                return pages.memory_page("", None, None, "", links, self.memory.refusal or "memory is not served")
            q = params.get("q", "").strip()
            recalled = self.memory_json("recall", params) if q else None
            return pages.memory_page(self.memory.who, self.memory_json("list", {}), recalled, q, links)
        if view == "memory/entry":
            if self.memory.store is None:
                return pages.memory_page("", None, None, "", links, self.memory.refusal or "memory is not served")
            return pages.memory_entry_page(self.memory.who, self.memory_entry(params.get("id", "")), links)
        if view == "memory/log":
            if self.memory.store is None:
                return pages.memory_page("", None, None, "", links, self.memory.refusal or "memory is not served")
            return pages.memory_log_page(self.memory.who, self.memory_json("log", {}), links)
        raise NotFound(f"no page {view!r}")

    def _stamp(self, *rels: str) -> str:
        """What the workspace files ``rels`` are now (size and mtime each) and today: a kept page of
        them is good while this is the same (a changed bundle drops every kept page anyway)."""
        from okfpro.io.clock import today

        parts = [today().isoformat()]
        for rel in rels:
            try:
                st = os.stat(self.root / rel)
                parts.append(f"{st.st_size}.{st.st_mtime_ns}")
            except OSError:
                parts.append("-")
        return ":".join(parts)

    def _resolve_target(self, path: str) -> str | None:
        bundle = self.bundle()
        c = bundle.by_path.get(path) or bundle.by_path.get(path + ".md")
        return c.id if c is not None else None

    def concept_main(self, ident: str) -> str:
        bundle = self.bundle()
        c = bundle.by_id.get(ident)
        if c is None:
            raise NotFound(f"no concept {ident[:200]!r} in {self.name} — deleted or renamed?")
        out, inn = self.memo("adjacency", lambda: _adjacency(bundle)).get(c.id, ([], []))
        findings: list[dict[str, Any]] | None = None
        if self._warming is None or self._kept("lint"):  # render, or the lint is there: wait for it / use it
            findings = self.memo("findings", lambda: _by_path(self.lint()["findings"])).get(c.path, [])
        elif not self._warming.is_alive():  # a re-read dropped it: lint again behind the page, not in it
            self.warm_up()
        info = {"id": c.id, "title": _views.title_of(c), "type": _views.type_text(c), "tags": _views.tag_list(c),
                "description": c.description, "dir": _views.dir_of(c.id), "trust": c.trust, "out": out, "in": inn}
        return pages.concept_page(info, self.markdown().render(c.body, c.path), self.links, self.titles(), findings)

    def layout(self) -> dict[str, Any]:
        from okfpro.core import render as _render

        bundle = self.bundle()
        return self.memo("layout", lambda: pages.layout_payload(_render.layout(bundle)))

    def layout_text(self) -> str:
        from okfpro.core.jsonable import dumps

        return self.memo("layout-json", lambda: dumps(self.layout()))


class _Fixed:
    """A bundle read once (``okfpro render``), in place of the revalidating door."""

    mode, reloads = "fixed", 0

    def __init__(self, bundle: Bundle) -> None:
        self._bundle = bundle

    def bundle(self) -> Bundle:
        return self._bundle


def _adjacency(bundle: Bundle) -> dict[str, tuple[list[str], list[str]]]:
    """id -> (the ids it links to, the ids linking to it), each sorted."""
    outs: dict[str, set[str]] = {}
    ins: dict[str, set[str]] = {}
    for s, t in _views.graph_of(bundle).edges:
        outs.setdefault(s, set()).add(t)
        ins.setdefault(t, set()).add(s)
    return {cid: (sorted(outs.get(cid, ())), sorted(ins.get(cid, ()))) for cid in set(outs) | set(ins)}


def _by_path(findings: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for f in findings:
        out.setdefault(f.get("path") or "", []).append(f)
    return out


def _digest(bundle: Bundle) -> str:
    h = hashlib.sha1()
    for c in bundle.concepts:
        h.update(c.path.encode("utf-8", "replace"))
        h.update(hashlib.sha1(c.body.encode("utf-8", "replace")).digest())
        h.update(repr(sorted(c.frontmatter.items(), key=lambda kv: str(kv[0]))).encode("utf-8", "replace"))
    for e in bundle.reserved:
        h.update(e.path.encode("utf-8", "replace"))
        h.update(hashlib.sha1(getattr(e, "content", "").encode("utf-8", "replace")).digest())
    return h.hexdigest()
