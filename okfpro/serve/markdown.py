"""Concept text as HTML: CommonMark and tables through markdown-it-py, raw HTML off.

Pure.  Only how the HTML is *rendered* uses a CommonMark parser; how links are *extracted* for the
graph stays the reference's line grammar (okfpro/core/links.py).  What reaches the page:

* raw HTML in the source is text (``html: False``), so a ``<script>`` in a body is shown, not run;
* a link's URL is kept only when it is relative (into the bundle) or ``http``, ``https`` or
  ``mailto`` — every other scheme (``javascript:``, ``vbscript:``, ``data:``, ``file:``, however
  spelled: markdown-it normalises case, entities and percent-escapes first) drops the link and
  leaves its text;
* a relative link that resolves to a concept of the bundle points at that concept's page (through
  ``concept_url``), one that resolves to nothing is text marked ``dangling``;
* an outside link opens with ``rel="noopener noreferrer"``;
* an image is never fetched (the page loads nothing from outside): it is shown as its alt text,
  linked like a link.
"""

from __future__ import annotations

import html
import re
from typing import Any, Callable

from markdown_it import MarkdownIt

from okfpro.core import links as _links

_SCHEME = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.-]*):")
SAFE_SCHEMES = ("http", "https", "mailto")


def _safe(url: str) -> bool:
    """markdown-it's link check, replaced: relative URLs and the three safe schemes only."""
    stripped = re.sub(r"[\x00-\x20\x7f]", "", url)  # browsers skip controls and spaces inside a scheme
    m = _SCHEME.match(stripped)
    return m is None or m.group(1).lower() in SAFE_SCHEMES


class Markdown:
    """One renderer for one bundle: ``resolve(path) -> concept id or None`` names what a
    bundle-relative path is; ``concept_url(id)`` is where that concept's page lives."""

    def __init__(self, resolve: Callable[[str], str | None], concept_url: Callable[[str], str],
                 place: Callable[[str], str | None] | None = None) -> None:
        self.resolve, self.concept_url = resolve, concept_url
        self.place = place or (lambda path: None)  # a path that is no concept: a page of its own (board, a directory)
        md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False}).enable("table")
        md.validateLink = _safe  # type: ignore[method-assign]  # markdown-it's documented hook
        # markdown-it binds a rule to its renderer: each is a plain function calling back here
        md.add_render_rule("link_open", lambda _r, tokens, idx, options, env: self._link_open(tokens, idx, env))
        md.add_render_rule("link_close", lambda _r, tokens, idx, options, env: self._link_close(env))
        md.add_render_rule("image", lambda _r, tokens, idx, options, env: self._image(tokens, idx, options, env))
        self.md = md

    def render(self, text: str, from_path: str) -> str:
        """``text`` (a concept's body, from ``from_path``) as HTML."""
        return self.md.render(text, {"from": from_path})

    def inline(self, text: str, from_path: str) -> str:
        """One line (a board card) as inline HTML: emphasis, code and links, no blocks."""
        return self.md.renderInline(text, {"from": from_path})

    # ------------------------------------------------------------------ rules
    def _target(self, href: str, env: dict[str, Any]) -> tuple[str | None, str]:
        """(the href to print or None for none, the class)."""
        if _SCHEME.match(href):
            return href, "out"
        if href.startswith("#"):
            return href, "anchor"
        raw = href.split("#", 1)[0].split("?", 1)[0]
        from urllib.parse import unquote

        raw = unquote(raw)
        path = _links.resolve_path(raw + "index.md" if raw.endswith("/") else raw, env.get("from", ""))
        if path is not None:
            candidates = (path, path + ".md", path.rstrip("/") + "/index.md")
            for candidate in candidates:
                cid = self.resolve(candidate)
                if cid is not None:
                    return self.concept_url(cid), "in"
            for candidate in candidates:
                url = self.place(candidate)
                if url is not None:
                    return url, "in"
        return None, "dangling"

    def _link_open(self, tokens: list[Any], idx: int, env: dict[str, Any]) -> str:
        token = tokens[idx]
        href, cls = self._target(str(token.attrGet("href") or ""), env)
        env.setdefault("open", []).append("a" if href is not None else "span")  # links do not nest
        if href is None:
            return f'<span class="link {cls}" title="{html.escape(str(token.attrGet("href") or ""))}">'
        rel = ' rel="noopener noreferrer"' if cls == "out" else ""
        return f'<a class="link {cls}" href="{html.escape(href)}"{rel}>'

    def _link_close(self, env: dict[str, Any]) -> str:
        opened = env.get("open") or ["a"]
        return f"</{opened.pop()}>"

    def _image(self, tokens: list[Any], idx: int, options: Any, env: dict[str, Any]) -> str:
        token = tokens[idx]
        alt = "".join(t.content for t in (token.children or []) if t.type in ("text", "code_inline")) or "image"
        src = str(token.attrGet("src") or "")
        href, cls = self._target(src, env)
        label = f'<span class="img" title="{html.escape(src)}">[{html.escape(alt)}]</span>'
        if href is None:
            return label
        rel = ' rel="noopener noreferrer"' if cls == "out" else ""
        return f'<a class="link {cls}" href="{html.escape(href)}"{rel}>{label}</a>'
