"""The views as HTML: pure functions from a view's data (the CLI's JSON shapes) to markup.

Every text from the bundle, the board, the log or memory goes through :func:`esc` (or is
Markdown rendered by :mod:`okfpro.serve.markdown`, raw HTML off); nothing builds markup from
unescaped input.  Where a page points is :class:`Links`'s business: the server's URLs
(``/catalog``, ``/concept?id=…``) or, in ``okfpro render``'s single file, anchors (``#catalog``,
``#c:…``) — the same pages either way.
"""

from __future__ import annotations

import html
import math
from typing import Any, Callable, Iterable
from urllib.parse import quote, urlencode

from okfpro.core.render import CHART_KEYS

VIEWS = (("index", "Index"), ("catalog", "Catalog"), ("files", "Files"), ("tags", "Tags"), ("types", "Types"),
         ("stats", "Stats"), ("graph", "Graph"), ("search", "Search"), ("board", "Board"), ("journal", "Journal"),
         ("log", "Log"), ("lint", "Lint"), ("memory", "Memory"))
PALETTE = ("#2457c5", "#c5402a", "#1d8a5a", "#9b59b6", "#d68910")
LIST_CAP = 60  # concept links shown per tag / type row before "N more"
PAGE_ROWS = 1000  # catalog and files rows per page (the JSON beside them has every row)
SEARCH_ROWS = 200  # search results shown on the page (ditto)


def esc(value: Any) -> str:
    return html.escape("" if value is None else str(value), quote=True)


class Links:
    """Where the pages point.  ``prefix``: the bundle's mount (``""`` alone, ``/b/slug`` under a hub);
    ``export``: one file, every view an anchor of it."""

    def __init__(self, prefix: str = "", *, export: bool = False, hub: str | None = None) -> None:
        self.prefix, self.export, self.hub = prefix, export, hub

    def view(self, name: str, **query: Any) -> str:
        if self.export:
            return f"#{name}"
        path = f"{self.prefix}/" if name == "index" else f"{self.prefix}/{name}"
        q = {k: v for k, v in query.items() if v not in (None, "")}
        return path + ("?" + urlencode(q) if q else "")

    def concept(self, cid: str) -> str:
        if self.export:
            return "#c:" + quote(cid, safe="/")
        return f"{self.prefix}/concept?id={quote(cid, safe='/')}"

    def journal(self, day: str) -> str:
        return f"#j:{day}" if self.export else f"{self.prefix}/journal?day={quote(day)}"

    def static(self, name: str) -> str:
        return f"/_static/{name}"


# --------------------------------------------------------------------------- the chrome


def document(title: str, bundle_name: str, links: Links, main: str, *, view: str, version: str = "",
             memory: bool = True, head: str = "", tail: str = "", nav: bool = True) -> str:
    """One page: header with the views and a search box, ``main``, the script that keeps it live."""
    items = []
    for name, label in VIEWS if nav else ():
        if (name == "memory" and not memory) or (name == "search" and links.export):
            continue
        cur = ' aria-current="page"' if name == view else ""
        items.append(f'<a href="{esc(links.view(name))}"{cur}>{label}</a>')
    hub = f'<a class="hub" href="{esc(links.hub)}">all bundles</a>' if links.hub else ""
    search = "" if links.export else (
        f'<form class="q" action="{esc(links.view("search"))}" method="get" role="search">'
        f'<input name="q" type="search" placeholder="Search…" aria-label="Search concepts"></form>')
    assets = head or (f'<link rel="stylesheet" href="{esc(links.static("app.css"))}">')
    script = tail or f'<script src="{esc(links.static("app.js"))}"></script>'
    version_url = "" if links.export else f' data-version-url="{esc(links.prefix)}/_version"'
    return (
        '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f'<meta name="referrer" content="no-referrer">\n<title>{esc(title)} — okfpro</title>\n{assets}\n</head>\n'
        f'<body data-version="{esc(version)}"{version_url} data-view="{esc(view)}">\n'
        f'<header>{hub}<a class="brand" href="{esc(links.view("index"))}">{esc(bundle_name)}</a>'
        f'<nav>{"".join(items)}</nav>{search}</header>\n'
        f'<main id="main" data-view="{esc(view)}">\n{main}\n</main>\n{script}\n</body>\n</html>\n'
    )


