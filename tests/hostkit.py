"""The three agent hosts as shipped, for tests and ``okfpro doctor``'s own tests.

``installed()`` installs Claude Code, Codex CLI and Gemini CLI from the npm registry into a cache
directory (``$OKFPRO_HOSTS_DIR``, default ``~/.cache/okfpro/hosts``), once, under a file lock so
parallel test workers share one install; ``.ci/run`` pre-installs them so a test run never waits for
the download.  The versions are pinned: moving to a new host release is a one-line change here, and
the tests then say what the new release changed.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

PACKAGES = {
    "@anthropic-ai/claude-code": "2.1.197",
    "@openai/codex": "0.171.0",
    "@google/gemini-cli": "0.61.0",
    "zod": "4.0.0",  # the zod major/minor Claude Code 2.1.197 bundles: its hook-output schema is evaluated with it
}
HERE = Path(__file__).resolve().parent


def cache_dir() -> Path:
    return Path(os.environ.get("OKFPRO_HOSTS_DIR") or Path.home() / ".cache" / "okfpro" / "hosts")


def _version(root: Path, package: str) -> str | None:
    try:
        return json.loads((root / "node_modules" / package / "package.json").read_text())["version"]
    except (OSError, ValueError, KeyError):
        return None


def installed() -> Path:
    """The cache directory with the pinned hosts installed; skips (with the reason) when npm is absent."""
    npm = shutil.which("npm")
    node = shutil.which("node")
    if npm is None or node is None:
        pytest.skip("npm/node are not installed: the real-host tests need them (.ci/run installs them with apt)")
    root = cache_dir()
    root.mkdir(parents=True, exist_ok=True)
    with open(root / ".install-lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        missing = [f"{p}@{v}" for p, v in PACKAGES.items() if _version(root, p) != v]
        if missing:
            proc = subprocess.run([npm, "install", "--no-audit", "--no-fund", "--prefix", str(root), *missing],
                                  capture_output=True, text=True, timeout=900)
            if proc.returncode != 0:
                pytest.fail(f"npm install {' '.join(missing)} failed:\n{proc.stderr[-3000:]}")
    return root


def bin_path(root: Path, name: str) -> str:
    return str(root / "node_modules" / ".bin" / name)


def codex_native(root: Path) -> Path:
    """The native Codex binary inside the platform package (its embedded hook schemas live there)."""
    for candidate in sorted((root / "node_modules" / "@openai").glob("codex-*/vendor/*/bin/codex")):
        return candidate
    for candidate in sorted((root / "node_modules" / "@openai" / "codex").rglob("codex")):
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate
    raise AssertionError("no native codex binary in the installed @openai/codex")


def codex_schemas(root: Path) -> dict[str, dict]:
    """Codex's hook JSON Schemas (draft-07), as embedded in its binary: title -> schema."""
    data = codex_native(root).read_bytes()
    decoder = json.JSONDecoder()
    out: dict[str, dict] = {}
    for m in re.finditer(rb'"\$schema"', data):
        start = data.rfind(b"{", 0, m.start())
        try:
            obj, _ = decoder.raw_decode(data[start:start + 200_000].decode("utf-8", "replace"))
        except ValueError:
            continue
        title = obj.get("title") if isinstance(obj, dict) else None
        if isinstance(title, str) and title.endswith((".command.input", ".command.output")):
            out[title] = obj
    return out


def gemini_bundle(root: Path) -> Path:
    return root / "node_modules" / "@google" / "gemini-cli" / "bundle"


def gemini(root: Path, ops: list[dict], home: Path) -> list[dict]:
    """Run ops through Gemini CLI's own code (tests/hosts/gemini_kit.mjs)."""
    version = subprocess.run(["node", "--version"], capture_output=True, text=True).stdout.strip().lstrip("v")
    if int((version.split(".")[0] or "0")) < 20:
        pytest.skip(f"Gemini CLI 0.61 needs Node >= 20; this machine has {version or 'no node'}")
    env = dict(os.environ, HOME=str(home), NO_COLOR="1")
    proc = subprocess.run(["node", str(HERE / "hosts" / "gemini_kit.mjs"), str(gemini_bundle(root))],
                          input=json.dumps({"ops": ops}), capture_output=True, text=True, env=env, timeout=300)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")]
    assert proc.returncode == 0 and lines, f"gemini kit failed ({proc.returncode}):\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}"
    return json.loads(lines[-1][len("RESULT "):])


