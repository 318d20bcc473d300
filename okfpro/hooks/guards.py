"""The PreToolUse guards: a forged ``verified:``, a past journal day, a shell write into the bundle."""

from __future__ import annotations

import os
import re

from okfpro.hooks.answer import Answer, strongest
from okfpro.hooks.context import Ctx
from okfpro.io.roots import within

JOURNAL_DAY = re.compile(r"\Ajournal/([0-9]{4}-[0-9]{2}-[0-9]{2})\.md\Z", re.I)
OKF_WORD = re.compile(r"\.okf\b")
# an added text the guard cannot apply (an unknown tool shape) is asked about when it could spell the key
KEY_HINT = re.compile(r"verif|\\|^[ \t]*\?", re.I | re.M)
CURRENT_LIMIT = 8 * 1024 * 1024 + 1  # the reader's per-file limit (okfpro.core.concept.MAX_FILE_BYTES), plus one

VERIFIED_ASK = (
    "This edit writes 'verified:' — that is the owner's attestation, not the agent's. The agent only "
    "writes it down; approving is the attestation. Approve only if you have read this content yourself. "
    "If you have not, deny: 'unverified' is the true state."
)


def guard_verified(ctx: Ctx) -> Answer:
    """Ask when the edit would change what the reader reads as the file's ``verified`` attestation.

    The edit is applied to the file's current text in memory (``okfpro.core.edits``) and the
    result's frontmatter parsed with the reader's own rules, so every YAML spelling of the key
    (quoted, escaped, ``? verified``, flow mappings, a key made by deleting characters) is the
    same key.  YAML is imported only when an outcome's frontmatter block differs from today's.
    """
    for root, rel in ctx.targets():
        if _changes_verified(os.path.join(root, rel), rel, ctx.event.tool_input, ctx.event.added_text):
            return Answer.ask(VERIFIED_ASK)
    return Answer.pass_()