def _concept_link(links: Links, cid: str, title: str | None = None) -> str:
    return f'<a href="{esc(links.concept(cid))}" data-id="{esc(cid)}">{esc(title if title else cid)}</a>'


def _chips(values: Iterable[str], cls: str = "chip") -> str:
    return "".join(f'<span class="{cls}">{esc(v)}</span>' for v in values)


def _dir_label(d: str) -> str:
    return "(root)" if d in (".", "") else d + "/"


def _table(head: Iterable[str], rows: Iterable[Iterable[str]], cls: str = "") -> str:
    th = "".join(f"<th>{esc(h)}</th>" for h in head)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in r) + "</tr>" for r in rows)
    return f'<table class="{cls}"><thead><tr>{th}</tr></thead><tbody>{body}</tbody></table>'


def _ids(links: Links, ids: list[str], titles: dict[str, str]) -> str:
    shown = ", ".join(_concept_link(links, i, titles.get(i)) for i in ids[:LIST_CAP])
    more = len(ids) - LIST_CAP
    return shown + (f' <span class="more">… {more} more</span>' if more > 0 else "")


def empty(text: str) -> str:
    return f'<p class="empty">{esc(text)}</p>'


# --------------------------------------------------------------------------- bundle views


def index_page(data: dict[str, Any], links: Links, render: Callable[[str, str], str], only: str | None = None) -> str:
    """The §8 map, disclosed progressively: on the server the root's index.md and a row per
    directory (``only``: that directory's own index.md rendered, or its listing synthesized); in
    the exported file every directory in full."""
    rows = data["directories"]
    full = rows if links.export else [r for r in rows if r["dir"] == (only or ".")]
    if only is not None and not full:
        return missing_page(f"no directory {only[:200]!r} in the bundle")
    out = [f'<h1>Index</h1><p class="meta">{data["count"]} directories</p>']
    for r in full:
        out.append(_index_entry(r, links, render))
    if not links.export and only is None:
        table = [(f'<a href="{esc(_dir_url(links, r["dir"]))}" data-dir="{esc(r["dir"])}">{esc(_dir_label(r["dir"]))}</a>',
                  str(r["count"]), esc(", ".join(f"{k.strip() or 'Untyped'} {v}" for k, v in list(r["types"].items())[:6])),
                  "index.md" if r["present"] else "synthesized") for r in rows if r["dir"] != "."]
        if table:
            out.append("<h2>Directories</h2>" + _table(("directory", "concepts", "types", "map"), table, "rows"))
    return "".join(out)


def _dir_url(links: Links, d: str) -> str:
    return f"#d:{d}" if links.export else links.view("index", dir=d)


def _index_entry(r: dict[str, Any], links: Links, render: Callable[[str, str], str]) -> str:
    d = r["dir"]
    types = ", ".join(f"{esc(k.strip() or 'Untyped')} {v}" for k, v in r["types"].items())
    sub = " ".join(f'<a href="{esc(_dir_url(links, s))}">{esc(s.rsplit("/", 1)[-1])}/</a>' for s in r["subdirs"])
    out = [f'<section class="dir" id="d:{esc(d)}"><h2>{esc(_dir_label(d))}</h2>'
           f'<p class="meta">{r["count"]} concept(s){" · " + types if types else ""}'
           f'{"" if r["present"] else " · no index.md: listing synthesized"}</p>'
           + (f'<p class="subdirs">→ {sub}</p>' if sub else "")]
    if r["present"] and (r.get("body") or "").strip():
        out.append(f'<div class="md">{render(r["body"] or "", r["index_path"])}</div>')
    else:
        items = "".join(f'<li>{_concept_link(links, i["id"], i["title"])}'
                        f'{" — " + esc(i["description"]) if i["description"] else ""}</li>' for i in r["listing"])
        out.append(f"<ul>{items}</ul>" if items else "")
    out.append("</section>")
    return "".join(out)


def _pager(view: str, rows: list[Any], links: Links, page: int) -> tuple[list[Any], str]:
    """(this page's rows, the pager) — every row at once in the exported file."""
    if links.export or len(rows) <= PAGE_ROWS:
        return rows, ""
    pages_n = (len(rows) + PAGE_ROWS - 1) // PAGE_ROWS
    page = min(max(page, 1), pages_n)
    nav = " ".join(f'<b>{n}</b>' if n == page else f'<a href="{esc(links.view(view, page=n))}">{n}</a>'
                   for n in range(1, pages_n + 1))
    return rows[(page - 1) * PAGE_ROWS:page * PAGE_ROWS], f'<p class="pager">page {nav}</p>'


