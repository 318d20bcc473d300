"""What a hook check answers.

A check is ``fn(ctx) -> Answer``.  An answer is one of

* ``Answer.pass_()`` — nothing to say;
* ``Answer.context(text)`` — information for the agent (SessionStart banner, recall);
* ``Answer.ask(reason)`` — PreToolUse: ask the human;
* ``Answer.block(messages)`` — refuse (PreToolUse deny, PostToolUse feedback the
  agent must read, Stop: keep working).

One event runs several checks; ``strongest`` folds their answers into the one the
host gets (block > ask > context > pass).
"""

from __future__ import annotations

PASS, CONTEXT, ASK, BLOCK = "pass", "context", "ask", "block"
STRENGTH = {PASS: 0, CONTEXT: 1, ASK: 2, BLOCK: 3}


class Answer:
    __slots__ = ("kind", "messages")

    def __init__(self, kind: str = PASS, messages: list[str] | None = None) -> None:
        self.kind = kind
        self.messages: list[str] = list(messages or [])

    def __repr__(self) -> str:
        return f"Answer({self.kind!r}, {self.messages!r})"

    @staticmethod
    def pass_() -> "Answer":
        return Answer(PASS)

    @staticmethod
    def context(text: str) -> "Answer":
        return Answer(CONTEXT, [text] if text else [])

    @staticmethod
    def ask(reason: str) -> "Answer":
        return Answer(ASK, [reason])

    @staticmethod
    def block(messages: list[str] | str) -> "Answer":
        return Answer(BLOCK, [messages] if isinstance(messages, str) else list(messages))

    @property
    def text(self) -> str:
        return "\n".join(self.messages)


def strongest(answers: list[Answer]) -> Answer:
    """block > ask > context > pass; answers of the winning kind are merged in order."""
    if not answers:
        return Answer.pass_()
    top = max(STRENGTH[a.kind] for a in answers)
    kind = next(k for k, v in STRENGTH.items() if v == top)
    merged: list[str] = []
    for a in answers:
        if a.kind == kind:
            merged.extend(a.messages)
    return Answer(kind, merged)


