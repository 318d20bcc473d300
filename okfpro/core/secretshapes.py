"""The shapes of secrets: what :mod:`okfpro.core.redact` looks for.  Pure (no I/O).

* **Tier A** — :data:`TIER_A`: provider-prefixed secrets with a recognisable shape, then the
  :data:`FRAGMENTS` (a known prefix with a piece of its token after it: a token split over lines
  with words between the halves, or cut short; :func:`is_fragment` says whether a match is one).
  A rule runs only on text holding one of its literal hints (:func:`candidates`).
* **Tier B** — :func:`keyword_assignments` finds a secret-sounding keyword and the value after it;
  :func:`tier_b_accepts` says whether that value looks like a secret.
* **Keyword-free** — :func:`bare_aws_secrets`: a bare 40-character AWS secret access key.

The driver, :mod:`okfpro.core.redact`, runs them over the text and the views of it a person would
see, resolves overlaps, honours the allow marker, and replaces what they find.
"""

from __future__ import annotations

import bisect
import math
import re
from collections import Counter

from okfpro.core import textview
from okfpro.core.record import Frozen, set_field

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds on the capture's path
    from typing import Iterator

# A redaction's placeholder starts so (:func:`okfpro.core.redact.placeholder`): a value that is one
# was redacted already, never a secret.
PLACEHOLDER_PREFIX = "[REDACTED:"

# Patterns compile on first use (re.compile keeps each for the process): a hook process only pays
# for the rules its text can hit.


class Rule(Frozen):
    """A secret's shape: its id, regex, the group holding the secret, and its tier (frozen)."""

    __slots__ = ("id", "regex", "group", "tier")
    _fields = __slots__
    id: str
    regex: str
    group: int  # the capture group holding the secret (0 = whole match)
    tier: str

    def __init__(self, id: str, regex: str, group: int = 0, tier: str = "A") -> None:
        set_field(self, "id", id)
        set_field(self, "regex", regex)
        set_field(self, "group", group)
        set_field(self, "tier", tier)

    @property
    def pattern(self) -> re.Pattern[str]:
        return re.compile(self.regex)

    def may_match(self, text: str, lowered: str) -> bool:
        """Cheap literal pre-filter (like gitleaks' keywords): False = cannot match."""
        hints = _HINTS.get(self.id)
        if hints is None:
            return True
        if self.id in _CI_HINTS:
            return any(h in lowered for h in hints)
        return any(h in text for h in hints)


def _r(rule_id: str, regex: str, group: int = 0) -> Rule:
    return Rule(rule_id, regex, group)


# Word-ish boundaries that also work next to '_' and '-' (\b treats '_' as a word char).
_L = r"(?<![A-Za-z0-9_\-])"
_R = r"(?![A-Za-z0-9_\-])"

