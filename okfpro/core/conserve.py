"""The line-conservation guard every writer passes before it touches a file.

A writer reads a file, applies a pure transform, and *declares* the lines it
adds, removes and moves.  :func:`check` compares the multiset of lines before
and after (line endings removed, nothing else normalised) against that
declaration.  Any difference is a finding, and a finding means the write does
not happen: additive and targeted, never regenerative.
"""

from __future__ import annotations

from collections import Counter
from typing import Iterable

from okfpro.core.board import chomp, split_lines


def line_multiset(text: str) -> Counter[str]:
    return Counter(chomp(line) for line in split_lines(text))


def check(
    before: str,
    after: str,
    added: Iterable[str] = (),
    removed: Iterable[str] = (),
    moved: Iterable[str] = (),
) -> list[str]:
    """Every way ``after`` differs from ``before`` beyond what was declared."""
    old, new = line_multiset(before), line_multiset(after)
    want_added = Counter(chomp(x) for x in added)
    want_removed = Counter(chomp(x) for x in removed)
    grew, shrank = new - old, old - new
    findings: list[str] = []
    for line, n in sorted((grew - want_added).items()):
        findings.append(f"{n} undeclared line(s) appeared: {line!r}")
    for line, n in sorted((want_added - grew).items()):
        findings.append(f"{n} declared addition(s) did not happen: {line!r}")
    for line, n in sorted((shrank - want_removed).items()):
        findings.append(f"{n} line(s) would be lost without being declared: {line!r}")
    for line, n in sorted((want_removed - shrank).items()):
        findings.append(f"{n} declared removal(s) did not happen: {line!r}")
    for line in moved:
        key = chomp(line)
        if old[key] < 1 or new[key] < 1:
            findings.append(f"a moved line must exist before and after the edit: {key!r}")
    return findings