def catalog_page(data: dict[str, Any], links: Links, page: int = 1) -> str:
    shown, pager = _pager("catalog", data["concepts"], links, page)
    rows = [(_concept_link(links, r["id"], r["id"]), esc(r["title"]), esc(r["type"]), esc(r["trust"]),
             esc(r["status"] or ""), _chips(r["tags"]), str(r["links_in"]), str(r["links_out"]))
            for r in shown]
    return (f'<h1>Catalog</h1><p class="meta">{data["count"]} concepts</p>{pager}'
            + _table(("id", "title", "type", "trust", "status", "tags", "in", "out"), rows, "rows") + pager)


def files_page(data: dict[str, Any], links: Links, page: int = 1) -> str:
    shown, pager = _pager("files", data["files"], links, page)
    rows = [(_concept_link(links, r["id"], r["path"]), esc(r["title"]), esc(r["type"]), esc(r["description"]))
            for r in shown]
    return (f'<h1>Files</h1><p class="meta">{data["count"]} files</p>{pager}'
            + _table(("path", "title", "type", "description"), rows, "rows") + pager)


def inverted_page(data: dict[str, Any], links: Links, key: str, titles: dict[str, str]) -> str:
    """Tags or types: each value with its count and its concepts."""
    label = "Tags" if key == "tag" else "Types"
    rows = [(f'<span class="chip">{esc(r[key])}</span>', str(r["count"]), _ids(links, r["concepts"], titles))
            for r in data[f"{key}s"]]
    return (f'<h1>{label}</h1><p class="meta">{data["count"]} {label.lower()}</p>'
            + _table((key, "count", "concepts"), rows, "rows"))


def stats_page(data: dict[str, Any]) -> str:
    head = ("concepts", "dirs", "top_dirs", "concept_types", "cross_links", "distinct_tags")
    cards = "".join(f'<div class="card"><b>{esc(data[k])}</b><span>{esc(k.replace("_", " "))}</span></div>'
                    for k in head)
    parts = [f'<h1>Stats</h1><div class="cards">{cards}</div>']
    for key in ("by_type", "by_top_dir", "by_dir"):
        counts = data[key]
        top = max(counts.values(), default=1) or 1
        rows = [(esc(k), str(v), f'<svg class="bar" viewBox="0 0 100 8" preserveAspectRatio="none" aria-hidden="true">'
                 f'<rect width="{max(1, round(100 * v / top))}" height="8" rx="3"/></svg>')
                for k, v in counts.items()]
        parts.append(f'<h2>{esc(key.replace("_", " "))}</h2>' + _table((key[3:], "count", ""), rows, "rows"))
    return "".join(parts)


def search_page(q: str, engine: str, data: dict[str, Any] | None, links: Links, error: str | None = None) -> str:
    opts = "".join(f'<option value="{e}"{" selected" if e == engine else ""}>{e}</option>' for e in ("scan", "ranked"))
    form = (f'<form class="search" action="{esc(links.view("search"))}" method="get">'
            f'<input name="q" type="search" value="{esc(q)}" autofocus aria-label="terms">'
            f'<select name="engine" aria-label="engine">{opts}</select><button>Search</button></form>')
    if error:
        return f"<h1>Search</h1>{form}<p class=\"error\">{esc(error)}</p>"
    if data is None:
        return f"<h1>Search</h1>{form}" + empty("Scan: every term must hit; ranked: BM25 over the words.")
    rows = []
    for r in data["matches"][:SEARCH_ROWS]:
        slug = f'<span class="chip">@{esc(r["slug"])}</span> ' if r.get("slug") else ""
        link = r.get("url") or links.concept(r.get("id", ""))
        rows.append(f'<li>{slug}<a href="{esc(link)}" data-id="{esc(r.get("id", ""))}">{esc(r.get("title") or r.get("id"))}'
                    f'</a> <span class="meta">{esc(r.get("id"))} · {esc(r.get("score"))}'
                    f'{" · " + esc(", ".join(r["matched"])) if r.get("matched") else ""}</span>'
                    + (f'<div class="snippet">{esc(r["snippet"])}</div>' if r.get("snippet") else "") + "</li>")
    found = f'<p class="meta" id="count">{data["count"]} match(es) for {esc(q)}</p>'
    more = data["count"] - SEARCH_ROWS
    tail = f'<p class="meta">… {more} more: add a term to narrow it (the JSON beside this page has every row)</p>' \
        if more > 0 else ""
    return f"<h1>Search</h1>{form}{found}<ol class=\"results\">{''.join(rows)}</ol>{tail}"