# Order matters only for overlaps: the earlier rule wins when two matches start together.
TIER_A: tuple[Rule, ...] = (
    _r(
        "private-key",
        r"-----BEGIN[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----"
        r"(?:[\s\S]{0,65536}?-----END[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----|[A-Za-z0-9+/=\s:,\-]*)",
    ),
    _r("aws-access-key-id", _L + r"(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|AROA|APKA)[A-Z0-9]{16}" + _R),
    _r(
        "aws-secret-access-key",
        r"(?i:aws_?secret_?access_?key|aws_?secret)[\"']?\s*(?:=|:|=>)\s*[\"']?([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])",
        1,
    ),
    _r("aws-session-token", r"(?i:aws_?session_?token)[\"']?\s*(?:=|:|=>)\s*[\"']?([A-Za-z0-9/+=]{100,})", 1),
    _r("github-pat", _L + r"ghp_[A-Za-z0-9]{36}" + _R),
    _r("github-oauth", _L + r"gho_[A-Za-z0-9]{36}" + _R),
    _r("github-app-token", _L + r"(?:ghu|ghs)_[A-Za-z0-9]{36}" + _R),
    _r("github-refresh-token", _L + r"ghr_[A-Za-z0-9]{36,76}" + _R),
    _r("github-fine-grained-pat", _L + r"github_pat_[A-Za-z0-9_]{50,255}" + _R),
    _r("gitlab-token", _L + r"(?:glpat|gldt|glrt|glptt|glcbt|glsoat|glffct|glagent|gloas)-[A-Za-z0-9_\-]{20,}" + _R),
    _r("gitlab-runner-registration", _L + r"GR1348941[A-Za-z0-9_\-]{20,}" + _R),
    _r("slack-token", _L + r"xox[abposre]-(?:[0-9]+-)?[A-Za-z0-9\-]{10,}" + _R),
    _r("slack-app-token", _L + r"xapp-\d-[A-Z0-9]+-\d+-[a-z0-9]+" + _R),
    _r("slack-webhook", r"https?://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9+/_\-]{20,}"),
    _r("anthropic-api-key", _L + r"sk-ant-(?:api|admin|oat|sid)\d{2}-[A-Za-z0-9_\-]{32,}" + _R),
    _r("openai-api-key", _L + r"sk-(?:proj|svcacct|admin)-[A-Za-z0-9_\-]{32,}" + _R),
    _r("openai-api-key", _L + r"sk-[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}" + _R),
    _r("openai-api-key", _L + r"sk-[A-Za-z0-9]{40,64}" + _R),
    _r("stripe-secret-key", _L + r"(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{20,}" + _R),
    _r("stripe-webhook-secret", _L + r"whsec_[A-Za-z0-9]{24,}" + _R),
    _r("twilio-api-key", _L + r"SK[0-9a-fA-F]{32}" + _R),
    _r("sendgrid-api-key", _L + r"SG\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}" + _R),
    _r("mailchimp-api-key", _L + r"[0-9a-f]{32}-us[0-9]{1,2}" + _R),
    _r("npm-token", _L + r"npm_[A-Za-z0-9]{36}" + _R),
    _r("pypi-token", _L + r"pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_\-]{50,}" + _R),
    _r("google-api-key", _L + r"AIza[0-9A-Za-z_\-]{35}" + _R),
    _r("gcp-oauth-client-secret", _L + r"GOCSPX-[A-Za-z0-9_\-]{28}" + _R),
    _r("google-oauth-token", _L + r"ya29\.[0-9A-Za-z_\-]{30,}" + _R),
    _r("gcp-service-account-key", r"\"private_key_id\"\s*:\s*\"([a-f0-9]{40})\"", 1),
    _r("azure-storage-key", r"(?i:AccountKey)\s*=\s*([A-Za-z0-9+/]{86}==)", 1),
    _r("azure-sas-signature", r"[?&]sig=([A-Za-z0-9%+/]{40,}(?:%3D|=){0,2})", 1),
    _r("azure-ad-client-secret", _L + r"[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.\-]{31,34}" + _R),
    _r("discord-bot-token", _L + r"[MNO][A-Za-z0-9_\-]{23,25}\.[A-Za-z0-9_\-]{6}\.[A-Za-z0-9_\-]{27,38}" + _R),
    _r("discord-webhook", r"https?://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/\d+/[A-Za-z0-9_\-]{20,}"),
    _r("telegram-bot-token", r"(?<![0-9])[0-9]{8,10}:AA[A-Za-z0-9_\-]{33}" + _R),
    _r("huggingface-token", _L + r"hf_[A-Za-z0-9]{34,40}" + _R),
    _r("digitalocean-token", _L + r"do[opr]_v1_[a-f0-9]{64}" + _R),
    _r("shopify-token", _L + r"shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}" + _R),
    _r("hashicorp-vault-token", _L + r"hv[sb]\.[A-Za-z0-9_\-]{90,}" + _R),
    _r("terraform-cloud-token", _L + r"[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_\-=]{60,}" + _R),
    _r("databricks-token", _L + r"dapi[a-f0-9]{32}(?:-\d)?" + _R),
    _r("linear-api-key", _L + r"lin_api_[A-Za-z0-9]{40}" + _R),
    _r("square-token", _L + r"(?:sq0atp-[A-Za-z0-9_\-]{22}|sq0csp-[A-Za-z0-9_\-]{43})" + _R),
    _r("grafana-token", _L + r"(?:glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}|glc_[A-Za-z0-9+/]{32,}={0,2})" + _R),
    _r("postman-api-key", _L + r"PMAK-[a-f0-9]{24}-[a-f0-9]{34}" + _R),
    _r("doppler-token", _L + r"dp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,44}" + _R),
    _r("age-secret-key", _L + r"AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}" + _R),
    _r("atlassian-api-token", _L + r"ATATT3[A-Za-z0-9_\-=]{150,}" + _R),
    _r("sentry-token", _L + r"sntr[yu]s?_[A-Za-z0-9+/=_\-]{40,}" + _R),
    _r("jwt", _L + r"eyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}" + _R),
    _r("auth-header", r"(?i:\bauthorization\s*:\s*(?:bearer|basic|token|digest)\s+)([A-Za-z0-9._~+/\-]{16,}=*)", 1),
    _r("bearer-token", r"(?i:\bbearer\s+)([A-Za-z0-9._~+/\-]{24,}=*)", 1),
    _r("url-credentials", r"\b[a-zA-Z][a-zA-Z0-9+.\-]{1,20}://[^\s/:@\"'<>]{1,128}:([^\s/@\"'<>]{1,256})@[A-Za-z0-9.\-\[\]]+", 1),
)

