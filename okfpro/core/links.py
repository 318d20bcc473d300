"""Markdown links as the reference reads them (§6 of OKF v0.2).

Extraction walks *prose lines*: lines inside ``` / ~~~ fences are skipped and
inline code spans are blanked before matching, so a link shown as code is not a
link.  Images are not links.  Reference-style links resolve through their
definitions; footnotes (labels starting ``^``) are kept apart.

Resolution (:func:`resolve`) follows the reference exactly: the ``#anchor`` is
dropped; only targets ending ``.md`` are cross-links; external targets (a URI
scheme or ``mailto:``) and directory targets are never edges; a leading ``/`` is
bundle-absolute; anything else is relative to the source file's directory; a
relative path that climbs out of the root is returned verbatim so that it reads
as "not found".
"""

from __future__ import annotations

import posixpath
import re

from okfpro.core.record import Value

_FENCE = re.compile(r"^(?:```|~~~)")
_CODE_SPAN = re.compile(r"(`+).*?\1")
INLINE = re.compile(r"(?<!!)\[([^\]]*)\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
REF_USE = re.compile(r"(?<!!)\[([^\]]*)\]\[([^\]]*)\]")
REF_DEF = re.compile(r"^[ \t]{0,3}\[([^\]]+)\]:[ \t]*(\S+)")
FOOTNOTE_REF = re.compile(r"\[\^([^\]]+)\](?!:)")
FOOTNOTE_DEF = re.compile(r"^[ \t]{0,3}\[\^([^\]]+)\]:")
_EXTERNAL = re.compile(r"\A(?:[a-zA-Z][a-zA-Z0-9+.-]*://|mailto:)", re.IGNORECASE)


def is_external(raw: str) -> bool:
    return bool(_EXTERNAL.match(raw.strip()))


class LinkScan(Value):
    """Everything link-shaped in one document body."""

    __slots__ = ("inline", "ref_uses", "ref_defs", "footnote_refs", "footnote_defs", "sequence")
    _fields = __slots__
    inline: list[tuple[str, str]]  # (text, target)
    ref_uses: list[tuple[str, str]]  # (text, label folded)
    ref_defs: dict[str, str]  # label folded -> target
    footnote_refs: list[str]
    footnote_defs: set[str]
    # ("inline", target) / ("ref", label folded) in the reference's extraction order:
    # line by line, each line's inline links before its reference uses
    sequence: list[tuple[str, str]]

    def __init__(self, inline: list[tuple[str, str]] | None = None, ref_uses: list[tuple[str, str]] | None = None,
                 ref_defs: dict[str, str] | None = None, footnote_refs: list[str] | None = None,
                 footnote_defs: set[str] | None = None, sequence: list[tuple[str, str]] | None = None) -> None:
        self.inline = [] if inline is None else inline
        self.ref_uses = [] if ref_uses is None else ref_uses
        self.ref_defs = {} if ref_defs is None else ref_defs
        self.footnote_refs = [] if footnote_refs is None else footnote_refs
        self.footnote_defs = set() if footnote_defs is None else footnote_defs
        self.sequence = [] if sequence is None else sequence

    def targets_by_line(self) -> list[str]:
        """Raw link targets as the reference's graph meets them (line order; inline before
        reference uses within a line; a use with no definition yields nothing)."""
        out = []
        for kind, value in self.sequence:
            if kind == "inline":
                out.append(value)
            else:
                target = self.ref_defs.get(value)
                if target is not None:
                    out.append(target)
        return out

    def targets(self) -> list[str]:
        """Raw link targets in document order: inline links, then resolved reference uses."""
        out = [target for _, target in self.inline]
        for _, label in self.ref_uses:
            target = self.ref_defs.get(label)
            if target is not None:
                out.append(target)
        return out

    def undefined_refs(self) -> list[str]:
        return [label for _, label in self.ref_uses if label not in self.ref_defs]

    def unused_defs(self) -> list[str]:
        used = {label for _, label in self.ref_uses}
        return [label for label in self.ref_defs if label not in used]

    def external_targets(self) -> list[str]:
        return [t for t in self.targets() if is_external(t)]


def prose_lines(body: str) -> list[str]:
    """Lines outside fenced code, with inline code spans blanked."""
    if "```" not in body and "~~~" not in body:  # no fence possible: skip the per-line fence test
        if "`" not in body:
            return body.split("\n")
        return [_CODE_SPAN.sub("", line) if "`" in line else line for line in body.split("\n")]
    out: list[str] = []
    fenced = False
    for line in body.split("\n"):
        if _FENCE.match(line.strip()):
            fenced = not fenced
            continue
        if fenced:
            continue
        out.append(_CODE_SPAN.sub("", line) if "`" in line else line)
    return out


def scan(body: str) -> LinkScan:
    result = LinkScan()
    if "[" not in body:
        return result
    for line in prose_lines(body):
        if "[" not in line:
            continue
        # Each pattern needs its own two-character marker; testing for it first is cheap.
        d = REF_DEF.match(line) if "]:" in line else None
        if d and not d.group(1).startswith("^"):
            result.ref_defs[d.group(1).lower()] = d.group(2)  # a repeated label: the last definition wins
            continue
        footnotes = "[^" in line
        if footnotes:
            fd = FOOTNOTE_DEF.match(line)
            if fd:
                result.footnote_defs.add(fd.group(1).lower())
        if "](" in line:
            for m in INLINE.finditer(line):
                result.inline.append((m.group(1), m.group(2)))
                result.sequence.append(("inline", m.group(2)))
        if "][" in line:
            for m in REF_USE.finditer(line):
                label = m.group(2) or m.group(1)
                if label.startswith("^"):
                    continue
                result.ref_uses.append((m.group(1), label.lower()))
                result.sequence.append(("ref", label.lower()))
        if footnotes:
            for m in FOOTNOTE_REF.finditer(line):
                result.footnote_refs.append(m.group(1).lower())
    return result


def _normalise(path: str) -> str | None:
    """Collapse ``.``/``..``; None when the path climbs above the root."""
    if "//" not in path and "/." not in path and not path.startswith(".") and not path.endswith("/"):
        return path  # nothing to collapse (the common case)
    parts: list[str] = []
    for seg in path.split("/"):
        if seg in ("", "."):
            continue
        if seg == "..":
            if not parts:
                return None
            parts.pop()
            continue
        parts.append(seg)
    return "/".join(parts)


def resolve_path(raw: str, from_path: str) -> str | None:
    """Resolve a path-valued reference (no ``.md`` gate); None for external/empty/directories."""
    if raw is None:
        return None
    target = str(raw).strip()
    target = target.split("#", 1)[0]
    if not target or target.endswith("/") or is_external(target):
        return None
    if target.startswith("/"):
        resolved = _normalise(target.lstrip("/"))
        return resolved if resolved else None
    base = posixpath.dirname(from_path)
    joined = f"{base}/{target}" if base else target
    resolved = _normalise(joined)
    if resolved is None:
        return target
    return resolved or None


def resolve(raw: str, from_path: str) -> str | None:
    """Resolve a cross-link: like :func:`resolve_path` but only ``.md`` targets count."""
    if raw is None:
        return None
    target = str(raw).strip().split("#", 1)[0]
    if not target.endswith(".md"):
        return None
    return resolve_path(target, from_path)
