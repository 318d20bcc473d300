"""Hook wiring in a workspace that already has its own: merge ours in, and say what is not wired.

``okfpro init`` in an existing repository meets the owner's ``.claude/settings.json``,
``.codex/hooks.json``, ``.gemini/settings.json`` or ``.pre-commit-config.yaml``.  Staging the template
beside them (``*.okfpro-new``) would leave the agent door and the commit door silently off, so these
files are merged instead:

* JSON wiring: every key of the owner's is kept; okfpro's own entries (a command that runs one of the
  launchers in ``.claude/hooks/``) are replaced by the template's, so a re-run is a no-op and an
  ``upgrade`` refreshes them; other keys of the template are added only where the owner has none.
  Gemini CLI reads its settings as JSON with comments: a commented ``.gemini/settings.json`` is edited
  in place (okfpro's groups and keys spliced into the owner's text), so every comment survives; the
  result is read back and must be the merged settings, else nothing is written.
* ``.pre-commit-config.yaml``: a YAML round trip (ruamel.yaml keeps the owner's comments, order and
  quoting); hooks whose ids are okfpro's are replaced by the template's ``repo: local`` block.

The original is kept once as ``<file>.okfpro-backup`` (numbered if one exists) before the first
change.  A file that cannot be read as the host would read it is not touched: it is staged, and the
report says loudly that the door is not active.  ``findings(workspace)`` is what ``audit`` reports
about the same doors.
"""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

# Launcher scripts (hooks/_launch.LAUNCHERS): a command naming one is okfpro's entry.
_OURS = re.compile(r"\.claude/hooks/(?:session_start|pre_tool_use|post_edit|stop|user_prompt_submit|session_end)\.py\b")
JSON_WIRING = {
    "claude": ".claude/settings.json",
    "codex": ".codex/hooks.json",
    "gemini": ".gemini/settings.json",
}
PRECOMMIT = ".pre-commit-config.yaml"
BACKUP_SUFFIX = ".okfpro-backup"


class MergeError(Exception):
    """The owner's file cannot be merged (not what the host would accept); nothing was written."""


def is_ours(command: Any) -> bool:
    return isinstance(command, str) and bool(_OURS.search(command))


def _strip_ours(hooks: dict[str, Any]) -> None:
    for event in list(hooks):
        groups = hooks[event]
        if not isinstance(groups, list):
            continue
        kept = []
        for group in groups:
            if isinstance(group, dict) and isinstance(group.get("hooks"), list):
                inner = [h for h in group["hooks"] if not (isinstance(h, dict) and is_ours(h.get("command")))]
                if not inner and group["hooks"]:
                    continue  # a group that held only okfpro's entries
                group = {**group, "hooks": inner}
            kept.append(group)
        hooks[event] = kept


def merge_json(existing: str, template: str, where: str, commented: bool = False) -> str | None:
    """The owner's JSON with the template's hook entries merged in; ``None`` when already current.
    ``commented``: the host reads JSON with comments (Gemini CLI), and so does this merge."""
    from okfpro.core.jsonc import strip_comments

    plain = strip_comments(existing) if commented else existing
    try:
        owner = json.loads(plain)
    except ValueError as exc:
        raise MergeError(f"{where} is not valid JSON{' (with comments)' if commented else ''} ({exc}); "
                         "the host would not read it either") from exc
    if not isinstance(owner, dict):
        raise MergeError(f"{where} is not a JSON object")
    ours = json.loads(template)
    hooks = owner.get("hooks", {})
    if not isinstance(hooks, dict):
        raise MergeError(f"{where}: 'hooks' is not an object")
    for event, groups in hooks.items():
        if not isinstance(groups, list):
            raise MergeError(f"{where}: hooks.{event} is not a list")
    merged = json.loads(json.dumps(owner))  # a deep copy; key order kept
    merged_hooks = merged.setdefault("hooks", {})
    _strip_ours(merged_hooks)
    for event, groups in ours.get("hooks", {}).items():
        merged_hooks.setdefault(event, []).extend(groups)
    for key, value in ours.items():
        if key != "hooks":
            merged.setdefault(key, value)
    if merged == owner:
        return None
    if plain != existing:  # comments: splice into the owner's text instead of writing it anew
        return _splice(existing, plain, owner, merged, ours, where)
    return json.dumps(merged, indent=2, ensure_ascii=False) + "\n"