# Fragments: a known prefix with >= 8 characters of its alphabet after it is a secret even when the
# rest is elsewhere (a token split over lines with words between the halves, or cut short).  They
# come after every whole-token rule, so a whole token is named by its own rule; except for the AWS
# key ids (whose prefix alone is distinctive) a fragment must look machine-made (a digit, or both
# letter cases: "npm_lifecycle" is a word, not a token).
FRAGMENTS: tuple[Rule, ...] = (
    _r("aws-access-key-id", _L + r"(AKIA|ASIA|ABIA|ACCA)([A-Z0-9]{4,15})" + _R),
    _r("github-pat", _L + r"(?:ghp|gho|ghu|ghs|ghr)_([A-Za-z0-9]{8,})" + _R),
    _r("github-fine-grained-pat", _L + r"github_pat_([A-Za-z0-9_]{8,})" + _R),
    _r("gitlab-token", _L + r"(?:glpat|gldt|glrt|glptt|glcbt|glsoat|glffct|glagent|gloas)-([A-Za-z0-9_\-]{8,})" + _R),
    _r("slack-token", _L + r"xox[abposre]-([A-Za-z0-9\-]{8,})" + _R),
    _r("anthropic-api-key", _L + r"sk-ant-(?:api|admin|oat|sid)\d{2}-([A-Za-z0-9_\-]{8,})" + _R),
    _r("openai-api-key", _L + r"sk-(?:proj|svcacct|admin)-([A-Za-z0-9_\-]{8,})" + _R),
    _r("stripe-secret-key", _L + r"(?:sk|rk)_live_([A-Za-z0-9]{8,})" + _R),
    _r("npm-token", _L + r"npm_([A-Za-z0-9]{8,})" + _R),
    _r("huggingface-token", _L + r"hf_([A-Za-z0-9]{8,})" + _R),
    _r("google-api-key", _L + r"AIza([0-9A-Za-z_\-]{8,})" + _R),
)
TIER_A = TIER_A + FRAGMENTS
FRAGMENT_FROM = len(TIER_A) - len(FRAGMENTS)


def _machine_made(value: str) -> bool:
    return any(c.isdigit() for c in value) or (any(c.isupper() for c in value) and any(c.islower() for c in value))