def concept_page(c: dict[str, Any], body_html: str, links: Links, titles: dict[str, str],
                 findings: list[dict[str, Any]] | None) -> str:
    """One concept: title, type, tags, description, the rendered body, links in and out, lint findings."""
    meta = " · ".join(esc(x) for x in (c["id"], c["type"] or "Untyped", _dir_label(c["dir"]), c["trust"]) if x)
    parts = [f'<article class="concept" data-id="{esc(c["id"])}"><h1>{esc(c["title"])}</h1>'
             f'<p class="meta">{meta}</p><p>{_chips(c["tags"])}</p>']
    if c["description"]:
        parts.append(f'<p class="description">{esc(c["description"])}</p>')
    if findings is None:
        parts.append('<aside class="lint"><p class="meta" id="lint-pending">lint findings: the bundle is being '
                     'linted; they show here when it is done</p></aside>')
    elif findings:
        items = "".join(f'<li class="{esc(f["severity"])}"><b>{esc(f["check"])}</b> {esc(f["message"])}</li>'
                        for f in findings)
        parts.append(f'<aside class="lint"><h2>Lint</h2><ul>{items}</ul></aside>')
    parts.append(f'<div class="md">{body_html}</div>')
    for label, ids in (("Links out", c["out"]), ("Linked from", c["in"])):
        parts.append(f'<h2>{label} ({len(ids)})</h2>'
                     + (f"<ul>{''.join('<li>' + _concept_link(links, i, titles.get(i)) + '</li>' for i in ids)}</ul>"
                        if ids else empty("none")))
    parts.append("</article>")
    return "".join(parts)


def graph_page(links: Links, layout_url: str, count: int) -> str:
    return (f'<h1>Graph</h1><p class="meta">{count} concepts · directories as clusters · drag to pan, wheel to zoom,'
            f' click a concept to open it</p><div class="stage"><canvas id="graph-canvas" data-src="{esc(layout_url)}" '
            f'data-concept="{esc(links.concept(""))}" aria-label="knowledge graph"></canvas></div>'
            '<p class="meta" id="graph-status">drawing…</p>')


def lint_page(data: dict[str, Any], links: Links, path_ids: dict[str, str]) -> str:
    st = data["stats"]
    state = "healthy" if data["healthy"] else "findings"
    parts = [f'<h1>Lint</h1><p class="meta">{esc(state)} · {len(data["findings"])} finding(s) · '
             f'{st["concepts"]} concepts</p>']
    by: dict[str, list[dict[str, Any]]] = {}
    for f in data["findings"]:
        by.setdefault(f["check"], []).append(f)
    for check, rows in by.items():
        items = []
        for f in rows:
            cid = path_ids.get(f.get("path") or "")
            where = _concept_link(links, cid, f["path"]) if cid else esc(f.get("path") or "")
            items.append(f'<li class="{esc(f["severity"])}">{where} — {esc(f["message"])}</li>')
        parts.append(f"<h2>{esc(check)} ({len(rows)})</h2><ul>{''.join(items[:500])}</ul>")
    return "".join(parts)


# --------------------------------------------------------------------------- workspace views


