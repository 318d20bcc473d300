"""Text as a terminal may show it: every control character made visible, nothing else touched.

Bundle text (titles, tags, directory names, board cards, memory notes) is written by whoever can
commit to the repository.  Printed raw, an ESC starts a CSI or OSC sequence (colours, a retitled
window, a hyperlink, the screen cleared), a C1 control (U+0080–U+009F) does the same on terminals
that honour 8-bit controls, BEL rings, backspace and carriage return overwrite what was printed, and a
bidi override (U+202E and its kin) reorders the line the reader sees.  :func:`shown` replaces each of
those characters with its ``\\uXXXX`` spelling; newline, tab and CRLF pass.  The spelling is JSON's own, so
JSON that passes through it still decodes to the exact same values.  Pure.
"""

from __future__ import annotations

import re


TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds on the memory verbs' path
    import re

# C0 but tab, newline and the carriage return of a CRLF line ending; DEL and C1; the bidi controls
# (ALM, LRM, RLM, embeddings/overrides, isolates); the line and paragraph separators (a line break a
# terminal does not show as one).
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]|\r(?!\n)")


def _spell(m: re.Match[str]) -> str:
    return f"\\u{ord(m.group(0)):04x}"


def shown(text: str) -> str:
    """``text`` with every control character spelled ``\\uXXXX`` (newline and tab kept)."""
    spelled: str = _CONTROL.sub(_spell, text)
    return spelled
