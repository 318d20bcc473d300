"""``okfpro doctor``: prove the enforcement loop of a workspace works end to end.

For each agent host wired in the workspace: read its settings as that host does, run each configured
command exactly as the host would (the host's variable substitution and quoting, its shell, the
workspace as working directory) with a synthetic event carrying a nonce, and check the answer arrives
in the shape that host accepts.  Then the interpreter pin, the commit door (pre-commit installed and
okfpro's hooks passing), identity resolution, the memory repository's integrity, and Codex's trust.

Nothing is written: the synthetic events are ones whose answer touches no file (an attestation
``ask``, a PostToolUse on a file outside the bundle, a Stop with ``stop_hook_active``, the banner).
The prompt and session-end hooks write memory, so they are resolved (the launcher exists and runs)
but not fired.

Doctor executes only what okfpro itself writes (issue 37.10: a freshly cloned repository's wiring is
the repository author's text, and no host has trusted it yet).  A wired command runs only when it is,
byte for byte, the command ``init``/``upgrade`` writes for that event (no extra keys on the entry), and
only when every file in ``.claude/hooks/`` that it reaches is what ``init`` writes (the launchers,
``_launch.py``, ``_cli.py``, the interpreter pin naming this interpreter; no other module beside them).
The pre-commit hooks run only when the config's okfpro hooks are the template's.  Anything else is
reported as "not okfpro's, not run"; ``--run-foreign`` runs such a command after printing it.

Each check is ``{"check", "host", "ok", "detail"}``; the workspace is healthy when every check is ok.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from okfpro.io.scaffold import template_hooks
from okfpro.io.wiring import JSON_WIRING, PRECOMMIT, as_written, is_ours

TIMEOUT = 90

# Gemini CLI (0.61) substitutes these in a hook command with the value quoted for bash by the npm
# package shell-quote's quote(); okfpro reproduces that here (tests/test_real_hosts.py holds this port
# to Gemini's own expandCommand, run through node).
_GEMINI_VARS = ("GEMINI_PROJECT_DIR", "GEMINI_CWD", "GEMINI_PLANS_DIR", "GEMINI_SESSION_ID", "CLAUDE_PROJECT_DIR")
_SQ_SPECIAL = re.compile(r"([A-Za-z]:)?([#!\"$&'()*,:;<=>?@\[\\\]^`{|}])")


def shell_quote(arg: str) -> str:
    """shell-quote's ``quote([arg])`` (the npm package Gemini CLI uses)."""
    if arg == "":
        return "''"
    if re.search(r"[\"\s]", arg) and "'" not in arg:
        return "'" + re.sub(r"(['\\])", r"\\\1", arg) + "'"
    if re.search(r"[\"'\s]", arg):
        return '"' + re.sub(r'(["\\$`!])', r"\\\1", arg) + '"'
    return _SQ_SPECIAL.sub(lambda m: (m.group(1) or "") + "\\" + m.group(2), arg)


def gemini_expand(command: str, cwd: str, session_id: str, plans_dir: str) -> str:
    """Gemini's HookRunner.expandCommand for bash: each variable replaced by its quoted value."""
    values = {
        "GEMINI_PROJECT_DIR": cwd, "GEMINI_CWD": cwd, "GEMINI_PLANS_DIR": plans_dir,
        "GEMINI_SESSION_ID": session_id, "CLAUDE_PROJECT_DIR": cwd,
    }
    for name in _GEMINI_VARS:
        quoted = shell_quote(values[name]) if values[name] else ""
        command = command.replace("$" + name, quoted)
    return command


# --------------------------------------------------------------------------- one host