def codex_hooks_list(root: Path, cwd: Path, home: Path, trust_project: bool = True) -> dict:
    """Codex's own answer to the app-server JSON-RPC ``hooks/list`` for CWD (a fresh CODEX_HOME)."""
    codex_home = home / ".codex"
    codex_home.mkdir(parents=True, exist_ok=True)
    if trust_project:
        (codex_home / "config.toml").write_text(f'[projects.{json.dumps(str(cwd))}]\ntrust_level = "trusted"\n')
    env = dict(os.environ, HOME=str(home), CODEX_HOME=str(codex_home))
    from okfpro.io.doctor import codex_hooks_list as ask_codex  # the same client okfpro doctor uses

    return {"data": ask_codex(bin_path(root, "codex"), cwd, env)}


def claude_binary(root: Path) -> Path:
    """Claude Code's native executable (a Bun single-file build: its JavaScript is inside, as text)."""
    for candidate in sorted((root / "node_modules" / "@anthropic-ai").glob("claude-code-*/claude")):
        return candidate
    raise AssertionError("no native claude binary in the installed @anthropic-ai/claude-code")


def _balanced(text: str, start: int) -> int:
    """The index just past the bracket expression that opens at ``text[start]`` (strings and escapes skipped)."""
    depth, i, quote = 0, start, None
    while i < len(text):
        c = text[i]
        if quote:
            if c == "\\":
                i += 1
            elif c == quote:
                quote = None
        elif c in "\"'`":
            quote = c
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    raise AssertionError("unbalanced expression in the Claude Code bundle")


def claude_hook_schema_js(root: Path) -> str:
    """Claude Code's own zod schema for a command hook's JSON output, cut out of its binary as JavaScript.

    Claude Code ships no JSON Schema: it validates hook stdout with ``<schema>().safeParse(JSON.parse(out))``
    (the function that then logs "Successfully parsed and validated hook JSON output").  The schema is a
    lazily built zod union (``{async: true}`` or the full output object); this returns the definitions
    of that schema and of every lazy schema it calls, with the build's own names, plus
    ``HOOK_OUTPUT_SCHEMA`` naming the top one and ``ZOD``/``LAZY`` naming the zod namespace and the lazy
    helper as the build spells them (tests/hosts/claude_schema.mjs binds them to zod 4 and a memo).
    """
    data = claude_binary(root).read_bytes()
    at = data.find(b".object({async:")
    assert at >= 0, "Claude Code's hook-output schema (the {async: true} union) is not where it was"
    text = data[max(0, at - 4_000_000):at + 1_000_000].decode("latin-1")  # the schemas' module, not 245 MB
    top = re.search(r"([\w$]+)=([\w$]+)\(\(\)=>\{let e=([\w$]+)\.object\(\{async:\3\.literal\(!0\)", text)
    assert top, "Claude Code's hook-output schema (the {async: true} union) is not where it was"
    name, lazy, zod = top.group(1), top.group(2), top.group(3)
    user = re.search(r"function [\w$]+\(e\)\{let t=[\w$]+\(e\),n=" + re.escape(name) + r"\(\)\.safeParse\(t\)", text)
    assert user, f"{name}() is no longer what parses hook output"
    done: dict[str, str] = {}
    todo = [name]
    while todo:
        ident = todo.pop()
        if ident in done:
            continue
        m = re.search(r"(?<![\w$])" + re.escape(ident) + r"=" + re.escape(lazy) + r"\(", text)
        assert m, f"no lazy definition of {ident}"
        end = _balanced(text, m.end() - 1)
        body = text[m.start():end]
        done[ident] = body
        for call in re.findall(r"(?<![\w$.])([\w$]+)\(\)", body):
            if call not in done and call != lazy and re.search(r"(?<![\w$])" + re.escape(call) + r"=" + re.escape(lazy) + r"\(", text):
                todo.append(call)
    defs = "\n".join(f"var {body};" for body in reversed(list(done.values())))
    calls = set(re.findall(r"(?<![\w$.])([\w$]+)\(\)", defs)) - set(done) - {lazy}
    # a schema defined outside the window or from a constant (the permission-mode enum of a PermissionRequest
    # answer, which okfpro never sends) is left open rather than guessed
    loose = "".join(f"var {c} = () => {zod}.any(); // not resolved from the bundle\n" for c in sorted(calls))
    aliases = sorted(set(re.findall(r"(?<![\w$.])([\w$]+)\.(?:object|enum|string|literal|union|array|boolean|number"
                                    r"|record|unknown|discriminatedUnion|any)\(", defs)) | {zod})
    return (f"// cut from {claude_binary(root).name}\nvar ZOD_NAMES = {json.dumps(aliases)}, LAZY_NAME = {json.dumps(lazy)};\n"
            f"var HOOK_OUTPUT_SCHEMA = () => {name}();\n{loose}{defs}\n")
