"""Gemini CLI 0.61 as shipped, through its own code (tests/hosts/gemini_kit.mjs): what doctor says of its
trust, how okfpro's refusals reach it, and a commented settings file merged (issues 38.2 and 38.4).

* doctor's reading of ``trustedFolders.json`` agrees with Gemini's own loadSettings for every rule shape;
* okfpro's deliberate block is, for Gemini's HookRunner, a successful hook whose decision blocks — not a
  failed hook (exit 2 is counted as one and shown as "Hook(s) [...] failed");
* ``okfpro init --agent gemini`` over a ``.gemini/settings.json`` with comments keeps every comment, and
  Gemini loads okfpro's hooks from the result; doctor and audit read it too.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from okfpro.io.doctor import gemini_trust_check
from tests import hostkit

pytestmark = pytest.mark.slow
PAST = "2026-11-02"


@pytest.fixture(scope="module")
def hosts() -> Path:
    return hostkit.installed()


def okfpro(*args: str, cwd: Path | None = None, env: dict | None = None) -> subprocess.CompletedProcess:
    import os

    return subprocess.run([sys.executable, "-m", "okfpro", *args], capture_output=True, text=True, cwd=cwd,
                          env={**os.environ, **(env or {})}, timeout=600)


def test_doctor_reads_folder_trust_as_gemini_does(hosts: Path, tmp_path: Path) -> None:
    ws = tmp_path / "a (b)" / "ws"
    ws.mkdir(parents=True)
    (tmp_path / "link").symlink_to(ws)
    rules: list[object | None] = [
        None, {}, {str(ws): "TRUST_FOLDER"}, {str(ws / "inner"): "TRUST_PARENT"}, {str(ws.parent): "TRUST_FOLDER"},
        {str(ws.parent): "TRUST_FOLDER", str(ws): "DO_NOT_TRUST"}, {str(ws.parent): "DO_NOT_TRUST", str(ws): "TRUST_FOLDER"},
        {str(ws) + "-sibling": "TRUST_FOLDER"}, {str(tmp_path / "link"): "TRUST_FOLDER"},
        '{\n  // a comment, as Gemini allows\n  "' + str(ws) + '": "TRUST_FOLDER" /* ok */\n}\n',
    ]
    for n, rule in enumerate(rules):
        home = tmp_path / f"home-{n}"
        (home / ".gemini").mkdir(parents=True)
        if rule is not None:
            (home / ".gemini/trustedFolders.json").write_text(rule if isinstance(rule, str) else json.dumps(rule))
        [loaded] = hostkit.gemini(hosts, [{"op": "load", "workspace": str(ws)}], home)
        ours = gemini_trust_check(ws, {"HOME": str(home)})
        assert ours["ok"] == bool(loaded["trusted"]), (rule, loaded, ours)


def test_a_refusal_reaches_gemini_as_a_refusal_not_a_failure(hosts: Path, tmp_path: Path) -> None:
    ws = tmp_path / "w"
    assert okfpro("init", str(ws), "--agent", "gemini").returncode == 0
    day = ws / f".okf/journal/{PAST}.md"
    day.write_text(f'---\ntype: Journal Entry\ntitle: "{PAST}"\ndescription: A past day.\n---\n\n# {PAST}\n')
    settings = json.loads((ws / ".gemini/settings.json").read_text())
    command = settings["hooks"]["BeforeTool"][0]["hooks"][0]["command"]
    event = {"cwd": str(ws), "session_id": "s1", "hook_event_name": "BeforeTool", "timestamp": "2026-11-30T10:00:00Z",
             "tool_name": "replace", "tool_input": {"file_path": str(day), "old_string": "A past", "new_string": "B"}}
    [r] = hostkit.gemini(hosts, [{"op": "run", "event": "BeforeTool", "command": command, "input": event}], tmp_path / "home")
    assert r["success"] is True and r["exitCode"] == 0 and r["error"] is None, r  # not counted as a failed hook
    assert r["blocking"]["blocked"] and "append-only" in r["blocking"]["reason"], r


def test_a_commented_settings_file_is_merged_keeping_its_comments(hosts: Path, tmp_path: Path) -> None:
    ws = tmp_path / "w"
    (ws / ".gemini").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(ws)], check=True)
    mine = ('// the team\'s Gemini settings\n{\n  "ui": {"theme": "Dracula"}, // dark\n  /* our own hook */\n'
            '  "hooks": {\n    "BeforeTool": [\n      {"matcher": "run_shell_command", "hooks": '
            '[{"type": "command", "command": "true"}]} // keep\n    ]\n  }\n}\n')
    (ws / ".gemini/settings.json").write_text(mine)
    proc = okfpro("init", str(ws), "--agent", "gemini")
    assert proc.returncode == 0 and "NOT ACTIVE" not in proc.stdout, proc.stdout
    text = (ws / ".gemini/settings.json").read_text()
    for comment in ("// the team's Gemini settings", "// dark", "/* our own hook */", "// keep"):
        assert comment in text, text
    assert okfpro("init", str(ws), "--agent", "gemini").returncode == 0
    assert (ws / ".gemini/settings.json").read_text() == text  # a re-run changes nothing
    home = tmp_path / "home"
    (home / ".gemini").mkdir(parents=True)
    (home / ".gemini/trustedFolders.json").write_text(json.dumps({str(ws): "TRUST_FOLDER"}))
    [loaded] = hostkit.gemini(hosts, [{"op": "load", "workspace": str(ws)}], home)
    assert loaded["trusted"] is True and loaded["errors"] == [], loaded
    commands = [h["command"] for groups in loaded["hooks"].values() for g in groups for h in g["hooks"]]
    assert "true" in commands and sum(".claude/hooks/" in c for c in commands) == 6, commands
    assert okfpro("audit", str(ws)).returncode == 0
    rep = json.loads(okfpro("doctor", str(ws), "--json", env={"HOME": str(home)}).stdout)
    checks = {(c["host"], c["check"]): c for c in rep["checks"]}
    assert checks[("gemini", "settings")]["ok"] and checks[("gemini", "gemini trust")]["ok"], rep
    assert checks[("gemini", "BeforeTool [^(write_file|replace|run_shell_command)$]")]["ok"], rep


STRIP_KIT = r"""
const fs = require("fs"), path = require("path");
const dir = process.argv[1];
const marker = '"node_modules/strip-json-comments/index.js"(exports2, module2) {';
for (const name of fs.readdirSync(dir).sort()) {
  if (!name.endsWith(".js")) continue;
  const text = fs.readFileSync(path.join(dir, name), "utf8");
  const at = text.indexOf(marker);
  if (at < 0) continue;
  const body = text.slice(at + marker.length, text.indexOf("\n  }\n});", at));
  const module2 = { exports: {} };
  new Function("exports2", "module2", body)(module2.exports, module2);
  const inputs = JSON.parse(fs.readFileSync(0, "utf8"));
  process.stdout.write(JSON.stringify(inputs.map((s) => module2.exports(s))));
  process.exit(0);
}
process.exit(3);
"""


def test_comments_are_stripped_as_gemini_strips_them(hosts: Path) -> None:
    from okfpro.core.jsonc import strip_comments

    inputs = ['{"a": "x//y", // c\n "b": /* m */ 2}', '{"q": "a\\"//b", "r": "\\\\"} // t', "/*/ x */1//z", "// only",
              '{"u": 1 /* open', '{\r\n  "w": 1 // crlf\r\n}\r\n', '"\\\\\\"" // q', "/**/{}/*\n*/", '{"k": "/* not */"}']
    proc = subprocess.run(["node", "-e", STRIP_KIT, str(hostkit.gemini_bundle(hosts))], input=json.dumps(inputs),
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert [strip_comments(s) for s in inputs] == json.loads(proc.stdout)