def _members(text: str, start: int) -> tuple[dict[str, tuple[int, int, int]], int]:
    """The members of the JSON object whose ``{`` is at ``start`` in comment-free ``text``:
    key -> (key start, value start, value end), and the index of its ``}``."""
    decoder = json.JSONDecoder()
    out: dict[str, tuple[int, int, int]] = {}
    i = start + 1
    while True:
        while text[i] in " \t\r\n,":
            i += 1
        if text[i] == "}":
            return out, i
        key, after = decoder.raw_decode(text, i)  # the key: a JSON string
        colon = text.index(":", after)
        v = colon + 1
        while text[v] in " \t\r\n":
            v += 1
        _, end = decoder.raw_decode(text, v)
        out[key] = (i, v, end)
        i = end


def _elements_end(text: str, start: int) -> int | None:
    """The end of the last element of the JSON array whose ``[`` is at ``start`` (None: empty)."""
    decoder = json.JSONDecoder()
    i, last = start + 1, None
    while True:
        while text[i] in " \t\r\n,":
            i += 1
        if text[i] == "]":
            return last
        _, last = decoder.raw_decode(text, i)
        i = last


def _indent_at(text: str, pos: int) -> str:
    line = text[text.rfind("\n", 0, pos) + 1:pos]
    return line[: len(line) - len(line.lstrip())]


def _dump(value: Any, indent: str) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False).replace("\n", "\n" + indent)


def _splice(existing: str, plain: str, owner: dict[str, Any], merged: dict[str, Any], ours: dict[str, Any],
            where: str) -> str:
    """``existing`` (with comments; ``plain`` is it with the comments blanked, same positions) edited into
    ``merged``: new members inserted after the last one, okfpro's groups appended to an event's list, an
    event that held okfpro's entries rewritten.  Refused (MergeError) unless it reads back as ``merged``."""
    from okfpro.core.jsonc import loads_commented

    edits: list[tuple[int, int, str]] = []  # (start, end, replacement) on the original text

    def add_members(obj_start: int, members: dict[str, tuple[int, int, int]], close: int, new: dict[str, Any]) -> None:
        if not new:
            return
        if members:
            last_key, _, last_end = max(members.values(), key=lambda m: m[2])
            indent = _indent_at(plain, last_key)
            body = "".join(f",\n{indent}{json.dumps(k, ensure_ascii=False)}: {_dump(v, indent)}" for k, v in new.items())
            edits.append((last_end, last_end, body))
        else:
            indent = _indent_at(plain, obj_start) + "  "
            body = ",".join(f"\n{indent}{json.dumps(k, ensure_ascii=False)}: {_dump(v, indent)}" for k, v in new.items())
            edits.append((obj_start + 1, obj_start + 1, body + "\n" + _indent_at(plain, obj_start)))

    top_start = len(plain) - len(plain.lstrip())
    top, top_close = _members(plain, top_start)
    if "hooks" in top:
        _, hv, _ = top["hooks"]
        events, close = _members(plain, hv)
        new_events: dict[str, Any] = {}
        for event, groups in merged["hooks"].items():
            if event not in events:
                new_events[event] = groups
                continue
            _, ev, ee = events[event]
            if groups == owner["hooks"][event]:
                continue
            held = owner["hooks"][event]
            if held == groups[: len(held)]:  # okfpro's groups appended after the owner's
                extra = groups[len(held):]
                last = _elements_end(plain, ev)
                indent = _indent_at(plain, ev) + "  "
                if last is None:
                    edits.append((ev + 1, ev + 1, "".join(f"\n{indent}{_dump(g, indent)}," for g in extra)[:-1]
                                  + "\n" + _indent_at(plain, ev)))
                else:
                    edits.append((last, last, "".join(f",\n{indent}{_dump(g, indent)}" for g in extra)))
            else:  # it held okfpro's entries: the list is rewritten (comments inside it go)
                edits.append((ev, ee, _dump(groups, _indent_at(plain, events[event][0]))))
        add_members(hv, events, close, new_events)
    add_members(top_start, {k: v for k, v in top.items()}, top_close,
                {k: v for k, v in merged.items() if k not in top})
    text = existing
    newline = "\r\n" if "\r\n" in existing else "\n"  # the owner's line ending
    for start, end, repl in sorted(edits, reverse=True):
        text = text[:start] + repl.replace("\n", newline) + text[end:]
    try:
        back = loads_commented(text)
    except ValueError as exc:
        raise MergeError(f"{where}: okfpro's hooks could not be merged keeping your comments ({exc})") from exc
    if back != merged:
        raise MergeError(f"{where}: okfpro's hooks could not be merged keeping your comments")
    return text


