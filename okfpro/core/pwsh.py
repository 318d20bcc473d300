"""PowerShell (and cmd.exe) spellings of a write, for the shell guard (pure).

Claude Code's PowerShell tool, Codex and Gemini CLI on Windows, and ``pwsh`` anywhere run
PowerShell, whose writes the POSIX grammar of ``okfpro.core.friction`` does not know.  Two parts:

* ``expand(command)`` — the command plus every text it hands to another PowerShell to run:
  ``pwsh``/``powershell`` ``-Command``/``-c`` strings, ``-EncodedCommand``/``-enc``/``-e``/``-ec``
  (any prefix, ``-``, ``--`` or ``/``) base64 of UTF-16LE, ``FromBase64String('…')`` literals, the
  same text with PowerShell's backtick escapes and quoted-literal concatenations (``'.o'+'kf'``)
  folded away — so the guard reads what will run, not its wrapping.  Nesting is followed a few levels.
* ``WRITES`` — a write in PowerShell's words, matched case-insensitively in command position (line
  start, after ``; | & ( { =``, or the call operator ``&``/``.`` with or without quotes):
  the writing cmdlets (module-qualified too) and their aliases, cmd.exe's writers, .NET file APIs
  (``[IO.File]::WriteAllText``, ``New-Object IO.StreamWriter``, ``.CopyTo(``), and the ways to run
  computed code (``Invoke-Expression``/``iex``, ``[scriptblock]::Create``, ``Start-Process``,
  ``Invoke-Command``, ``Get-Command`` as a callee).  ``>``/``>>``/``*>`` redirections are the POSIX
  grammar's already; ``$null`` is a sink there.

What the write targets is then decided by the shell guard's path reading (``.okf`` named anywhere,
relative Markdown, paths resolving into a bundle), on the expanded text.
"""

from __future__ import annotations

import re


_CMDLETS = (  # unambiguous anywhere
    "set-content|add-content|clear-content|out-file|new-item|copy-item|move-item|remove-item|rename-item|set-item"
    "|tee-object|new-itemproperty|set-itemproperty|clear-item|export-[a-z]+|invoke-webrequest|invoke-restmethod"
    "|start-bitstransfer|expand-archive|compress-archive|invoke-expression|invoke-command|start-process|start-job"
)
_ALIASES = (  # short words: only in command position
    "sc|ac|clc|cli|ni|cp|cpi|copy|mv|mi|move|rm|ri|del|erase|rd|rmdir|ren|rni|tee|mkdir|md|iwr|irm|si|epcsv|epal"
    "|xcopy|robocopy|iex|icm|saps|start|sajb|gcm|get-command"
)
_CMD_POS = r"(?:^|[;|&(){}\n]|=[ \t]|\bdo\b|\bthen\b)[ \t]*(?:[&.][ \t]*)?['\"]?"
WRITES = re.compile(
    r"(?<![\w-])(?:microsoft\.powershell\.(?:management|utility)\\)?(?:" + _CMDLETS + r")(?![\w-])"
    r"|" + _CMD_POS + r"(?:" + _ALIASES + r")(?![\w-])"
    r"|\[(?:system\.)?io\.(?:file|directory|fileinfo|directoryinfo|streamwriter|filestream)\]\s*::"
    r"|\[scriptblock\]\s*::\s*create"
    r"|new-object\b[^;|\n]*\b(?:io\.streamwriter|io\.filestream|net\.webclient|io\.fileinfo)"
    r"|\.(?:writealltext|writealllines|writeallbytes|appendalltext|appendalllines|copyto|moveto"
    r"|downloadfile|createtext|appendtext|openwrite)\s*\(|\.delete\s*\(\s*\)",
    re.I | re.M,
)

_SHELL = re.compile(r"(?<![\w-])(?:pwsh|powershell|cmd)(?:\.exe)?(?![\w-])", re.I)
# compiled on first use: most commands name no PowerShell and hold no base64 (the hook path stays light)
_PATTERNS = {
    "encoded": (r"(?:^|\s)(?:--?|/)(?:e|ec|en[a-z]*)\s+['\"]?([^\s'\"]+)['\"]?", re.I),
    "args_end": (r"\s(?:--?|/)(?:c|co|com|comm|comma|comman|command|f|fi|fil|file)\s|[;|&\n]", re.I),
    "command": (r"(?:^|\s)(?:--?|/)(?:k|c|co|com|comm|comma|comman|command)\s+(\"(?:[^\"`]|`.)*\"|'(?:[^']|'')*'|.+)",
                re.I | re.S),
    "from_b64": (r"frombase64string\s*\(\s*['\"]([A-Za-z0-9+/=\s]{4,})['\"]\s*\)", re.I),
}


def _rx(name: str) -> re.Pattern[str]:
    return re.compile(*_PATTERNS[name])  # re's own cache keeps it for the process


_CONCAT = re.compile(r"(['\"])\s*\+\s*(['\"])")
_BACKTICK = re.compile(r"`(?=[^\n])")
DEPTH = 3
LIMIT = 256 * 1024


def _decode(data: str) -> str | None:
    import base64
    import binascii

    try:
        raw = base64.b64decode(re.sub(r"\s", "", data) + "===", validate=False)
    except (binascii.Error, ValueError):
        return None
    for codec in ("utf-16-le", "utf-8"):
        try:
            text = raw.decode(codec)
        except UnicodeDecodeError:
            continue
        if text and all(c.isprintable() or c in "\r\n\t" for c in text):
            return text
    return None


def _unquote(arg: str) -> str:
    arg = arg.strip()
    if len(arg) >= 2 and arg[0] == arg[-1] and arg[0] in "'\"":
        inner = arg[1:-1]
        return inner.replace("''", "'") if arg[0] == "'" else inner
    return arg


def expand(command: str) -> str:
    """The command followed, one per line, by every text it hands on to run (see the module doc)."""
    seen: list[str] = []
    todo = [command[:LIMIT]]
    for _ in range(DEPTH + 1):
        found: list[str] = []
        for text in todo:
            if text in seen:
                continue
            seen.append(text)
            found.append(_BACKTICK.sub("", text))
            found.append(_CONCAT.sub("", text))
            for m in _rx("from_b64").finditer(text) if "frombase64string" in text.lower() else ():
                decoded = _decode(m.group(1))
                if decoded is not None:
                    found.append(decoded)
            for arg in _encoded_args(text):
                decoded = _decode(arg)
                if decoded is not None:
                    found.append(decoded)
            if _SHELL.search(text):
                for m in _rx("command").finditer(text):
                    found.append(_unquote(m.group(1)))
        todo = [t for t in found if t not in seen]
        if not todo:
            break
    return "\n".join(seen)


def _encoded_args(text: str) -> list[str]:
    """The -EncodedCommand arguments given to a PowerShell: flags between ``pwsh`` and its -Command/-File."""
    out: list[str] = []
    for shell in _SHELL.finditer(text):
        rest = text[shell.end():]
        end = _rx("args_end").search(rest)
        out.extend(m.group(1) for m in _rx("encoded").finditer(rest[:end.start() if end else len(rest)]))
    return out


def writes(command: str) -> bool:
    """The (expanded) command writes or runs computed code in PowerShell's or cmd.exe's words."""
    return WRITES.search(command) is not None


def opaque_encoded(command: str) -> bool:
    """A PowerShell is handed an encoded command that does not decode: what it runs is not knowable."""
    return any(_decode(arg) is None for arg in _encoded_args(command))