def is_fragment(rule_id: str, m: re.Match[str]) -> bool:
    """Is a fragment rule's match a secret's piece?  An AWS key id's half (``AKIA`` + 4 of its 16
    characters) when it holds a digit, or ``AKIA`` + 8 or more; ``ASIAPACIFIC`` is a word.  Any
    other prefix: its tail looks machine-made."""
    if rule_id == "aws-access-key-id":
        prefix, tail = m.group(1), m.group(2)
        return any(c.isdigit() for c in tail) or (prefix == "AKIA" and len(tail) >= 8)
    return _machine_made(m.group(1))


# Literal hints per rule: a rule only runs on text holding one of them.
_HINTS: dict[str, tuple[str, ...]] = {
    "private-key": ("PRIVATE KEY",),
    "aws-access-key-id": ("AKIA", "ASIA", "ABIA", "ACCA", "AGPA", "AIDA", "AIPA", "ANPA", "ANVA", "AROA", "APKA"),
    "aws-secret-access-key": ("aws",),
    "aws-session-token": ("aws",),
    "github-pat": ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
    "github-oauth": ("gho_",),
    "github-app-token": ("ghu_", "ghs_"),
    "github-refresh-token": ("ghr_",),
    "github-fine-grained-pat": ("github_pat_",),
    "gitlab-token": ("glpat-", "gldt-", "glrt-", "glptt-", "glcbt-", "glsoat-", "glffct-", "glagent-", "gloas-"),
    "gitlab-runner-registration": ("GR1348941",),
    "slack-token": ("xox",),
    "slack-app-token": ("xapp-",),
    "slack-webhook": ("hooks.slack.com",),
    "anthropic-api-key": ("sk-ant-",),
    "openai-api-key": ("sk-",),
    "stripe-secret-key": ("_live_", "_test_"),
    "stripe-webhook-secret": ("whsec_",),
    "twilio-api-key": ("SK",),
    "sendgrid-api-key": ("SG.",),
    "mailchimp-api-key": ("-us",),
    "npm-token": ("npm_",),
    "pypi-token": ("pypi-AgEIcHlwaS5vcmc",),
    "google-api-key": ("AIza",),
    "gcp-oauth-client-secret": ("GOCSPX-",),
    "google-oauth-token": ("ya29.",),
    "gcp-service-account-key": ("private_key_id",),
    "azure-storage-key": ("accountkey",),
    "azure-sas-signature": ("sig=",),
    "azure-ad-client-secret": ("Q~",),
    "discord-webhook": ("discord",),
    "telegram-bot-token": (":AA",),
    "huggingface-token": ("hf_",),
    "digitalocean-token": ("_v1_",),
    "shopify-token": ("shp",),
    "hashicorp-vault-token": ("hvs.", "hvb."),
    "terraform-cloud-token": (".atlasv1.",),
    "databricks-token": ("dapi",),
    "linear-api-key": ("lin_api_",),
    "square-token": ("sq0",),
    "grafana-token": ("glsa_", "glc_"),
    "postman-api-key": ("PMAK-",),
    "doppler-token": ("dp.",),
    "age-secret-key": ("AGE-SECRET-KEY-1",),
    "atlassian-api-token": ("ATATT3",),
    "sentry-token": ("sntr",),
    "jwt": ("eyJ",),
    "auth-header": ("authorization",),
    "bearer-token": ("bearer",),
    "url-credentials": ("://",),
}
_CI_HINTS = frozenset({"aws-secret-access-key", "aws-session-token", "azure-storage-key", "auth-header", "bearer-token"})
_KEYWORD_HINTS = ("pass", "secret", "token", "key", "credential")