def _yaml():
    from ruamel.yaml import YAML

    yaml = YAML()  # round trip: comments, order and quoting of the owner's file survive
    yaml.preserve_quotes = True
    yaml.indent(mapping=2, sequence=4, offset=2)
    yaml.width = 4096
    return yaml


def our_hook_ids(template: str) -> list[str]:
    import yaml as pyyaml

    data = pyyaml.safe_load(template)
    return [h["id"] for repo in data["repos"] for h in repo.get("hooks", [])]


def merge_precommit(existing: str, template: str, where: str = PRECOMMIT) -> str | None:
    """The owner's pre-commit config with okfpro's hooks (the template's local repo) in; ``None`` if current."""
    import yaml as pyyaml

    yaml = _yaml()
    try:
        owner = yaml.load(existing)
    except Exception as exc:  # ruamel raises many error types
        raise MergeError(f"{where} is not valid YAML ({type(exc).__name__}: {str(exc).splitlines()[0]})") from exc
    if owner is None:
        owner = yaml.load("repos: []\n")
    if not isinstance(owner, dict):
        raise MergeError(f"{where} is not a mapping")
    repos = owner.get("repos")
    if repos is None:
        owner["repos"] = repos = yaml.load("[]\n")
    if not isinstance(repos, list):
        raise MergeError(f"{where}: 'repos' is not a list")
    ours = pyyaml.safe_load(template)
    our_ids = {h["id"] for repo in ours["repos"] for h in repo.get("hooks", [])}
    our_repo = ours["repos"][0]
    current = [h for r in repos if isinstance(r, dict) and r.get("repo") == "local"
               for h in (r.get("hooks") or []) if isinstance(h, dict) and h.get("id") in our_ids]
    if json.loads(json.dumps(current)) == our_repo["hooks"] and all(k in owner for k in ours if k != "repos"):
        return None
    for repo in list(repos):
        if isinstance(repo, dict) and repo.get("repo") == "local" and isinstance(repo.get("hooks"), list):
            hooks = repo["hooks"]
            for h in [h for h in hooks if isinstance(h, dict) and h.get("id") in our_ids]:
                hooks.remove(h)
            if not hooks:
                repos.remove(repo)
    repos.append(our_repo)
    for key, value in ours.items():
        if key != "repos" and key not in owner:
            owner.insert(0, key, value) if hasattr(owner, "insert") else owner.setdefault(key, value)
    out = io.StringIO()
    yaml.dump(owner, out)
    return out.getvalue()


def backup_path(path: Path) -> Path:
    candidate = path.with_name(path.name + BACKUP_SUFFIX)
    n = 1
    while candidate.exists() or candidate.is_symlink():
        candidate = path.with_name(f"{path.name}{BACKUP_SUFFIX}.{n}")
        n += 1
    return candidate


def merge(rel: str, existing: str, template: str) -> str | None:
    """Dispatch on the file: merged text, ``None`` when already current; MergeError when it cannot."""
    if rel == PRECOMMIT:
        return merge_precommit(existing, template, rel)
    return merge_json(existing, template, rel, commented=rel == JSON_WIRING["gemini"])


MERGEABLE = set(JSON_WIRING.values()) | {PRECOMMIT}


