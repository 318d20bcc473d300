"""The HTTP door of ``okfpro serve``: read-only, loopback by default, one bundle or a hub.

* Methods: GET and HEAD; anything else is 405 with ``Allow: GET, HEAD``.
* Host: only the bound address, ``localhost`` and the loopback names, with the port — a page
  of another site that rebinds its DNS name to 127.0.0.1 is refused (421), so it cannot read the
  bundle or your memory through the victim's browser.
* Paths: a fixed table of views; a concept is named by ``?id=`` and looked up in the bundle's
  map, so nothing from the URL is ever joined onto a file path.  Static assets are the package's
  own files, named in :data:`ASSETS`.
* Headers: a strict Content-Security-Policy (scripts and styles from this server only, no
  inline script, connections to this server only, no frames), ``nosniff``, no referrer,
  ``no-store``.
* JSON beside every page: ``/catalog.json`` (or ``Accept: application/json``, or
  ``?format=json``) answers the CLI's ``--json`` of the same view.  ``/node?id=`` is always JSON
  (``okfpro read --json``); ``/_version`` is the cheap digest the page polls to stay live.
"""

from __future__ import annotations

import ipaddress
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from okfpro.serve import pages
from okfpro.serve.site import BadRequest, NotFound, Site

CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
       "base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
ASSETS = {"app.js": "text/javascript; charset=utf-8", "app.css": "text/css; charset=utf-8"}
PAGES = {"index", "catalog", "files", "tags", "types", "stats", "search", "concept", "graph", "lint", "board", "log",
         "journal", "memory", "memory/log", "memory/entry"}
JSON_ONLY = {"node", "dirs", "loose", "hubs", "state"}
MEMORY_JSON = {"memory": "list", "memory/recall": "recall", "memory/log": "log", "memory/entry": "entry"}
MAX_QUERY = 8192


def loopback(addr: str) -> bool:
    try:
        return ipaddress.ip_address(addr.strip("[]")).is_loopback
    except ValueError:
        return addr == "localhost"


def memory_allowed(bind: str, wanted: bool = True) -> tuple[bool, str]:
    """(serve memory?, why not): only when wanted and only on a loopback bind."""
    if not loopback(bind):
        return False, f"memory is served on loopback only (this server listens on {bind})"
    if not wanted:
        return False, "memory is off (--no-memory)"
    return True, ""


def asset(name: str) -> bytes:
    return resources.files("okfpro.serve").joinpath("static", name).read_bytes()


class Hub:
    """Several bundles, each a :class:`Site` under ``/b/<slug>/``; ``/`` lists them and searches all."""

    def __init__(self, sites: dict[str, Site]) -> None:
        self.sites = sites

    def page(self) -> str:
        rows = [{"slug": s, "count": len(site.bundle().concepts)} for s, site in self.sites.items()]
        return pages.document("bundles", "okfpro", pages.Links(""), pages.hub_page(rows), view="hub", memory=False,
                              version=self.version(), nav=False)

    def search(self, params: dict[str, str]) -> dict[str, Any]:
        rows: list[dict[str, Any]] = []
        for slug, site in self.sites.items():
            for r in site.search(params)["matches"]:
                rows.append({"slug": slug, **r, "url": site.links.concept(r.get("id", ""))})
        rows.sort(key=lambda r: (-(r.get("score") or 0), r["slug"], r.get("id", "")))
        return {"bundles": [{"slug": s, "dir": str(site.root)} for s, site in self.sites.items()],
                "query": params.get("q", "").split(), "count": len(rows), "matches": rows}

    def version(self) -> str:
        return "-".join(site.version() for site in self.sites.values())


class Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, bind: str, port: int, site: Site | None = None, hub: Hub | None = None) -> None:
        self.site, self.hub = site, hub
        if ":" in bind:
            import socket

            self.address_family = socket.AF_INET6
        super().__init__((bind, port), Handler)
        self.bind, self.port = bind, self.server_address[1]
        names = {bind.lower(), "localhost", "127.0.0.1", "[::1]", "::1"} if loopback(bind) else {bind.lower()}
        self.hosts = {f"{n}:{self.port}" for n in names} | ({f"[{bind}]:{self.port}"} if ":" in bind else set())