def board_page(rows: list[dict[str, Any]] | None, counters: dict[str, Any] | None, links: Links,
               resolve: Callable[[str], str | None], sections: Iterable[str],
               inline: Callable[[str, str], str] | None = None) -> str:
    """The board: a column per section, each card's age and chase date, its text rendered inline
    (links into the bundle followed), the In flight count against the cap."""
    if rows is None or counters is None:
        return "<h1>Board</h1>" + empty("no board.md: this bundle is not a workspace")
    cap = counters.get("cap")
    over = cap is not None and counters["in flight"] > cap
    head = (f'<p class="meta cap{" over" if over else ""}">In flight {counters["in flight"]}/'
            f'{esc(cap if cap is not None else "?")} · backlog {counters["backlog"]} · waiting {counters["waiting"]} '
            f'({counters["past chase"]} past chase) · inbox {counters["inbox"]} (oldest {counters["oldest"]}d)</p>')
    parts = ["<h1>Board</h1>", head, '<div class="board">']
    for name in sections:
        mine = [r for r in rows if r["section"] == name]
        items = []
        for r in mine:
            age = f'<span class="age">{r["age"]}d</span>' if r.get("age") is not None else ""
            chase = f'<span class="chase">chase {esc(r["chase"])}</span>' if r.get("chase") else ""
            text = r["text"].lstrip()
            text = text[2:] if text[:2] in ("- ", "* ") else text
            shown = inline(text, "board.md") if inline is not None else esc(text)
            if inline is None:
                shown += " " + " ".join(_concept_link(links, cid, t) for t in r["targets"] if (cid := resolve(t.strip("/"))))
            items.append(f"<li>{age}{shown} {chase}</li>")
        parts.append(f'<section class="col"><h2>{esc(name)} <span class="n">{len(mine)}</span></h2>'
                     f'<ul>{"".join(items)}</ul></section>')
    parts.append("</div>")
    return "".join(parts)


def chart(points: list[dict[str, Any]]) -> str:
    """The Snapshot history as an inline SVG: one polyline per counter, oldest day left."""
    if not points:
        return empty("no Snapshot line in the log yet")
    w, h, p = 640, 180, 24
    top = max([1] + [pt[k] for pt in points for k in CHART_KEYS if isinstance(pt.get(k), int)])
    n = len(points)

    def x(i: int) -> float:
        return p + ((w - 2 * p) / 2 if n == 1 else i * (w - 2 * p) / (n - 1))

    def y(v: int) -> float:
        return h - p - v * (h - 2 * p) / top

    lines, legend = [], []
    for k, colour in zip(CHART_KEYS, PALETTE):
        pts = " ".join(f"{x(i):.1f},{y(pt[k]):.1f}" for i, pt in enumerate(points) if isinstance(pt.get(k), int))
        if not pts:
            continue
        lines.append(f'<polyline data-key="{esc(k)}" points="{pts}" fill="none" stroke="{colour}" stroke-width="2"/>')
        legend.append(f'<span><svg class="swatch" viewBox="0 0 10 10" aria-hidden="true"><rect width="10" height="10" '
                      f'fill="{colour}"/></svg> {esc(k)}</span>')
    axis = (f'<text x="{p}" y="{h - 6}" font-size="11">{esc(points[0]["day"])}</text>'
            f'<text x="{w - p}" y="{h - 6}" font-size="11" text-anchor="end">{esc(points[-1]["day"])}</text>'
            f'<text x="4" y="{p}" font-size="11">{top}</text>'
            f'<line x1="{p}" y1="{h - p}" x2="{w - p}" y2="{h - p}" stroke="#ccd"/>')
    return (f'<svg class="chart" viewBox="0 0 {w} {h}" role="img" aria-label="Snapshot history">{axis}{"".join(lines)}'
            f'</svg><p class="legend">{"".join(legend)}</p>'
            f'<p class="meta">{esc(points[0]["day"])} → {esc(points[-1]["day"])} ({n} days)</p>')


def log_page(text: str | None, points: list[dict[str, Any]], render: Callable[[str, str], str]) -> str:
    if text is None:
        return "<h1>Log</h1>" + empty("no log.md")
    return f'<h1>Log</h1><h2>Snapshot history</h2>{chart(points)}<div class="md">{render(text, "log.md")}</div>'


def journal_page(days: list[str], links: Links) -> str:
    if not days:
        return "<h1>Journal</h1>" + empty("no journal day yet (okfpro journal open)")
    items = "".join(f'<li><a href="{esc(links.journal(d))}">{esc(d)}</a></li>' for d in days)
    return f'<h1>Journal</h1><p class="meta">{len(days)} days</p><ul class="days">{items}</ul>'


def journal_day_page(day: str, text: str, render: Callable[[str, str], str], links: Links) -> str:
    return (f'<p><a href="{esc(links.view("journal"))}">← journal</a></p><h1>{esc(day)}</h1>'
            f'<div class="md">{render(text, f"journal/{day}.md")}</div>')


# --------------------------------------------------------------------------- memory