def hooks_by_event(data: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """A settings object's hook entries, by event (the groups flattened)."""
    hooks = data.get("hooks") if isinstance(data, dict) else None
    return {event: [h for g in groups if isinstance(g, dict) for h in g.get("hooks") or [] if isinstance(h, dict)]
            for event, groups in (hooks.items() if isinstance(hooks, dict) else ()) if isinstance(groups, list)}


def as_written(hook: Any, wanted: list[dict[str, Any]]) -> bool:
    """Is this entry one ``init`` writes: the same type and command, byte for byte, and no key the
    template's entry lacks (an ``env`` or ``shell`` key would change what the host runs)."""
    if not isinstance(hook, dict):
        return False
    return any(hook.get("type") == w.get("type") and hook.get("command") == w.get("command") and set(hook) <= set(w)
               for w in wanted)



# --------------------------------------------------------------------------- what audit reports


def _hook_events(settings: dict[str, Any]) -> set[str]:
    events = set()
    hooks = settings.get("hooks")
    if isinstance(hooks, dict):
        for event, groups in hooks.items():
            for group in groups if isinstance(groups, list) else []:
                for h in (group.get("hooks") if isinstance(group, dict) else None) or []:
                    if isinstance(h, dict) and is_ours(h.get("command")):
                        events.add(event)
    return events


def findings(workspace: Path, template_root: Path) -> list[str]:
    """Enforcement this workspace promises but does not wire (one message each)."""
    out: list[str] = []
    wired_any = False
    for agent, rel in JSON_WIRING.items():
        path = workspace / rel
        staged = workspace / (rel + ".okfpro-new")
        if staged.exists():
            out.append(f"{rel}.okfpro-new is staged beside {rel}: the template's {agent} wiring is not active until it is merged "
                       "(`okfpro upgrade` merges it)")
        if not path.is_file():
            continue
        try:
            text = path.read_text(encoding="utf-8")
            if agent == "gemini":  # Gemini CLI reads its settings as JSON with comments
                from okfpro.core.jsonc import strip_comments

                text = strip_comments(text)
            settings = json.loads(text)
            want = set(json.loads((template_root / "wiring" / agent / rel).read_text(encoding="utf-8"))["hooks"])
        except (OSError, ValueError) as exc:
            out.append(f"{rel} cannot be read ({exc}): the {agent} hooks are off")
            continue
        have = _hook_events(settings if isinstance(settings, dict) else {})
        template = hooks_by_event(json.loads((template_root / "wiring" / agent / rel).read_text(encoding="utf-8")))
        for event, entries in hooks_by_event(settings).items():
            for h in entries:
                if is_ours(h.get("command")) and not as_written(h, template.get(event, [])):
                    out.append(f"{rel}: the {event} command {h.get('command')!r} names okfpro's launcher but is not what "
                               f"`okfpro init` writes: {agent} runs something else there (`okfpro upgrade` rewrites it)")
        if have:
            wired_any = True
        missing = sorted(want - have)
        if missing:
            out.append(f"{rel} runs no okfpro hook for {', '.join(missing)}: those gates are off for {agent} "
                       "(`okfpro upgrade` merges the wiring in)")
    if not wired_any and not out:
        out.append("no agent host runs the okfpro hooks here (.claude/settings.json, .codex/hooks.json, .gemini/settings.json): "
                   "the agent door is off (`okfpro init --agent claude|codex|gemini`)")
    path = workspace / PRECOMMIT
    if (workspace / (PRECOMMIT + ".okfpro-new")).exists():
        out.append(f"{PRECOMMIT}.okfpro-new is staged: the commit door is not active until it is merged (`okfpro upgrade`)")
    try:
        ids = our_hook_ids((template_root / "owned" / PRECOMMIT).read_text(encoding="utf-8"))
        import yaml as pyyaml

        data = pyyaml.safe_load(path.read_text(encoding="utf-8")) if path.is_file() else None
        have_ids = {h.get("id") for r in (data or {}).get("repos", []) or [] if isinstance(r, dict)
                    for h in r.get("hooks", []) or [] if isinstance(h, dict)}
        missing_ids = [i for i in ids if i not in have_ids]
        if not path.is_file():
            out.append(f"no {PRECOMMIT}: the commit door is off (`okfpro upgrade` writes it)")
        elif missing_ids:
            out.append(f"{PRECOMMIT} lacks okfpro's hooks {', '.join(missing_ids)}: the commit door does not run them "
                       "(`okfpro upgrade` merges them in)")
    except (OSError, ValueError, AttributeError, Exception) as exc:  # a config pre-commit cannot parse either
        if path.is_file():
            out.append(f"{PRECOMMIT} cannot be read ({type(exc).__name__}): the commit door is off")
    return out