class Handler(BaseHTTPRequestHandler):
    server: Server
    protocol_version = "HTTP/1.1"
    timeout = 30  # a connection that sends nothing for this long is closed (no thread held forever)
    server_version = "okfpro"
    sys_version = ""

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the stdlib's name
        if getattr(self.server, "verbose", False):
            sys.stderr.write("serve: " + (format % args) + "\n")

    # ------------------------------------------------------------------ methods
    def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
        self.answer(head=False)

    def do_HEAD(self) -> None:  # noqa: N802
        self.answer(head=True)

    def refuse_method(self) -> None:
        self.close_connection = True  # its body is never read: the connection cannot carry another request
        self.send(405, "text/plain; charset=utf-8", b"read-only: GET and HEAD only\n",
                  extra={"Allow": "GET, HEAD", "Connection": "close"})

    do_POST = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = do_TRACE = do_CONNECT = refuse_method  # noqa: N815

    # ------------------------------------------------------------------ the answer
    def send(self, status: int, ctype: str, body: bytes, *, head: bool = False, extra: dict[str, str] | None = None
             ) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Content-Security-Policy", CSP)
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Referrer-Policy", "no-referrer")
        self.send_header("Cross-Origin-Resource-Policy", "same-origin")
        self.send_header("Cache-Control", "no-store")
        self.send_header("Vary", "Accept")
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        self.end_headers()
        if not head:
            self.wfile.write(body)

    def send_json(self, status: int, data: Any, head: bool) -> None:
        from okfpro.core.jsonable import dumps

        self.send(status, "application/json; charset=utf-8", (dumps(data) + "\n").encode("utf-8"), head=head)

    def answer(self, head: bool) -> None:
        host = (self.headers.get("Host") or "").lower()
        if host not in self.server.hosts:
            self.send(421, "text/plain; charset=utf-8", b"wrong Host: this server answers only its own address\n",
                      head=head)
            return
        if len(self.path) > MAX_QUERY or "\x00" in self.path:
            self.send(414 if len(self.path) > MAX_QUERY else 400, "text/plain; charset=utf-8", b"bad request\n",
                      head=head)
            return
        parts = urlsplit(self.path)
        params = dict(parse_qsl(parts.query, keep_blank_values=True))
        path = parts.path
        try:
            self.route(path, params, head)
        except BrokenPipeError:
            return
        except Exception as exc:  # noqa: BLE001 - one bad request must not take the server down
            import traceback

            traceback.print_exc(file=sys.stderr)
            self.send(500, "text/plain; charset=utf-8", f"internal error ({type(exc).__name__})\n".encode(), head=head)

    def route(self, path: str, params: dict[str, str], head: bool) -> None:
        if path == "/favicon.ico":
            self.send(204, "image/x-icon", b"", head=head)
            return
        if path.startswith("/_static/"):
            name = path[len("/_static/"):]
            if name not in ASSETS:
                self.send(404, "text/plain; charset=utf-8", b"not found\n", head=head)
                return
            self.send(200, ASSETS[name], asset(name), head=head, extra={"Cache-Control": "no-cache"})
            return
        hub = self.server.hub
        if hub is not None:
            if path == "/":
                self.send(200, "text/html; charset=utf-8", hub.page().encode(), head=head)
                return
            if path == "/_version":
                self.send(200, "text/plain; charset=utf-8", hub.version().encode(), head=head)
                return
            if path in ("/search", "/search.json"):
                try:
                    data = hub.search(params)
                except BadRequest as exc:
                    self.send_json(400, {"error": str(exc)}, head)
                    return
                if self.wants_json(path, params):
                    self.send_json(200, data, head)
                else:
                    q = params.get("q", "")
                    main = pages.search_page(q, params.get("engine") or "scan", data, pages.Links(""))
                    doc = pages.document("search", "okfpro", pages.Links(""), main, view="search", memory=False,
                                         version=hub.version(), nav=False)
                    self.send(200, "text/html; charset=utf-8", doc.encode(), head=head)
                return
            head_, sep, rest = path[len("/b/"):].partition("/") if path.startswith("/b/") else ("", "", "")
            from urllib.parse import unquote

            site = hub.sites.get(unquote(head_)) if sep else None
            if site is None:
                self.send(404, "text/plain; charset=utf-8", b"not found\n", head=head)
                return
            self.site_route(site, "/" + rest, params, head)
            return
        assert self.server.site is not None
        self.site_route(self.server.site, path, params, head)

    def wants_json(self, path: str, params: dict[str, str]) -> bool:
        if path.endswith(".json") or params.get("format") == "json":
            return True
        accept = (self.headers.get("Accept") or "").lower()
        return "application/json" in accept and "text/html" not in accept

    def site_route(self, site: Site, path: str, params: dict[str, str], head: bool) -> None:
        if path == "/_version":
            self.send(200, "text/plain; charset=utf-8", site.version().encode(), head=head)
            return
        if path == "/_layout":
            self.send(200, "application/json; charset=utf-8", site.layout_text().encode("utf-8"), head=head)
            return
        view = path.strip("/") or "index"
        as_json = self.wants_json(path, params)
        if view.endswith(".json"):
            view = view[:-5]
        if view.startswith("memory"):
            if as_json:
                try:
                    self.send_json(200, site.memory_json(MEMORY_JSON.get(view, view), params), head)
                except NotFound as exc:
                    self.send_json(404, {"error": str(exc)}, head)
                except BadRequest as exc:
                    self.send_json(400, {"error": str(exc)}, head)
                return
        if view == "node" or view in JSON_ONLY or as_json:
            if view == "concept":
                view = "node"
            params.pop("format", None)
            try:
                text = site.json_text(view, params)
            except NotFound as exc:
                self.send_json(404, {"error": str(exc)}, head)
                return
            except BadRequest as exc:
                self.send_json(400, {"error": str(exc)}, head)
                return
            if text == "null":
                self.send_json(404, {"error": "no board.md: not a workspace"}, head)
                return
            self.send(200, "application/json; charset=utf-8", (text + "\n").encode("utf-8"), head=head)
            return
        if view not in PAGES:
            self.send(404, "text/html; charset=utf-8",
                      pages.document("not found", site.name, site.links, pages.missing_page(f"no view {view[:80]!r}"),
                                     view="", memory=site.memory.store is not None).encode(), head=head)
            return
        status, doc = site.page(view, params)
        self.send(status, "text/html; charset=utf-8", doc.encode("utf-8"), head=head)


def run(server: Server, ready: Any = None) -> None:
    """Serve until interrupted; ``ready(url)`` is called once listening."""
    url = f"http://{'[' + server.bind + ']' if ':' in server.bind else server.bind}:{server.port}/"
    if ready is not None:
        ready(url)
    try:
        server.serve_forever(poll_interval=0.2)
    finally:
        server.server_close()

