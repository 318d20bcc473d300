"""The capture safety layer: find secrets in text and replace them, deterministically.

Pure (no I/O).  This module is the driver: it runs the secret shapes of
:mod:`okfpro.core.secretshapes` over the text and its views, resolves overlaps and replaces what
they find.  Three kinds of protection, applied before captured text goes anywhere:

* **Tier A** — provider-prefixed secrets with a recognisable shape (cloud keys, Git host
  tokens, chat tokens, payment keys, private key blocks, JWTs, credentials in URLs …).
  These are precise, so they are always replaced.
* **Tier B** — a secret-sounding keyword (``password=``, ``token:``, ``api_key is`` …)
  followed by a value that looks like a secret: passwords need a mixed shape, other
  values need length and Shannon entropy, and UUIDs, templates (``$VAR``, ``${X}``,
  ``<x>``, ``{{x}}``), paths and plain words are left alone.  A line carrying the inline
  marker ``okfpro:allow-secret`` is exempt from tier B (never from tier A).
* **Refusal** — text that *is* a credential file or raw shell output is not stored at all:
  :func:`okfpro.core.sanitise.refusal` names the reason, and :func:`okfpro.core.sanitise.sanitise`
  is the whole layer as capture runs it.

Both tiers also read the text as a person would see it (:mod:`okfpro.core.textview`): normalised
(NFKC, format characters dropped, lookalike letters mapped), with line-broken tokens joined,
and with base64/hex runs decoded; a finding there redacts the original span.  A bare
40-character AWS secret is found without a keyword when an AWS key id or ``aws`` is near.

Every replacement is ``[REDACTED:<rule>:<first 8 hex of sha256(secret)>]``: the same secret
always gives the same placeholder, and nothing of the secret is kept.  Rule ids are stable
strings (they go to telemetry and to ``okfpro secrets`` output, values never do).

Our own recall blocks (between :data:`RECALL_BEGIN` and :data:`RECALL_END`, or bare
``<okf-context …>`` fences) are stripped by :func:`strip_recall`, so memory never feeds on
itself.
"""

from __future__ import annotations

import re
from collections import Counter
from hashlib import sha256

from okfpro.core import textview
from okfpro.core.record import Frozen, Value, set_field
from okfpro.core.secretshapes import (
    FRAGMENT_FROM,
    PASSWORD_WORDS,
    PLACEHOLDER_PREFIX,
    TIER_A,
    TRAILING,
    bare_aws_secrets,
    candidates,
    is_fragment,
    keyword_assignments,
    tier_b_accepts,
    url_placeholder,
)

# --------------------------------------------------------------------------------------
# Recall framing: one definition, shared with okfpro.core.budget (which renders it).
RECALL_BEGIN = "<okfpro-recall>"
RECALL_END = "</okfpro-recall>"
RECALL_MARKERS = (RECALL_BEGIN, RECALL_END)
BLOCK_OPEN = "<okf-context"
BLOCK_CLOSE = "</okf-context>"

ALLOW_MARKER = "okfpro:allow-secret"


# --------------------------------------------------------------------------------------
# Results


class Finding(Frozen):
    """A secret found: its rule, the 1-based line of its first character, its placeholder (frozen)."""

    __slots__ = ("rule", "line", "placeholder")
    _fields = __slots__
    rule: str
    line: int
    placeholder: str

    def __init__(self, rule: str, line: int, placeholder: str) -> None:
        set_field(self, "rule", rule)
        set_field(self, "line", line)
        set_field(self, "placeholder", placeholder)


class Redaction(Value):
    """The redacted text and what was taken out: (rule, count) pairs, sorted by rule."""

    __slots__ = ("text", "findings")
    _fields = __slots__
    text: str
    findings: list[tuple[str, int]]

    def __init__(self, text: str, findings: list[tuple[str, int]] | None = None) -> None:
        self.text = text
        self.findings = [] if findings is None else findings

    @property
    def count(self) -> int:
        return sum(n for _, n in self.findings)


