"""Codex's ``apply_patch`` text, read and applied the way Codex CLI 0.171 reads and applies it (pure).

The hook adapter turns one patch into one guard event per file it writes; the guards then decide on
the text each file would hold, so that text must be what Codex would write, not the patch's ``+``
lines.  The rules followed here are Codex's own (its ``apply-patch`` parser and ``seek_sequence``),
and tests/test_patch_attack.py holds every attack patch against Codex's binary applying it for real:

* the text is trimmed and split on ``\\n`` with one trailing ``\\r`` dropped per line; it runs from a
  ``*** Begin Patch`` line to a ``*** End Patch`` line (markers compared trimmed), optionally wrapped
  in a ``<<EOF`` / ``<<'EOF'`` / ``<<"EOF"`` here-document;
* a file header is read trimmed (``  *** Add File: x`` is a header); an Add File's lines are the
  following ``+`` lines; an Update File may be followed by ``*** Move to:`` (read untrimmed) and holds
  chunks — ``@@`` / ``@@ context`` / none for the first, then `` ``/``-``/``+``/empty lines, optionally
  ``*** End of File``;
* a chunk is found in the file's lines (split on ``\\n``, a final empty line dropped) at or after the
  previous one, with decreasing strictness: exact, trailing whitespace ignored, both ends trimmed,
  typographic dashes/quotes/spaces folded to ASCII; a chunk with no old lines inserts at the end;
  the result ends with one newline, and a file that was mostly CRLF stays CRLF.

``parse`` answers None for a patch Codex would refuse to parse; ``apply`` answers None when a chunk
cannot be found (Codex then refuses that file).
"""

from __future__ import annotations

from typing import Callable

BEGIN, END = "*** Begin Patch", "*** End Patch"
ADD, DELETE, UPDATE, MOVE = "*** Add File: ", "*** Delete File: ", "*** Update File: ", "*** Move to: "
EOF_MARK = "*** End of File"
HEREDOC_OPENERS = ("<<EOF", "<<'EOF'", '<<"EOF"')


class Chunk:
    __slots__ = ("context", "old", "new", "eof")

    def __init__(self, context: str | None) -> None:
        self.context = context
        self.old: list[str] = []
        self.new: list[str] = []
        self.eof = False


class FileOp:
    """One file the patch touches: ``op`` is "add", "delete" or "update"; ``move_to`` for a rename."""

    __slots__ = ("op", "path", "move_to", "content", "chunks")

    def __init__(self, op: str, path: str, content: str = "", move_to: str | None = None) -> None:
        self.op, self.path, self.content, self.move_to = op, path, content, move_to
        self.chunks: list[Chunk] = []


def _lines(text: str) -> list[str]:
    """Rust's ``str::lines``: split on LF, drop one CR before it, no empty last line."""
    if not text:
        return []
    parts = text.split("\n")
    if parts[-1] == "":
        parts.pop()
    return [p[:-1] if p.endswith("\r") else p for p in parts]


def _body(lines: list[str]) -> list[str] | None:
    if len(lines) >= 2 and lines[0].strip() == BEGIN and lines[-1].strip() == END:
        return lines[1:-1]
    if len(lines) >= 4 and lines[0] in HEREDOC_OPENERS and lines[-1].endswith("EOF"):
        return _body(lines[1:-1])
    return None


def parse(text: str) -> list[FileOp] | None:
    """The files of a patch, in order; None when Codex would refuse the patch text."""
    body = _body(_lines(text.strip()))
    if body is None:
        return None
    ops: list[FileOp] = []
    i = 0
    while i < len(body):
        head = body[i].strip()
        i += 1
        if head.startswith(ADD):
            content = []
            while i < len(body) and body[i].startswith("+"):
                content.append(body[i][1:] + "\n")
                i += 1
            ops.append(FileOp("add", head[len(ADD):], "".join(content)))
        elif head.startswith(DELETE):
            ops.append(FileOp("delete", head[len(DELETE):]))
        elif head.startswith(UPDATE):
            op = FileOp("update", head[len(UPDATE):])
            if i < len(body) and body[i].startswith(MOVE):
                op.move_to = body[i][len(MOVE):]
                i += 1
            i = _chunks(body, i, op)
            if i < 0 or not op.chunks:
                return None
            ops.append(op)
        else:
            return None
    return ops