def _hint_table() -> tuple[tuple[int, ...], tuple[tuple[str, tuple[int, ...]], ...], tuple[tuple[str, tuple[int, ...]], ...]]:
    """:meth:`Rule.may_match` for every rule at once: (the places in :data:`TIER_A` of the rules
    without hints, then each case-sensitive and each case-folded hint with the places of the
    rules it lets through).  One ``in`` a distinct hint instead of a generator a rule: the
    pre-filter runs on every text the prompt hook redacts."""
    always: list[int] = []
    tables: tuple[dict[str, list[int]], dict[str, list[int]]] = ({}, {})
    for place, rule in enumerate(TIER_A):
        hints = _HINTS.get(rule.id)
        if hints is None:
            always.append(place)
            continue
        table = tables[rule.id in _CI_HINTS]
        for hint in hints:
            table.setdefault(hint, []).append(place)
    cs, ci = (tuple((h, tuple(places)) for h, places in t.items()) for t in tables)
    return tuple(always), cs, ci


_ALWAYS, _CS_TABLE, _CI_TABLE = _hint_table()


def candidates(text: str, lowered: str) -> list[int]:
    """The places in :data:`TIER_A`, ascending, of the rules whose :meth:`Rule.may_match` is true."""
    places = set(_ALWAYS)
    for hint, rules in _CS_TABLE:
        if hint in text:
            places.update(rules)
    for hint, rules in _CI_TABLE:
        if hint in lowered:
            places.update(rules)
    return sorted(places)

# --------------------------------------------------------------------------------------
# Tier B: keyword-gated assignments.
PASSWORD_WORDS = r"password|passwd|passphrase|passcode|pass_?word"
SECRET_WORDS = (
    r"secret|token|api[_\-]?key|apikey|access[_\-]?key|private[_\-]?key|client[_\-]?secret"
    r"|credentials?|auth[_\-]?key|session[_\-]?key|signing[_\-]?key|encryption[_\-]?key|master[_\-]?key"
)
_KEYWORD_ASSIGN_RE = (
    r"(?i)(?P<kw>" + PASSWORD_WORDS + "|" + SECRET_WORDS + r")" + r"(?P<tail>"
    r"[A-Za-z0-9_.\-]{0,24}[\"'`]?\s*(?P<sep>:=|=>|->|=|:|\bis\b|\bwas\b)\s*"
    r"(?P<q>[\"'`]?)(?P<value>[^\s\"'`,;<>\\]{1,256}))"
)
# the same, in two steps (much faster on long text): find a keyword root in the lower-cased
# text with a plain literal alternation, then match the assignment right after it
_ROOT_RE = r"password|passwd|passphrase|passcode|pass_word|secret|token|credentials?|key"
_KEY_PREFIX_RE = r"(?:api[_\-]?|access[_\-]?|private[_\-]?|client[_\-]?|auth[_\-]?|session[_\-]?|signing[_\-]?|encryption[_\-]?|master[_\-]?)$"
_TAIL_RE = (
    r"(?i)[A-Za-z0-9_.\-]{0,24}[\"'`]?\s*(?P<sep>:=|=>|->|=|:|\bis\b|\bwas\b)\s*"
    r"(?P<q>[\"'`]?)(?P<value>[^\s\"'`,;<>\\]{1,256})"
)


_BARE_PASSWORD_RE = r"[ \t]+(?P<q>[\"'`]?)(?P<value>[^\s\"'`,;<>\\]{6,256})"


def keyword_assignments(text: str, lowered: str) -> Iterator[tuple[str, str, int]]:
    """(keyword, value, value start) for every keyword-gated assignment in ``text``."""
    if not any(h in lowered for h in _KEYWORD_HINTS):
        return
    if len(lowered) != len(text):  # lower() changed lengths (rare Unicode): the one-step regex
        for m in re.compile(_KEYWORD_ASSIGN_RE).finditer(text):
            yield m.group("kw"), m.group("value"), m.start("value")
        return
    tail = re.compile(_TAIL_RE)
    prefix = re.compile(_KEY_PREFIX_RE)
    for root in re.compile(_ROOT_RE).finditer(lowered):
        kw = root.group()
        if kw == "key":
            before = prefix.search(lowered, max(0, root.start() - 12), root.start())
            if before is None:
                continue
            kw = lowered[before.start() : root.end()]
        assignment = tail.match(text, root.end())
        if assignment is not None:
            yield kw, assignment.group("value"), assignment.start("value")
        elif kw.startswith("pass"):
            # "the password hunter2-XYZ": a password word followed by a bare value, accepted only  okfpro:allow-secret
            # when the value mixes letters and digits ("password reset", "password manager" are prose)
            bare = re.compile(_BARE_PASSWORD_RE).match(text, root.end())
            if bare is not None:
                value = bare.group("value")
                if any(ch.isdigit() for ch in value) and any(ch.isalpha() for ch in value):
                    yield kw, value, bare.start("value")