def placeholder(rule: str, secret: str) -> str:
    digest = sha256(secret.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return f"[REDACTED:{rule}:{digest}]"


class _Hit(Frozen):
    __slots__ = ("start", "end", "rule", "secret", "order", "tier")
    _fields = __slots__
    start: int
    end: int
    rule: str
    secret: str
    order: int
    tier: str  # "B": heuristic, a line marked okfpro:allow-secret is exempt

    def __init__(self, start: int, end: int, rule: str, secret: str, order: int, tier: str = "A") -> None:
        set_field(self, "start", start)
        set_field(self, "end", end)
        set_field(self, "rule", rule)
        set_field(self, "secret", secret)
        set_field(self, "order", order)
        set_field(self, "tier", tier)


def _allowed_lines(text: str) -> set[int]:
    if ALLOW_MARKER not in text:
        return set()
    out: set[int] = set()
    for number, line in enumerate(text.split("\n"), 1):
        if ALLOW_MARKER in line:
            out.add(number)
    return out


def _line_of(text: str, offset: int, starts: list[int]) -> int:
    lo, hi = 0, len(starts)
    while lo + 1 < hi:
        mid = (lo + hi) // 2
        if starts[mid] <= offset:
            lo = mid
        else:
            hi = mid
    return lo + 1


def _raw_hits(text: str, lowered: str, keywords: bool = True) -> list[_Hit]:
    """Every rule's matches in ``text`` (overlaps unresolved, no allow-marker applied);
    ``keywords=False`` leaves out the keyword-gated tier B rules."""
    raw: list[_Hit] = []
    for order in candidates(text, lowered):  # a rule's place in TIER_A is its order
        rule = TIER_A[order]
        for m in rule.pattern.finditer(text):
            start, end = m.span(rule.group)
            if start < 0 or end <= start:
                continue
            secret = m.group(rule.group)
            if rule.id == "url-credentials" and url_placeholder(secret):
                continue  # user:password@host, user:${PASS}@host in docs
            if secret.startswith(PLACEHOLDER_PREFIX):
                continue
            if order >= FRAGMENT_FROM and not is_fragment(rule.id, m):
                continue
            raw.append(_Hit(start, end, rule.id, secret, order))
    order = len(TIER_A)
    for kw, value, start in keyword_assignments(text, lowered) if keywords else ():
        value = value.rstrip(TRAILING)
        if not tier_b_accepts(kw, value):
            continue
        rule_id = "generic-password" if re.fullmatch(PASSWORD_WORDS, kw.lower()) else "generic-secret"
        raw.append(_Hit(start, start + len(value), rule_id, value, order, "B"))
    order += 1
    key_id_found = any(h.rule == "aws-access-key-id" for h in raw)
    raw.extend(_Hit(start, end, "aws-secret-access-key", value, order, "B")
               for start, end, value in bare_aws_secrets(text, lowered, key_id_found))
    return raw


def _decoded_hits(text: str, depth: int = 2) -> list[tuple[int, int, str]]:
    """(start, end, rule) of encoded runs in ``text`` whose decoded text holds a secret."""
    out = []
    for pattern in (textview.HEX_RUN, textview.B64_RUN):
        for m in re.compile(pattern).finditer(text):
            decoded = textview.decoded(m.group())
            if decoded is None:
                continue
            inner = _view_hits(decoded)
            if not inner and depth > 1:
                nested = _decoded_hits(decoded, depth - 1)
                if nested:
                    out.append((m.start(), m.end(), nested[0][2]))
                continue
            if inner:
                out.append((m.start(), m.end(), inner[0].rule))
    return out


def _view_hits(text: str) -> list[_Hit]:
    """Hits in ``text`` and in its normalised/joined views, in ``text``'s coordinates."""
    raw = _raw_hits(text, text.lower())
    norm = textview.normalise(text)
    vt, origin = norm if norm is not None else (text, None)
    joined = textview.join(vt, origin)
    views = [(v, v is joined) for v in (norm, joined) if v is not None]
    for (view_text, view_origin), is_joined in views:
        for h in _raw_hits(view_text, view_text.lower()):
            start, end = view_origin[h.start], view_origin[h.end - 1] + 1
            if is_joined and (h.rule == "private-key" or h.tier == "B" and not _split_value(text, start, end)):
                continue  # a key block is multi-line by nature: the rule reads it as written
            overlapping = [o for o in raw if o.start < end and start < o.end]
            if overlapping:
                if not all(start <= o.start and o.end <= end for o in overlapping) or all(
                    (o.start, o.end) == (start, end) for o in overlapping
                ):
                    continue  # found as written (or in an earlier view): keep that finding
                raw = [o for o in raw if o not in overlapping]  # the view sees the whole secret
            raw.append(_Hit(start, end, h.rule, h.secret, h.order, h.tier))
    return raw


_NEXT_ASSIGNMENT = r"[ \t]*(?::=|=>|=|:)"


def _split_value(text: str, start: int, end: int) -> bool:
    """Is a keyword-gated value found only once lines were joined really one value broken over
    lines?  ``budget_tokens = 2000`` followed by ``knowledge_share = 0.6`` joins into a long
    mixed "value" (a false positive measured on our own README): a value whose continuation
    is followed by an assignment, or none of whose pieces mixes letters and digits, is not."""
    if re.compile(_NEXT_ASSIGNMENT).match(text, end):
        return False
    pieces = [p for p in re.split(r"[\s\\#>*]+", text[start:end]) if p]
    return any(any(c.isdigit() for c in p) and any(c.isalpha() for c in p) for p in pieces)


def _hits(text: str) -> list[_Hit]:
    raw = _view_hits(text)
    norm = textview.normalise(text)
    vt, origin = norm if norm is not None else (text, None)
    joined = textview.join(vt, origin)
    scan_text, scan_origin = joined if joined is not None else (vt, origin)
    for start, end, rule in _decoded_hits(scan_text):
        secret = scan_text[start:end]
        if scan_origin is not None:
            start, end = scan_origin[start], scan_origin[end - 1] + 1
        if not any(o.start < end and start < o.end for o in raw):
            raw.append(_Hit(start, end, rule, secret, len(TIER_A) + 2))
    allowed = _allowed_lines(text)
    if allowed:
        starts = _line_starts(text)
        raw = [h for h in raw if h.tier == "A" or _line_of(text, h.start, starts) not in allowed]
    # never touch an existing placeholder (redaction is idempotent)
    if PLACEHOLDER_PREFIX in text:
        spans = [m.span() for m in _PLACEHOLDER_RE.finditer(text)]
        raw = [h for h in raw if not any(a < h.end and h.start < b for a, b in spans)]
    # resolve overlaps: earliest start, then earlier rule, then longer
    raw.sort(key=lambda h: (h.start, h.order, -(h.end - h.start)))
    out: list[_Hit] = []
    for hit in raw:
        if out and hit.start < out[-1].end:
            continue
        out.append(hit)
    return out


_PLACEHOLDER_RE = re.compile(r"\[REDACTED:[a-z0-9\-]+:[0-9a-f]{8}\]")


def _line_starts(text: str) -> list[int]:
    starts = [0]
    for i, ch in enumerate(text):
        if ch == "\n":
            starts.append(i + 1)
    return starts


def redact(text: str) -> Redaction:
    """Replace every detectable secret in ``text`` with its stable placeholder."""
    hits = _hits(text)
    if not hits:
        return Redaction(text, [])
    parts: list[str] = []
    pos = 0
    counts: Counter[str] = Counter()
    for hit in hits:
        parts.append(text[pos : hit.start])
        parts.append(placeholder(hit.rule, hit.secret))
        pos = hit.end
        counts[hit.rule] += 1
    parts.append(text[pos:])
    return Redaction("".join(parts), sorted(counts.items()))


def scan(text: str) -> list[Finding]:
    """Every secret in ``text`` as (rule, line, placeholder): never the value itself."""
    hits = _hits(text)
    if not hits:
        return []
    starts = _line_starts(text)
    return [Finding(h.rule, _line_of(text, h.start, starts), placeholder(h.rule, h.secret)) for h in hits]


# --------------------------------------------------------------------------------------
# Our own recall blocks


# compiled on first use: only a text holding our framing needs them
_RECALL_SPAN = re.escape(RECALL_BEGIN) + r"[\s\S]*?(?:" + re.escape(RECALL_END) + r"|\Z)"
_BLOCK_SPAN = re.escape(BLOCK_OPEN) + r"\b[^>\n]*>[\s\S]*?(?:" + re.escape(BLOCK_CLOSE) + r"|\Z)"


def strip_recall(text: str) -> str:
    """Remove our injected recall (whole framed answer, or stray context blocks)."""
    if RECALL_BEGIN not in text and BLOCK_OPEN not in text and RECALL_END not in text:
        return text
    out = re.compile(_RECALL_SPAN).sub("", text)
    out = re.compile(_BLOCK_SPAN).sub("", out)
    out = out.replace(RECALL_END, "")
    return re.sub(r"\n{3,}", "\n\n", out).strip("\n")