def _synthetic(host: str, event: str, ws: Path, nonce: str) -> tuple[dict[str, Any], str] | None:
    """(event JSON, what the answer must be) for a host event name, or None when it is not fired."""
    session = f"okfpro-doctor-{nonce}"
    common = {"session_id": session, "cwd": str(ws), "transcript_path": None}
    if host == "gemini":
        common["timestamp"] = "1970-01-01T00:00:00Z"
    bundle_file = str(ws / ".okf" / f"doctor-{nonce}.md")
    outside = str(ws / f".okfpro-doctor-{nonce}.txt")
    tool_write = {"gemini": "write_file"}.get(host, "Write")
    if event in ("PreToolUse", "BeforeTool"):
        return ({**common, "hook_event_name": event, "tool_name": tool_write, "tool_use_id": nonce, "turn_id": nonce,
                 "model": "doctor", "permission_mode": "default",
                 "tool_input": {"file_path": bundle_file, "content": "---\nverified: yes\n---\n"}}, "ask")
    if event in ("PostToolUse", "AfterTool"):
        return ({**common, "hook_event_name": event, "tool_name": tool_write, "tool_use_id": nonce, "turn_id": nonce,
                 "model": "doctor", "permission_mode": "default", "tool_response": {},
                 "tool_input": {"file_path": outside, "content": nonce}}, "pass")
    if event in ("Stop", "AfterAgent"):
        return ({**common, "hook_event_name": event, "stop_hook_active": True, "turn_id": nonce, "model": "doctor",
                 "permission_mode": "default", "last_assistant_message": None, "prompt": "", "prompt_response": ""}, "pass")
    if event == "SessionStart":
        return ({**common, "hook_event_name": event, "source": "startup", "model": "doctor", "permission_mode": "default"},
                "context")
    return None


def _check_answer(host: str, expect: str, proc: subprocess.CompletedProcess) -> str | None:
    """None when the answer has the shape this host accepts; else what is wrong."""
    out = proc.stdout.decode("utf-8", "replace").strip()
    err = proc.stderr.decode("utf-8", "replace").strip()
    if proc.returncode not in (0, 2):
        return f"exit {proc.returncode} (the host reads it as 'carry on'): {err[-300:]}"
    if expect == "ask":
        if proc.returncode != 0:
            return f"exit {proc.returncode} where an answer on stdout was expected: {err[-300:]}"
        try:
            answer = json.loads(out)
        except ValueError:
            return f"stdout is not the JSON answer: {out[:200]!r}"
        if host == "gemini":
            ok = answer.get("decision") == "ask"
        else:
            hso = answer.get("hookSpecificOutput") or {}
            want = "deny" if host == "codex" else "ask"
            ok = hso.get("hookEventName") == "PreToolUse" and hso.get("permissionDecision") == want and bool(
                str(hso.get("permissionDecisionReason", "")).strip())
        return None if ok else f"not the {host} answer for an attestation: {out[:300]}"
    if expect == "pass":
        if proc.returncode != 0:
            return f"exit {proc.returncode}: {err[-300:]}"
        if host == "gemini" and not out:
            return "exit 0 with an empty stdout: Gemini would show stderr to the user"
        return None
    if expect == "context":
        if proc.returncode != 0:
            return f"exit {proc.returncode}: {err[-300:]}"
        if host == "claude":
            return None if out.startswith("Bundle state") else f"no banner on stdout: {out[:200]!r}"
        try:
            ctx = json.loads(out)["hookSpecificOutput"]["additionalContext"]
        except (ValueError, KeyError, TypeError):
            return f"stdout is not a hookSpecificOutput.additionalContext answer: {out[:200]!r}"
        return None if str(ctx).startswith("Bundle state") else f"unexpected context: {str(ctx)[:200]!r}"
    return None