def current_text(path: str) -> str | None:
    """The file's text now ("" when it does not exist); None when it cannot be read as a file."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        return ""
    except OSError:
        return None
    try:
        import stat

        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        with os.fdopen(fd, "rb", closefd=False) as handle:
            raw = handle.read(CURRENT_LIMIT)
    except OSError:
        return None
    finally:
        os.close(fd)
    if len(raw) >= CURRENT_LIMIT:
        return None
    return raw.decode("utf-8", errors="surrogateescape")


def _changes_verified(path: str, rel: str, tool_input: dict, added: str) -> bool:
    from okfpro.core import edits
    from okfpro.core.fence import block

    current = current_text(path)
    outcomes = edits.outcomes(current or "", tool_input) if current is not None else None
    if outcomes is None:  # no way to know the result: decide on the added text
        return KEY_HINT.search(added) is not None
    before = block(current or "")
    changed = [text for text in outcomes if block(text) != before]
    if not changed:
        return False
    was = _verified(rel, current or "")
    return any(now is not ABSENT and now != was for now in (_verified(rel, text) for text in changed))


ABSENT = object()


def _verified(rel: str, text: str) -> object:
    """The ``verified`` value the reader reads in this text at ``rel``; ABSENT when it reads none.

    A text the reader cannot take at all answers a fresh object, which equals nothing: asked.
    """
    from okfpro.core.concept import Concept, parse_entry

    try:
        entry = parse_entry(rel, text.encode("utf-8", errors="surrogateescape"))
    except Exception:  # noqa: BLE001 - a text the reader cannot take is asked about, never waved through
        return object()
    if not isinstance(entry, Concept):
        return ABSENT
    return entry.frontmatter.get("verified", ABSENT)


def journal_guard(ctx: Ctx) -> Answer:
    answers = [_journal_answer(ctx, root, rel) for root, rel in ctx.targets()]
    return strongest(answers)


def _journal_answer(ctx: Ctx, root: str, rel: str) -> Answer:
    m = JOURNAL_DAY.match(rel)
    if m is None or m.group(1) >= ctx.today_s:
        return Answer.pass_()
    day = m.group(1)
    if os.path.lexists(os.path.join(root, rel)):
        return Answer.block(
            f"BLOCKED — journal/{day}.md records a past day. The journal is append-only: put the "
            f"correction in today's entry (journal/{ctx.today_s}.md) and point back to {day}."
        )
    return Answer.ask(
        f"This creates journal/{day}.md — a PAST day that has no entry yet. Approve only if this is a "
        f"declared reconstruction of a day you really worked (Rule 2's fallback when a day went "
        f"unrecorded). Otherwise deny, and write today's entry (journal/{ctx.today_s}.md) instead."
    )


PATH_TOKEN = re.compile(r"\"([^\"]+)\"|'([^']+)'|([^\s'\"`|;&()<>=,]+)")
OPAQUE = re.compile(r"[$`*?\[{~]")  # a name the shell computes: the target is not knowable here
TOKEN_LIMIT = 64


def _names_bundle(text: str, cwd: str, real_root: str | None) -> bool:
    """``text`` names ``.okf``, a relative Markdown path, or a path that resolves into a bundle.

    Paths are read against the event's ``cwd`` and resolved (a symlinked file or directory
    leading into the bundle is the bundle); a working directory inside the bundle makes every
    relative name a bundle name.
    """
    if OKF_WORD.search(text):
        return True
    if real_root is not None and within(os.path.realpath(cwd), real_root):
        return True
    from okfpro.io.roots import containing

    for n, m in enumerate(PATH_TOKEN.finditer(text)):
        if n >= TOKEN_LIMIT:
            break
        token = m.group(1) or m.group(2) or m.group(3)
        is_md = token.lower().endswith(".md") and token.lower() != ".md"
        if is_md and not os.path.isabs(token) and real_root is not None:
            return True
        if "/" not in token and not is_md and not os.path.islink(os.path.join(cwd, token)):
            continue  # a bare word: only a symlink beside cwd (``cp x jlink``) can lead into a bundle
        real = os.path.realpath(os.path.join(cwd, token))
        if real_root is not None and within(real, real_root):
            return True
        probe = os.path.join(real, "index.md") if os.path.isdir(real) else real
        if containing(probe) is not None and (is_md or os.path.isdir(real)):
            return True
    return False


def _touches_bundle(command: str, root: str | None, cwd: str) -> bool:
    """Where the command writes: the redirection targets when those are its only writes, else anywhere it names."""
    from okfpro.core import friction

    real_root = os.path.realpath(root) if root is not None else None
    if friction.only_redirects(command):
        targets = friction.redirect_targets(command)
        if targets and not any(OPAQUE.search(t) for t in targets):
            return any(_names_bundle(t, cwd, real_root) for t in targets)
    return _names_bundle(command, cwd, real_root)


OPAQUE_ASK = (
    "This command hands PowerShell an encoded command that does not decode, so what it would run cannot be "
    "read here: {shown}\nApprove only if you know what it does; otherwise deny, and let the agent run the "
    "command in plain words (or use Edit or Write, which the guards can see)."
)


def shell_guard(ctx: Ctx) -> Answer:
    """Ask before a shell command that writes into a bundle: POSIX words, inline interpreter code, or
    PowerShell/cmd.exe words — read on the command expanded by ``okfpro.core.pwsh`` (its -Command and
    -EncodedCommand texts decoded, escapes and literal concatenations folded)."""
    from okfpro.core import friction, pwsh

    command = ctx.event.command
    if not command:
        return Answer.pass_()
    if pwsh.opaque_encoded(command) and ctx.enclosing() is not None:
        return Answer.ask(OPAQUE_ASK.format(shown=friction.detail_of(command)))
    text = pwsh.expand(command)
    if not friction.has_mutator(text):
        return Answer.pass_()
    root = ctx.enclosing()
    if not _touches_bundle(text, root, ctx.event.cwd):
        return Answer.pass_()
    if root is not None and not friction.is_own_command(command):
        from okfpro.io import friction as friction_log

        friction_log.record(root, friction.shell_event(command, ctx.today_s))
    shown = friction.detail_of(command)
    return Answer.ask(
        f"This shell command looks like it writes Markdown inside the bundle: {shown}\n"
        "A shell write goes around the guards — nothing has checked it for a forged 'verified:' or an "
        "edit to a past journal day. Approve only if you have read the command and want exactly this; "
        "otherwise deny, and let the agent use Edit or Write, which the guards can see."
    )