_UUID = r"(?i)^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$"  # compiled on first use, as the rules
_PLACEHOLDER_WORDS = {
    "none", "null", "nil", "true", "false", "undefined", "empty", "required", "optional", "changeme",
    "change_me", "example", "redacted", "secret", "password", "token", "string", "str", "bytes", "int",
    "xxx", "todo", "tbd", "hidden", "masked", "dummy", "placeholder", "your_password", "your_token",
}
TRAILING = ".,;:)]}!?"


def shannon_entropy(text: str) -> float:
    """Bits per character of ``text`` (0.0 for the empty string)."""
    if not text:
        return 0.0
    counts = Counter(text)
    n = len(text)
    return -sum(c / n * math.log2(c / n) for c in counts.values())


def _classes(value: str) -> int:
    return sum(
        (
            any(ch.islower() for ch in value),
            any(ch.isupper() for ch in value),
            any(ch.isdigit() for ch in value),
            any(not ch.isalnum() for ch in value),
        )
    )


def _looks_like_template_or_word(value: str) -> bool:
    low = value.lower()
    if low in _PLACEHOLDER_WORDS or low.strip("_-.*x") == "":
        return True
    if value[0] in "$%{<[(*/~#@&!" or value.startswith(("./", "../")):
        return True  # $VAR, ${X}, %(x)s, {{x}}, <x>, [REDACTED…], (…), paths, refs
    if "(" in value or "://" in value or value.startswith("os.") or value.startswith("env."):
        return True  # a call, a URL (the url rule handles credentials), an indirection
    if re.fullmatch(r"[A-Za-z]+(?:[_\-.][A-Za-z]+)*", value) and _classes(value) <= 2 and not any(
        ch.isdigit() for ch in value
    ):
        # plain words / identifiers (``required``, ``env.DB_PASSWORD`` handled above, ``get_token``)
        if not (len(value) >= 20 and shannon_entropy(value) >= 4.0):
            return True
    if len(set(value)) <= 2:
        return True  # ******, xxxxxx, 000000
    return False


def url_placeholder(value: str) -> bool:
    low = value.lower()
    return (
        low in _PLACEHOLDER_WORDS
        or low in {"pass", "pw", "pwd", "passwd", "pass123", "user", "admin"}
        or value[0] in "$%{<*"
        or len(set(value)) <= 2
    )


def _is_sequential(value: str) -> bool:
    low = value.lower()
    return low in "abcdefghijklmnopqrstuvwxyz0123456789" or low in "0123456789abcdef" or low in "1234567890"


def tier_b_accepts(keyword: str, value: str) -> bool:
    """Does ``value`` after a secret-sounding ``keyword`` look like a real secret?"""
    if not value or value.startswith(PLACEHOLDER_PREFIX):
        return False
    if _looks_like_template_or_word(value) or _is_sequential(value):
        return False
    if re.compile(_UUID).match(value):
        return False
    kw = keyword.lower()
    if re.fullmatch(PASSWORD_WORDS, kw):
        # people choose passwords: low entropy, but a mixed shape
        if len(value) < 6:
            return False
        if value.isdigit():
            return len(value) >= 8
        return _classes(value) >= 2 or (len(value) >= 12 and shannon_entropy(value) >= 3.0)
    # tokens, keys, secrets: machine-made, long and random-looking
    if len(value) < 16:
        return False
    if re.fullmatch(r"[0-9]+", value):
        return False
    if not (any(ch.isdigit() for ch in value) and any(ch.isalpha() for ch in value)):
        return False
    return shannon_entropy(value) >= 3.5