def memory_page(who: str, listed: dict[str, Any] | None, recalled: dict[str, Any] | None, q: str,
                links: Links, refusal: str | None = None) -> str:
    head = f'<h1>Memory</h1><p class="meta">yours only: {esc(who)}</p>'
    if refusal:
        return "<h1>Memory</h1>" + f'<p class="error">{esc(refusal)}</p>'
    form = (f'<form class="search" action="{esc(links.view("memory"))}" method="get">'
            f'<input name="q" type="search" value="{esc(q)}" aria-label="recall"><button>Recall</button></form>'
            f'<p><a href="{esc(links.view("memory/log"))}">history (every remember and forget)</a></p>')
    parts = [head, form]
    if recalled is not None:
        items = "".join(f'<li><span class="chip">{esc(r.get("kind"))}</span> {esc(r.get("text"))} '
                        f'<span class="meta">{esc(r.get("memory"))} · {esc(r.get("status"))}</span></li>'
                        for r in recalled["passages"])
        parts.append(f'<h2>Recall: {esc(q)}</h2><ol class="results">{items}</ol>' if items else empty("nothing recalled"))
    if listed is not None:
        rows = [(esc(e.get("tier")), f'<a href="{esc(links.view("memory/entry", id=e.get("id")))}">{esc(e.get("id"))}</a>',
                 esc(f'{e.get("date", "")} {e.get("time", "")}'), esc(e.get("title"))) for e in listed["entries"]]
        parts.append(f'<h2>Entries ({len(rows)})</h2>' + _table(("tier", "id", "when", "title"), rows, "rows"))
    return "".join(parts)


def memory_log_page(who: str, data: dict[str, Any], links: Links) -> str:
    rows = [(esc(str(e.get("commit", ""))[:12]), esc(e.get("time")), esc(e.get("summary"))) for e in data["commits"]]
    return (f'<p><a href="{esc(links.view("memory"))}">← memory</a></p><h1>Memory history</h1>'
            f'<p class="meta">yours only: {esc(who)}</p>' + _table(("commit", "time", "summary"), rows, "rows"))


def memory_entry_page(who: str, data: dict[str, Any], links: Links) -> str:
    e = data["entry"]
    rows = [(esc(str(c.get("commit", ""))[:12]), esc(c.get("time")), esc(c.get("author")), esc(c.get("summary")))
            for c in data["commits"]]
    return (f'<p><a href="{esc(links.view("memory"))}">← memory</a></p><h1>{esc(e.get("title"))}</h1>'
            f'<p class="meta">{esc(e.get("tier"))} · {esc(e.get("id"))} · {esc(e.get("date"))} {esc(e.get("time"))} · '
            f'yours only: {esc(who)}</p><h2>History</h2>'
            + (_table(("commit", "time", "author", "summary"), rows, "rows") if rows else empty("no commit names it")))


# --------------------------------------------------------------------------- hub and errors


def hub_page(bundles: list[dict[str, Any]]) -> str:
    items = "".join(f'<li><a href="/b/{quote(b["slug"], safe="")}/">@{esc(b["slug"])}</a> '
                    f'<span class="meta">{b["count"]} concepts</span></li>' for b in bundles)
    form = ('<form class="search" action="/search" method="get"><input name="q" type="search" '
            'aria-label="search every bundle"><button>Search all</button></form>')
    return f"<h1>Bundles</h1>{form}<ul>{items}</ul>"


def missing_page(what: str) -> str:
    return f'<h1>Not here</h1><p class="error" id="missing">{esc(what)}</p>'


def layout_payload(graph: dict[str, Any], map_view: bool = False) -> dict[str, Any]:
    """The graph view's drawing data: positions, clusters, edges — never bodies (small at 50k).
    ``map_view``: concepts at their place in a box per directory (``boxes``), not on cluster spirals."""
    kx, ky = ("mx", "my") if map_view else ("x", "y")
    nodes = [{"id": n["id"], "t": n["title"], "x": n[kx], "y": n[ky], "c": n["cluster"],
              "r": round(2.5 + 1.5 * math.sqrt(n["inbound"]), 1)} for n in graph["nodes"]]
    out = {"nodes": nodes, "edges": graph["edges"], "clusters": graph["clusters"]}
    if map_view:
        out["boxes"] = graph["boxes"]
    return out
