"""The capture safety layer as capture uses it: strip our recall blocks, refuse a text
that *is* a credential file (dotenv, ``.aws/credentials``, ``.netrc``, ``.pgpass``, a private
key, a kubeconfig, a Docker auth file) or raw shell output (terminal escape codes, an
environment dump, a long ``ls -l`` listing), and redact the secrets of the rest
(:mod:`okfpro.core.redact`).  Pure.
"""

from __future__ import annotations

import re

from okfpro.core.record import Value
from okfpro.core.redact import redact, strip_recall
from okfpro.core.secretshapes import PASSWORD_WORDS, SECRET_WORDS

_ENV_LINE = re.compile(r"^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)=(.*)$")
# Patterns needed only after a cheaper one matched are compiled then (re caches them): a capture
# that holds no such file pays for none of them.
_SECRETISH_NAME = r"(?i)(" + PASSWORD_WORDS + "|" + SECRET_WORDS + r"|dsn|database_url|auth)"
_AWS_SECTION = re.compile(r"(?m)^\s*\[[^\]\n]+\]\s*$")
_AWS_KEYS = r"(?mi)^\s*(aws_access_key_id|aws_secret_access_key|aws_session_token)\s*="
_NETRC = r"(?m)^\s*(?:machine\s+\S+|default)\b.*\bpassword\s+\S+|^\s*password\s+\S+\s*$"
_NETRC_MACHINE = re.compile(r"(?m)^\s*machine\s+\S+")
_PGPASS = re.compile(r"(?m)^[^:\s#]+:(?:\d+|\*):[^:\s]+:[^:\s]+:\S+$")
_KUBECONFIG = r"(?m)^\s*(client-key-data|client-certificate-data|token|password):\s*\S+"
# any terminal control sequence: ESC (CSI, OSC, DCS, a lone ESC-letter) or its one-byte C1 form
_ANSI = re.compile(r"[\x1b\x90\x9b\x9d\x9e\x9f]")
_LS_LONG = re.compile(r"(?m)^[dlcbps\-][rwxsStT\-]{9}[@+.]?\s+\d+\s+\S+\s+\S+\s+\d+\s")
_ENV_DUMP_NAMES = {"PATH", "HOME", "SHELL", "USER", "PWD", "LANG", "TERM", "HOSTNAME", "LOGNAME", "SHLVL", "OLDPWD"}


def refusal(text: str) -> str | None:
    """The reason ``text`` must not be captured at all, or None.

    Reasons are rule ids: ``credential-file:<kind>`` or ``shell-output:<kind>``.
    """
    if not text:
        return None
    if re.search(r"-----BEGIN[ A-Z0-9]*PRIVATE KEY", text):
        return "credential-file:private-key"
    if _AWS_SECTION.search(text) and len(re.findall(_AWS_KEYS, text)) >= 1 and re.search(
        r"(?mi)^\s*aws_(secret_access_key|session_token)\s*=", text
    ):
        return "credential-file:aws-credentials"
    if _NETRC_MACHINE.search(text) and re.search(_NETRC, text):
        return "credential-file:netrc"
    if len(_PGPASS.findall(text)) >= 1 and all(
        _PGPASS.match(line) or not line.strip() or line.lstrip().startswith("#") for line in text.splitlines()
    ):
        return "credential-file:pgpass"
    if re.search(r"(?m)^kind:\s*Config\s*$", text) and re.search(r"(?m)^(clusters|users):", text) and re.search(
        _KUBECONFIG, text
    ):
        return "credential-file:kubeconfig"
    if re.search(r"\"auths\"\s*:\s*\{", text) and re.search(r"\"auth\"\s*:\s*\"[A-Za-z0-9+/=]{8,}\"", text):
        return "credential-file:docker-config"
    if _ANSI.search(text):
        return "shell-output:ansi-escapes"
    lines = [line for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    env_lines = [m for m in (_ENV_LINE.match(line) for line in lines) if m]
    if len(env_lines) >= 3 and len(env_lines) * 10 >= len(lines) * 6:
        names = {m.group(1) for m in env_lines}
        if len(names & _ENV_DUMP_NAMES) >= 3:
            return "shell-output:env-dump"
        if any(re.search(_SECRETISH_NAME, name) and m.group(2).strip() for name, m in ((m.group(1), m) for m in env_lines)):
            return "credential-file:dotenv"
    if len(_LS_LONG.findall(text)) >= 5:
        return "shell-output:directory-listing"
    return None


class Sanitised(Value):
    """What the capture safety layer made of a text: the text to keep, the redactions, and why
    it was refused (``None``: kept)."""

    __slots__ = ("text", "findings", "refused", "stripped_recall")
    _fields = __slots__
    text: str
    findings: list[tuple[str, int]]
    refused: str | None
    stripped_recall: bool

    def __init__(self, text: str, findings: list[tuple[str, int]], refused: str | None = None,
                 stripped_recall: bool = False) -> None:
        self.text = text
        self.findings = findings
        self.refused = refused
        self.stripped_recall = stripped_recall


def sanitise(text: str) -> Sanitised:
    """strip our recall blocks, refuse credential files / shell output, then redact."""
    stripped = strip_recall(text)
    did_strip = stripped != text
    reason = refusal(stripped)
    if reason is not None:
        return Sanitised("", [], reason, did_strip)
    red = redact(stripped)
    return Sanitised(red.text, red.findings, None, did_strip)
