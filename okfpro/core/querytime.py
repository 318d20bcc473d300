"""A month named in a recall query, as the dates memory entries carry.  Pure.

"What did Kira say about the flu in June 2024?" asks about June 2024; the words ``june`` and
``2024`` match nothing useful (``2024`` begins every date of that year), while every memory entry's
text holds the day it was written (``created: '2024-06-03'`` in its record), which the query term
``2024-06`` matches as a prefix: exactly that month's entries.  :func:`month_terms` turns each
"<month> [of] <year>" (full names, three-letter abbreviations and ``sept``; a year of four digits
from 1900 to 2199) into that term and takes the words out of the query.  A month without a year
is left as it is: it names no one span of days.  Measured on the conversation sets
(``.okf/design/recall-quality.md``).
"""

from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing stays off the prompt hook's path
    from typing import Any

MONTHS = {
    name: number
    for number, names in enumerate(
        (("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"), ("may",), ("june", "jun"),
         ("july", "jul"), ("august", "aug"), ("september", "sep", "sept"), ("october", "oct"),
         ("november", "nov"), ("december", "dec")),
        start=1,
    )
    for name in names
}
_MONTH_YEAR = re.compile(
    r"(?<![\w-])(" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\.?\s+(?:of\s+)?((?:19|20|21)\d\d)(?![\w-])",
    re.IGNORECASE,
)


def month_terms(query: str) -> tuple[str, list[str]]:
    """``(query without its "<month> <year>" phrases, ["YYYY-MM", ...])``, the terms in the
    query's order, each once."""
    terms: list[str] = []

    def take(match: Any) -> str:
        term = f"{match.group(2)}-{MONTHS[match.group(1).casefold()]:02d}"
        if term not in terms:
            terms.append(term)
        return " "

    rest = _MONTH_YEAR.sub(take, query)  # one pass: each phrase read and taken out together
    return (rest, terms) if terms else (query, terms)
