"""The merge of one scope's memory written on two machines: day files united, nothing lost.  Pure.

A scope's memory is a set of day files (:mod:`okfpro.core.dayfile`), each a frontmatter
block and append-only ``## HH:MM:SS UTC`` sections.  Two clones that wrote to the same
scope since their common ancestor (``base``) are merged section by section:

* a section is its stored text (heading + quoted lines), so equal text at the same time
  is one entry, and the same text at two times is two;
* counts are a multiset union (the larger count of the two sides), less what a side
  removed since the base (a ``forget`` commit empties the scope: what it saw stays gone,
  what the other side wrote meanwhile stays);
* order: the sections both sides share at the start, in their order (section numbers of
  what was synced before do not move), then the rest sorted by time and text;
* the frontmatter is the smaller of the two (they differ only by who created the day first).

Policy records (supersede, expire, archive, confirm) are sections like any entry, so they
merge the same way; their memory ids are content hashes, never positions.

The result depends only on (base, {ours, theirs}): merging in either order gives the same
bytes, merging a side into a result that already holds it changes nothing, and every
section either side added is kept (tests/test_daymerge.py states these as properties).
A file that is not in the canonical layout the store writes (text outside a section,
say a hand edit) is merged only when one side left it as the base had it; otherwise
the merge refuses (:class:`MergeConflict`) rather than drop the extra text.
"""

from __future__ import annotations

import datetime as _dt
from collections import Counter

from okfpro.core.dayfile import DAY_RE, SECTION_RE, MalformedConcept, split_concept, stored_sections


class MergeConflict(ValueError):
    """The two sides cannot be merged without losing text; the message says which file and why."""


def parse_day(raw: bytes) -> tuple[str, list[str]]:
    """(frontmatter block, stored sections) of a day file in the store's canonical layout.

    Raises :class:`MalformedConcept` when the file is not one, or holds text that its
    sections do not (it would not survive a re-render)."""
    head, body = split_concept(raw)
    chunks = stored_sections(body)
    if render_day(head, chunks) != raw.decode("utf-8"):
        raise MalformedConcept("holds text outside its entry sections (edited by hand?)")
    return head, chunks


def render_day(head: str, chunks: list[str]) -> str:
    """The day file the store would have written: frontmatter, a blank line, the sections
    separated by blank lines."""
    return head + "\n" + "\n".join(chunks) if chunks else head


def merge_day(base: bytes | None, ours: bytes | None, theirs: bytes | None, name: str = "day file") -> bytes | None:
    """The merged bytes of one day file (``None``: absent after the merge).

    ``None`` for a side means the file is absent there.  Raises :class:`MergeConflict`."""
    if ours == theirs:
        return ours
    if ours == base:
        return theirs
    if theirs == base:
        return ours
    try:
        sides = [parse_day(x) if x is not None else None for x in (base, ours, theirs)]
    except MalformedConcept as exc:
        raise MergeConflict(f"{name}: {exc}") from exc
    b, o, t = sides
    cb = Counter(b[1]) if b else Counter()
    co = Counter(o[1]) if o else Counter()
    ct = Counter(t[1]) if t else Counter()
    want: Counter[str] = Counter()
    for chunk in set(co) | set(ct):
        removed = max(0, cb[chunk] - min(co[chunk], ct[chunk]))
        n = max(co[chunk], ct[chunk]) - removed
        if n > 0:
            want[chunk] = n
    if not want:
        return None
    shared: list[str] = []
    if o and t:
        for x, y in zip(o[1], t[1]):
            if x != y:
                break
            shared.append(x)
    out: list[str] = []
    left = Counter(want)
    for chunk in shared:
        if left[chunk] > 0:
            out.append(chunk)
            left[chunk] -= 1
    for chunk in sorted(left):
        out.extend([chunk] * left[chunk])
    heads = [s[0] for s in (o, t) if s]
    return render_day(min(heads), out).encode("utf-8")


def merge_files(base: dict[str, bytes], ours: dict[str, bytes], theirs: dict[str, bytes]) -> dict[str, bytes]:
    """One scope's files (name -> bytes) merged: day files by :func:`merge_day`, any other
    name only when one side left it as the base had it.  Raises :class:`MergeConflict`."""
    out: dict[str, bytes] = {}
    for name in sorted(set(base) | set(ours) | set(theirs)):
        b, o, t = base.get(name), ours.get(name), theirs.get(name)
        if DAY_RE.match(name):
            merged = merge_day(b, o, t, name)
        elif o == t or t == b:
            merged = o
        elif o == b:
            merged = t
        else:
            raise MergeConflict(f"{name}: not a day file, and both sides changed it")
        if merged is not None:
            out[name] = merged
    return out


def entry_count(files: dict[str, bytes]) -> int:
    """How many sections the day files of ``files`` hold (what a commit's Entries trailer says)."""
    n = 0
    for name, raw in files.items():
        if DAY_RE.match(name):
            try:
                n += len(stored_sections(split_concept(raw)[1]))
            except MalformedConcept:
                continue
    return n


def written_after(files: dict[str, bytes], when: _dt.datetime) -> dict[str, bytes]:
    """The day files of ``files`` holding only their sections dated after ``when`` (what a
    tombstone erased at ``when`` leaves of a scope: every entry older than the erasure goes,
    every later one stays, in its order).  Files with nothing left, and any other name, are
    dropped; a file that does not parse keeps nothing."""
    out: dict[str, bytes] = {}
    after = when.astimezone(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S")
    for name, raw in sorted(files.items()):
        m = DAY_RE.match(name)
        if m is None or m.group(1) < after[:10]:
            continue
        try:
            head, body = split_concept(raw)
        except MalformedConcept:
            continue
        kept = []
        for chunk in stored_sections(body):
            clock = SECTION_RE.match(chunk.split("\n", 1)[0])
            if clock is not None and f"{m.group(1)}T{clock.group(1)}" > after:
                kept.append(chunk)
        if kept:
            out[name] = render_day(head, kept).encode("utf-8")
    return out