# --------------------------------------------------------------------------------------
# Keyword-free: a bare AWS secret access key (the driver files it as tier B: heuristic).  40 characters of [A-Za-z0-9/+], random
# (upper, lower and digits; high entropy).  Near an AWS key id or the word "aws" (within
# _AWS_NEAR characters) that shape is enough; with no such context the run must also look
# drawn at random (:func:`_random_run`: the character class changes at least _SWITCHES times,
# where a CamelCase identifier or a path changes a few times a word), not be the last line
# of a wrapped base64 block, and not be base64 of text (a fixture: the decoded-text scan reads
# what it says).  Base64 of 30 random bytes has exactly this shape and is redacted.  Git SHAs (hex, one case), UUIDs and words fail the shape.
_AWS_SECRET_SHAPE = r"(?<![A-Za-z0-9/+=])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])"
_AWS_CONTEXT = r"(?<![a-z])aws|(?<![A-Z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}"
_AWS_NEAR = 240
_SWITCHES = 14


def _kind(ch: str) -> int:
    return 0 if ch.islower() else 1 if ch.isupper() else 2 if ch.isdigit() else 3


def _random_run(value: str) -> bool:
    """Does ``value`` (40 characters of the AWS secret alphabet) look drawn at random?"""
    switches = sum(_kind(a) != _kind(b) for a, b in zip(value, value[1:]))
    return switches >= _SWITCHES and shannon_entropy(value) >= 4.4


_B64_LINE = r"[A-Za-z0-9/+]{60,}={0,2}"


def _wrapped_tail(text: str, start: int) -> bool:
    """Is the run at ``start`` the last line of a wrapped base64 block (its line before is one)?"""
    line_start = text.rfind("\n", 0, start) + 1
    if line_start == 0 or text[line_start:start].strip(" \t>#*"):
        return False
    before = text.rfind("\n", 0, line_start - 1) + 1
    return re.compile(_B64_LINE).fullmatch(text[before:line_start - 1].strip(" \t>#*\r")) is not None


def bare_aws_secrets(text: str, lowered: str, key_id_found: bool) -> list[tuple[int, int, str]]:
    """(start, end, value) of every bare AWS secret access key in ``text`` (``key_id_found``: a
    tier A rule found an AWS key id in it)."""
    if len(text) < 40:
        return []
    anchors: list[int] = []
    if "aws" in lowered or key_id_found:
        anchors = [m.start() for m in re.compile(_AWS_CONTEXT).finditer(lowered if "aws" in lowered else text)]
        if "aws" in lowered:
            anchors += [m.start() for m in re.compile(r"(?<![A-Z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}").finditer(text)]
        anchors.sort()
    out: list[tuple[int, int, str]] = []
    for m in re.compile(_AWS_SECRET_SHAPE).finditer(text):
        value = m.group()
        if not (any(c.isupper() for c in value) and any(c.islower() for c in value) and any(c.isdigit() for c in value)):
            continue
        if value.count("/") > 4 or shannon_entropy(value) < 4.3:
            continue  # a path, a repeated pattern
        i = bisect.bisect_left(anchors, m.start() - _AWS_NEAR)
        near = i < len(anchors) and anchors[i] <= m.end() + _AWS_NEAR
        if near or (_random_run(value) and not _wrapped_tail(text, m.start()) and textview.decoded(value) is None):
            out.append((m.start(), m.end(), value))
    return out


RULE_IDS: tuple[str, ...] = tuple(sorted({r.id for r in TIER_A} | {"generic-password", "generic-secret"}))
