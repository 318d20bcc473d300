"""``okfpro render``: the served UI as one self-contained file — the same pages, the same Markdown.

Every view :mod:`okfpro.serve.site` serves is rendered once into a ``<section>`` of one document
(its id the view's name; a concept's ``c:<id>``; a journal day's ``j:<day>``); a link is an anchor
and CSS shows the section the address names (``:target``), so the file reads with no script at all.
The graph is drawn by the server's own script, inlined, from a JSON island.  The stylesheet and
the script are the package's files, inlined and allowed by their hashes in the page's
Content-Security-Policy: nothing else runs, nothing is fetched.  What the file cannot hold: search
(it needs the engine) and memory (a file one may hand on must not carry it).
"""

from __future__ import annotations

import base64
import hashlib
from pathlib import Path
from typing import Any

from okfpro.core.concept import Bundle
from okfpro.serve import pages
from okfpro.serve.site import Site

VIEWS = ("index", "catalog", "files", "tags", "types", "stats", "graph", "board", "journal", "log", "lint")


def _hash(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode() + "'"


def island(data: Any) -> str:
    """JSON for a ``<script type="application/json">``: ``<``, ``>``, ``&`` and the two line separators
    escaped, so no text can end the element."""
    from okfpro.core.jsonable import dumps

    text = dumps(data)
    for raw, escaped in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"), ("\u2028", "\\u2028"),
                         ("\u2029", "\\u2029")):
        text = text.replace(raw, escaped)
    return text


def document(root: Path, bundle: Bundle, title: str, *, layout_name: str = "cose", map_view: bool = False,
             link: str | None = None) -> str:
    """The whole file for the bundle at ``root`` (already read as ``bundle``)."""
    from okfpro.core import render as _render
    from okfpro.serve.http import asset

    site = Site(root, title, memory=False, bundle=bundle)
    site.links = pages.Links("", export=True)
    sections = []
    for view in VIEWS:
        main = site.main(view, {}) if view != "graph" else pages.graph_page(site.links, "", len(bundle.concepts))
        sections.append(f'<section class="view" id="{view}">{main}</section>')
    for c in sorted(bundle.concepts, key=lambda c: c.id):
        sections.append(f'<section class="view" id="c:{pages.esc(c.id)}">{site.concept_main(c.id)}</section>')
    for day in site.journal_days():
        main = pages.journal_day_page(day, site.journal(day)["content"], site.markdown().render, site.links)
        sections.append(f'<section class="view" id="j:{pages.esc(day)}">{main}</section>')
    graph = pages.layout_payload(_render.layout(bundle, layout_name), map_view=map_view)
    css = asset("app.css").decode("utf-8")
    js = asset("app.js").decode("utf-8")
    csp = (f"default-src 'none'; style-src {_hash(css)}; script-src {_hash(js)}; img-src data:; "
           "base-uri 'none'; form-action 'none'")
    head = (f'<meta http-equiv="Content-Security-Policy" content="{csp}">\n<style>{css}</style>')
    source = (f'<p class="meta source">source: <a href="{pages.esc(link)}" rel="noopener noreferrer">{pages.esc(link)}</a></p>'
              if link else "")
    tail = (f'<script type="application/json" id="okfpro-layout">{island(graph)}</script>\n<script>{js}</script>')
    return pages.document(title, title, site.links, source + "\n".join(sections), view="export", memory=False,
                          head=head, tail=tail)


def draw(root: Path, bundle: Bundle, title: str, *, layout_name: str = "cose", map_view: bool = False,
         link: str | None = None) -> str:
    """The page of the bundle at ``root``, with its workspace; ``link`` must be an http(s) URL."""
    if link is not None and not link.lower().startswith(("http://", "https://")):
        raise ValueError(f"not an http(s) URL: {link!r}")
    return document(root, bundle, title, layout_name=layout_name, map_view=map_view, link=link)


def write(target: Path, document: str) -> None:
    """The page written atomically to ``target`` (OSError when it cannot be: a directory there included)."""
    from okfpro.io.atomic import atomic_write

    if target.is_dir():
        raise IsADirectoryError(21, "it is a directory")
    atomic_write(target, document)