def _run_as_host(host: str, command: str, ws: Path, event: dict[str, Any], timeout: float) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    if host == "claude":
        env["CLAUDE_PROJECT_DIR"] = str(ws)
        argv = ["bash", "-c", command]
    elif host == "codex":
        argv = ["sh", "-c", command]
    else:
        session = str(event.get("session_id", ""))
        plans = str(ws / ".gemini" / "plans")
        env.update(GEMINI_PROJECT_DIR=str(ws), GEMINI_CWD=str(ws), GEMINI_PLANS_DIR=plans, GEMINI_SESSION_ID=session,
                   CLAUDE_PROJECT_DIR=str(ws))
        argv = ["bash", "-c", gemini_expand(command, str(ws), session, plans)]
    return subprocess.run(argv, input=json.dumps(event).encode(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          cwd=str(ws), env=env, timeout=timeout)


def launcher_drift(ws: Path) -> list[str]:
    """How ``.claude/hooks/`` differs from what ``init`` writes with this okfpro: each launcher, ``_launch.py``
    and ``_cli.py`` byte for byte (no symlink), the interpreter pin naming this interpreter, and no other
    Python module or package beside them (the launchers' folder is first on their import path)."""
    from okfpro.io.scaffold import LAUNCHER_DIR, launcher_items

    out: list[str] = []
    names = set()
    for item in launcher_items():
        names.add(item.rel.rsplit("/", 1)[1])
        path = ws / item.rel
        try:
            same = not path.is_symlink() and path.is_file() and path.read_bytes() == item.data
        except OSError:
            same = False
        if not same:
            if item.machine:
                out.append(f"{item.rel} does not name this okfpro's interpreter ({sys.executable}) as `okfpro init` "
                           "writes it")
            else:
                out.append(f"{item.rel} is not the file `okfpro init` writes" + ("" if path.exists() else " (missing)"))
    folder = ws / LAUNCHER_DIR
    try:
        extra = sorted(p.name for p in folder.iterdir() if p.name not in names and p.name != "README.md"
                       and (p.is_dir() or p.suffix in (".py", ".pyc", ".pth", ".so")))
    except OSError:
        extra = []
    if extra:
        out.append(f"{LAUNCHER_DIR}/ also holds {', '.join(extra)}, which `okfpro init` does not write "
                   "(the launchers would import from there)")
    return out


def host_checks(host: str, ws: Path, drift: list[str] | None = None, run_foreign: bool = False,
                show: Any = None) -> list[dict[str, Any]]:
    rel = JSON_WIRING[host]
    checks: list[dict[str, Any]] = []
    drift = launcher_drift(ws) if drift is None else drift

    def add(name: str, ok: bool, detail: str) -> None:
        checks.append({"check": name, "host": host, "ok": ok, "detail": detail})

    try:
        settings = read_settings(ws / rel)
        hooks = settings["hooks"]
        assert isinstance(hooks, dict)
    except (OSError, ValueError, KeyError, AssertionError, TypeError) as exc:
        add("settings", False, f"{rel} cannot be read as {host} reads it ({type(exc).__name__}: {exc})")
        return checks
    add("settings", True, f"{rel} parses; events: {', '.join(hooks)}")
    wanted = template_hooks(host)
    elsewhere = _codex_top_elsewhere(ws) if host == "codex" else None
    nonce = secrets.token_hex(6)
    wired: set[str] = set()
    for event, groups in hooks.items():
        for group in groups if isinstance(groups, list) else []:
            for hook in (group.get("hooks") or []) if isinstance(group, dict) else []:
                command = hook.get("command") if isinstance(hook, dict) else None
                if not isinstance(command, str):
                    continue
                name = f"{event}" + (f" [{group['matcher']}]" if group.get("matcher") else "")
                ours = as_written(hook, wanted.get(event, []))
                if ours:
                    wired.add(event)
                elif not run_foreign:
                    changed = is_ours(command)  # names a launcher, but is not what init writes
                    add(name, not changed, f"not okfpro's, not run: {command!r}" + (
                        f" is not the command `okfpro init` writes for {event}"
                        f" ({(wanted.get(event) or [{}])[0].get('command')!r}); `okfpro upgrade` rewrites it, "
                        "`okfpro doctor --run-foreign` runs it after showing it" if changed else ""))
                    continue
                elif show is not None:
                    show(f"{host} {name}: running a command okfpro did not write (--run-foreign): {command}")
                if ours and drift:
                    add(name, False, "okfpro's command, not run: " + "; ".join(drift) + " (`okfpro upgrade` rewrites them)")
                    continue
                if ours and elsewhere:
                    add(name, False, f"okfpro's command, not run: it reaches .claude/hooks/ at the repository's top, "
                                     f"{elsewhere}, not this workspace's (run `okfpro init` at the repository root)")
                    continue
                synthetic = _synthetic(host, event, ws, nonce)
                tag = "" if ours else "not okfpro's, run by --run-foreign; "
                if synthetic is None:
                    named = re.search(r"(\.claude/hooks/\w+\.py)", str(command))
                    if named is None:
                        add(name, False, f"{tag}not fired (it writes memory); no launcher is named in {command!r}")
                        continue
                    script = named.group(1)
                    path = ws / script
                    ok = path.is_file() and os.access(path, os.X_OK)
                    add(name, ok, f"{tag}not fired (it writes memory); {script} {'is' if ok else 'is NOT'} an executable launcher")
                    continue
                payload, expect = synthetic
                try:
                    proc = _run_as_host(host, command, ws, payload, TIMEOUT)
                except subprocess.TimeoutExpired:
                    add(name, False, f"{tag}no answer within {TIMEOUT} s")
                    continue
                problem = _check_answer(host, expect, proc)
                received = HOST_RECEIVES.get((host, expect), expect)
                add(name, problem is None and ours,
                    tag + (problem or f"answered ({received}) as {host} accepts; nonce {nonce}"))
    for event in wanted:
        if event not in wired and not any(c["check"].split(" [")[0] == event for c in checks):
            add(event, False, f"{rel} runs no okfpro hook for {event}: that gate is off for {host} (`okfpro upgrade`)")
    return checks


def _codex_top_elsewhere(ws: Path) -> str | None:
    """Codex's commands find the launchers through ``git rev-parse --show-toplevel``: the repository's
    top, when that is not this workspace (its launchers were not checked, so they are not run)."""
    from okfpro.io.roots import git_fence

    top = git_fence(ws)
    return None if top is None or os.path.realpath(top) == os.path.realpath(ws) else str(top)


# What the host receives for an answer: Codex has no "ask" — okfpro answers it a deny naming the owner.
HOST_RECEIVES = {("codex", "ask"): "deny"}


def read_settings(path: Path) -> Any:
    """A host's settings as the host reads them: Gemini CLI strips comments first (JSON with comments)."""
    from okfpro.core.jsonc import loads_commented

    text = path.read_text(encoding="utf-8")
    return loads_commented(text) if path.name == "settings.json" and path.parent.name == ".gemini" else json.loads(text)


# --------------------------------------------------------------------------- the rest of the loop


def pin_check(ws: Path) -> dict[str, Any]:
    pin = ws / ".claude" / "hooks" / "okfpro-python"
    if not pin.is_file():
        return {"check": "interpreter pin", "host": None, "ok": False,
                "detail": f"{pin.relative_to(ws)} is missing: the hooks fall back to an okfpro on PATH (run `okfpro init` again)"}
    python = (pin.read_text(encoding="utf-8", errors="replace").strip().splitlines() or [""])[0].strip()
    if not (python and os.path.isfile(python) and os.access(python, os.X_OK)):
        return {"check": "interpreter pin", "host": None, "ok": False, "detail": f"the pin names {python!r}, which is not an executable"}
    if python != os.path.abspath(sys.executable):  # a pin this okfpro did not write: named, never run
        return {"check": "interpreter pin", "host": None, "ok": False,
                "detail": f"the pin names {python!r}, not this okfpro's interpreter ({os.path.abspath(sys.executable)}): "
                          "not okfpro's, not run (`okfpro upgrade` rewrites it for this machine)"}
    proc = subprocess.run([python, "-P", "-m", "okfpro", "hook", "check", "guard-verified"], input=b"{}",
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=TIMEOUT)
    ok = b"okfpro-enforcer v1" in proc.stderr.splitlines()
    return {"check": "interpreter pin", "host": None, "ok": ok,
            "detail": f"{python} runs okfpro" if ok else f"{python} does not run okfpro: {proc.stderr.decode(errors='replace')[-300:]}"}


def _pre_commit_cmd() -> list[str] | None:
    try:
        import pre_commit  # noqa: F401

        return [sys.executable, "-m", "pre_commit"]
    except ImportError:
        exe = shutil.which("pre-commit")
        return [exe] if exe else None


def precommit_checks(ws: Path, drift: list[str] | None = None) -> list[dict[str, Any]]:
    from okfpro.io.roots import git_fence

    out: list[dict[str, Any]] = []
    top = git_fence(ws.resolve())
    hook = Path(top, ".git", "hooks", "pre-commit") if top else None
    installed = bool(hook and hook.is_file() and "pre-commit" in hook.read_text(errors="replace"))
    out.append({"check": "pre-commit installed", "host": None, "ok": installed,
                "detail": "the commit door runs on every commit" if installed else "run `pre-commit install` here: the commit door is off"})
    cmd = _pre_commit_cmd()
    if not installed:
        return out  # the hooks run on no commit: running them here would prove nothing about the door
    if cmd is None or not (ws / PRECOMMIT).is_file():
        out.append({"check": "pre-commit hooks", "host": None, "ok": False,
                    "detail": "pre-commit is not installed" if cmd is None else f"no {PRECOMMIT}"})
        return out
    import yaml

    from okfpro.io.scaffold import template_root

    want = {h["id"]: h for r in yaml.safe_load((template_root() / "owned" / PRECOMMIT).read_text(encoding="utf-8"))["repos"]
            for h in r["hooks"]}
    try:
        config = yaml.safe_load((ws / PRECOMMIT).read_text(encoding="utf-8")) or {}
        wired = [(r.get("repo"), h) for r in config.get("repos", []) or [] for h in r.get("hooks", []) or []
                 if str(h.get("id", "")).startswith("okfpro-") or h.get("id") in want]
    except (OSError, ValueError, AttributeError, yaml.YAMLError) as exc:
        out.append({"check": "pre-commit hooks", "host": None, "ok": False, "detail": f"{PRECOMMIT} cannot be read ({exc})"})
        return out
    foreign = [h.get("id") for repo, h in wired if repo != "local" or want.get(h.get("id")) != h]
    if foreign or drift:
        why = (f"{PRECOMMIT}'s {', '.join(map(str, foreign))} is not what `okfpro init` writes" if foreign
               else "; ".join(drift or []))
        out.append({"check": "pre-commit hooks", "host": None, "ok": False,
                    "detail": f"not okfpro's, not run: {why} (`okfpro upgrade` rewrites it)"})
        return out
    ids = [h.get("id") for _, h in wired]
    failed = []
    for hook_id in ids:
        # the template's config, which holds okfpro's hooks alone: pre-commit reads (and fetches) no other repository
        proc = subprocess.run([*cmd, "run", "--config", str(template_root() / "owned" / PRECOMMIT), hook_id, "--all-files",
                               "--color", "never"], cwd=str(ws),
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=600)
        if proc.returncode != 0:
            failed.append(f"{hook_id}: {proc.stdout.decode(errors='replace').strip()[-400:]}")
    out.append({"check": "pre-commit hooks", "host": None, "ok": not failed and bool(ids),
                "detail": "; ".join(failed) if failed else (f"{len(ids)} okfpro hooks pass" if ids else "no okfpro hook configured")})
    return out


def identity_check(ws: Path) -> dict[str, Any]:
    # -P: the workspace (the working directory) is not on the import path, so its files are never imported
    proc = subprocess.run([sys.executable, "-P", "-m", "okfpro", "whoami", "--json"], cwd=str(ws), stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, timeout=TIMEOUT)
    try:
        who = json.loads(proc.stdout)
    except ValueError:
        return {"check": "identity", "host": None, "ok": False, "detail": proc.stderr.decode(errors="replace")[-300:]}
    ok = bool(who.get("resolved")) and not who.get("poisoned")
    return {"check": "identity", "host": None, "ok": ok,
            "detail": f"mode {who.get('mode')}, " + ("resolved" if ok else f"not resolved: {who.get('reason')}")}


def memory_check(ws: Path) -> dict[str, Any]:
    from okfpro.io.config import load

    root = ws / str(load(ws).get("memory", "root", ".okf-memory"))
    if not root.exists():
        return {"check": "memory fsck", "host": None, "ok": True, "detail": f"{root.name} not created yet"}
    repos = [p.parent for p in root.rglob(".git")] + ([root] if (root / "HEAD").is_file() else [])
    if not repos:
        return {"check": "memory fsck", "host": None, "ok": True, "detail": "no memory repository yet"}
    bad = []
    for repo in repos:
        proc = subprocess.run(["git", "-C", str(repo), "fsck", "--no-progress", "--no-dangling"], stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, timeout=300)
        if proc.returncode != 0:
            bad.append(f"{repo}: {proc.stdout.decode(errors='replace').strip()[-300:]}")
    return {"check": "memory fsck", "host": None, "ok": not bad,
            "detail": "; ".join(bad) if bad else f"{len(repos)} repositor{'y' if len(repos) == 1 else 'ies'} clean"}


def codex_hooks_list(codex: str, cwd: Path, env: dict[str, str] | None = None) -> list[dict[str, Any]]:
    """Codex's own answer to the app-server JSON-RPC ``hooks/list`` for CWD: its ``data`` entries."""
    proc = subprocess.Popen([codex, "app-server"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, cwd=str(cwd), env=env)
    assert proc.stdin and proc.stdout
    stdin, stdout = proc.stdin, proc.stdout
    try:
        def call(id_: int, method: str, params: dict[str, Any]) -> dict[str, Any]:
            stdin.write(json.dumps({"id": id_, "method": method, "params": params}) + "\n")
            stdin.flush()
            while True:
                line = stdout.readline()
                if not line:
                    raise RuntimeError("codex app-server ended: " + (proc.stderr.read() if proc.stderr else "")[-500:])
                msg = json.loads(line)
                if msg.get("id") == id_:
                    if "error" in msg:
                        raise RuntimeError(f"codex app-server: {msg['error']}")
                    return msg.get("result") or {}

        call(1, "initialize", {"clientInfo": {"name": "okfpro-doctor", "version": "1"}})
        proc.stdin.write(json.dumps({"method": "initialized"}) + "\n")
        proc.stdin.flush()
        return call(2, "hooks/list", {"cwds": [str(cwd)]}).get("data", [])
    finally:
        proc.stdin.close()
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


def codex_trust_check(ws: Path) -> dict[str, Any]:
    """Codex runs project hooks only when trusted; ask Codex itself (app-server hooks/list) when it is here."""
    codex = shutil.which("codex")
    name = "codex trust"
    if codex is None:
        return {"check": name, "host": "codex", "ok": False,
                "detail": "codex is not on PATH, so its hook trust cannot be read; in Codex, trust the project and review its hooks (/hooks)"}
    try:
        data = codex_hooks_list(codex, ws)
    except Exception as exc:  # noqa: BLE001 - any failure is "cannot tell", said as such
        return {"check": name, "host": "codex", "ok": False, "detail": f"codex app-server could not answer ({exc})"}
    hooks = [h for entry in data for h in entry.get("hooks", []) if is_ours(h.get("command"))]
    problems = [f"{w}" for entry in data for w in entry.get("warnings", []) + [e.get("message") for e in entry.get("errors", [])]]
    if not hooks:
        return {"check": name, "host": "codex", "ok": False,
                "detail": "Codex lists none of okfpro's hooks here: trust the project in Codex first" + (f" ({'; '.join(problems)})" if problems else "")}
    untrusted = sorted({h["eventName"] for h in hooks if h.get("trustStatus") not in ("trusted", "managed") or not h.get("enabled")})
    if untrusted:
        return {"check": name, "host": "codex", "ok": False,
                "detail": f"Codex will not run okfpro's {', '.join(untrusted)} hooks until you review and trust them (/hooks in Codex)"}
    return {"check": name, "host": "codex", "ok": True, "detail": f"{len(hooks)} hooks trusted"}


def gemini_trust_check(ws: Path, env: dict[str, str] | None = None) -> dict[str, Any]:
    """Gemini CLI (0.61) loads a workspace's settings — and so its hooks — only in a trusted folder.

    Read as Gemini's checkPathTrust does: ``GEMINI_RESTRICTED_MODE=true`` or
    ``GEMINI_CLI_TRUST_WORKSPACE=false`` distrust, ``GEMINI_CLI_TRUST_WORKSPACE=true`` trusts; folder
    trust off in the user's settings (``security.folderTrust.enabled: false``) trusts every folder; else
    ``trustedFolders.json`` (``$GEMINI_CLI_TRUSTED_FOLDERS_PATH``, or ``~/.gemini/`` under
    ``$GEMINI_CLI_HOME`` or the home directory; JSON with comments): the longest rule path whose folder
    (its parent for ``TRUST_PARENT``) holds the workspace decides; no rule means not trusted yet."""
    env = dict(os.environ if env is None else env)
    name = "gemini trust"
    row = {"check": name, "host": "gemini"}
    if env.get("GEMINI_RESTRICTED_MODE") == "true" or env.get("GEMINI_CLI_TRUST_WORKSPACE") == "false":
        return {**row, "ok": False, "detail": "this environment distrusts every folder (GEMINI_RESTRICTED_MODE / "
                                              "GEMINI_CLI_TRUST_WORKSPACE): Gemini runs none of okfpro's hooks"}
    if env.get("GEMINI_CLI_TRUST_WORKSPACE") == "true":
        return {**row, "ok": True, "detail": "GEMINI_CLI_TRUST_WORKSPACE=true trusts this folder"}
    from okfpro.core.jsonc import loads_commented

    home = Path(env.get("GEMINI_CLI_HOME") or env.get("HOME") or os.path.expanduser("~"))  # node: os.homedir()
    runtime = home / (".cache/.gemini" if env.get("SANDBOX") == "sandbox-exec" else ".gemini")
    try:
        user = loads_commented((home / ".gemini" / "settings.json").read_text(encoding="utf-8"))
        enabled = ((user.get("security") or {}).get("folderTrust") or {}).get("enabled", True) if isinstance(user, dict) else True
    except (OSError, ValueError, AttributeError):
        enabled = True
    if enabled is False:
        return {**row, "ok": True, "detail": "folder trust is off in your Gemini settings: every folder is trusted"}
    path = Path(env.get("GEMINI_CLI_TRUSTED_FOLDERS_PATH") or runtime / "trustedFolders.json")
    try:
        rules = loads_commented(path.read_text(encoding="utf-8")) if path.exists() else {}
    except (OSError, ValueError) as exc:
        return {**row, "ok": False, "detail": f"{path} cannot be read ({exc}); Gemini refuses to start until it is fixed"}
    if not isinstance(rules, dict):
        return {**row, "ok": False, "detail": f"{path} is not a JSON object; Gemini refuses to start until it is fixed"}
    here = os.path.realpath(ws)
    best: tuple[int, str] | None = None
    for rule, level in rules.items():
        if level not in ("TRUST_FOLDER", "TRUST_PARENT", "DO_NOT_TRUST"):
            return {**row, "ok": False, "detail": f"{path}: {level!r} for {rule!r} is not a trust level; Gemini refuses to start"}
        folder = os.path.dirname(rule) if level == "TRUST_PARENT" else rule
        rel = os.path.relpath(here, os.path.realpath(os.path.abspath(folder)))
        if not rel.startswith(".." + os.sep) and rel != ".." and not os.path.isabs(rel):
            if best is None or len(rule) > best[0]:
                best = (len(rule), level)
    if best is not None and best[1] != "DO_NOT_TRUST":
        return {**row, "ok": True, "detail": f"trusted in {path}"}
    said = "distrusted" if best is not None else "not trusted yet"
    return {**row, "ok": False, "detail": f"this folder is {said} in Gemini ({path}): Gemini loads none of "
                                          ".gemini/settings.json here, so it runs none of okfpro's hooks — trust the "
                                          "folder when Gemini asks (or /permissions in Gemini)"}


def is_workspace(ws: Path) -> bool:
    """Something of okfpro's is here: okfpro.toml, or a host's wiring that names okfpro's launchers (a home
    directory's own ``.claude/settings.json`` is not a workspace)."""
    if (ws / "okfpro.toml").is_file():
        return True
    for rel in JSON_WIRING.values():
        try:
            if is_ours((ws / rel).read_text(encoding="utf-8", errors="replace")):
                return True
        except OSError:
            continue
    return False


def enclosing_workspace(directory: Path) -> Path | None:
    """The nearest directory above ``directory`` that is an okfpro workspace, if any."""
    for parent in directory.resolve().parents:
        if is_workspace(parent):
            return parent
    return None


def diagnose(ws: Path, run_foreign: bool = False, show: Any = None) -> dict[str, Any]:
    ws = ws.resolve()
    if not is_workspace(ws):
        return {"root": str(ws), "workspace": False, "hosts": [], "ok": False, "checks": []}
    drift = launcher_drift(ws)
    checks: list[dict[str, Any]] = [pin_check(ws)]
    if drift:
        checks.append({"check": "launchers", "host": None, "ok": False,
                       "detail": "; ".join(drift) + ": okfpro's commands that reach them are not run (`okfpro upgrade`)"})
    hosts = [h for h, rel in JSON_WIRING.items() if (ws / rel).is_file()]
    if not hosts:
        checks.append({"check": "hosts", "host": None, "ok": False, "detail": "no agent host is wired here"})
    for host in hosts:
        checks.extend(host_checks(host, ws, drift, run_foreign, show))
        if host == "codex":
            checks.append(codex_trust_check(ws))
        if host == "gemini":
            checks.append(gemini_trust_check(ws))
    checks.extend(precommit_checks(ws, drift))
    checks.append(identity_check(ws))
    checks.append(memory_check(ws))
    if drift or not checks[0]["ok"]:
        checks.append({"check": "merge driver", "host": None, "ok": False,
                       "detail": "not run: the interpreter pin or the launchers are not what `okfpro init` writes"})
    else:
        from okfpro.io.mergewiring import check as merge_driver_check

        checks.append(merge_driver_check(ws))
    return {"root": str(ws), "workspace": True, "hosts": hosts, "ok": all(c["ok"] for c in checks), "checks": checks}