def _chunks(body: list[str], i: int, op: FileOp) -> int:
    """Read an Update File's chunks from ``body[i]``; the index after them, or -1 on a parse error."""
    while i < len(body):
        if not body[i].strip():
            i += 1
            continue
        if body[i].startswith("*"):
            return i
        line = body[i]
        if line == "@@":
            chunk, i = Chunk(None), i + 1
        elif line.startswith("@@ "):
            chunk, i = Chunk(line[3:]), i + 1
        elif not op.chunks:
            chunk = Chunk(None)
        else:
            return -1
        taken = 0
        while i < len(body):
            line = body[i]
            if line == EOF_MARK:
                if taken == 0:
                    return -1
                chunk.eof, i = True, i + 1
                break
            mark = line[:1]
            if mark == "":
                chunk.old.append("")
                chunk.new.append("")
            elif mark == " ":
                chunk.old.append(line[1:])
                chunk.new.append(line[1:])
            elif mark == "+":
                chunk.new.append(line[1:])
            elif mark == "-":
                chunk.old.append(line[1:])
            elif taken == 0:
                return -1
            else:
                break
            taken += 1
            i += 1
        if taken == 0:
            return -1
        op.chunks.append(chunk)
    return i


_FOLD = {**{c: "-" for c in "\u2010\u2011\u2012\u2013\u2014\u2015\u2212"},
         **{c: "'" for c in "\u2018\u2019\u201a\u201b"}, **{c: '"' for c in "\u201c\u201d\u201e\u201f"},
         **{c: " " for c in "\u00a0\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000"}}
_FOLD_TABLE = str.maketrans(_FOLD)
_RUST_WS = " \t\n\r\x0b\x0c\x85\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a" \
           "\u2028\u2029\u202f\u205f\u3000"  # char::is_whitespace, what Rust's trim() removes
# the line comparisons tried in turn, strictest first: exact, trailing blanks, both ends, folded
_NORMS: tuple[Callable[[str], str], ...] = (
    lambda s: s, lambda s: s.rstrip(_RUST_WS), lambda s: s.strip(_RUST_WS),
    lambda s: s.strip(_RUST_WS).translate(_FOLD_TABLE))


def _seek(lines: list[str], pattern: list[str], start: int, eof: bool) -> int | None:
    if not pattern:
        return start
    if len(pattern) > len(lines):
        return None
    first = len(lines) - len(pattern) if eof else start
    for norm in _NORMS:
        want = [norm(p) for p in pattern]
        for i in range(first, len(lines) - len(pattern) + 1):
            if all(norm(lines[i + k]) == want[k] for k in range(len(pattern))):
                return i
    return None


def apply(current: str, chunks: list[Chunk]) -> str | None:
    """The file's text after the chunks, as Codex writes it; None when a chunk cannot be placed."""
    lines = current.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    at = 0
    replacements: list[tuple[int, int, list[str]]] = []
    for chunk in chunks:
        if chunk.context is not None:
            found = _seek(lines, [chunk.context], at, False)
            if found is None:
                return None
            at = found + 1
        if not chunk.old:
            replacements.append((len(lines) - 1 if lines and lines[-1] == "" else len(lines), 0, chunk.new))
            continue
        old, new = chunk.old, chunk.new
        found = _seek(lines, old, at, chunk.eof)
        if found is None and old[-1] == "":
            old, new = old[:-1], new[:-1] if new and new[-1] == "" else new
            found = _seek(lines, old, at, chunk.eof)
        if found is None:
            return None
        replacements.append((found, len(old), new))
        at = found + len(old)
    for start, length, new in sorted(replacements, key=lambda r: r[0], reverse=True):
        lines[start:start + length] = new
    if not lines or lines[-1] != "":
        lines.append("")
    out = "\n".join(lines)
    crlf = current.count("\r\n")
    if crlf and crlf >= current.count("\n") - crlf:  # Codex keeps a CRLF file CRLF
        out = out.replace("\r\n", "\n").replace("\n", "\r\n")
    return out
