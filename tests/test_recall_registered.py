"""Recall draws knowledge from the registered bundles the workspace lists (``[knowledge] bundles``).

Through the real hook door of a real workspace (``okfpro init``, the installed
``.claude/hooks/user_prompt_submit.py``, a real registry file): blocks from a registered bundle
are labelled ``bundle:@slug``, share the knowledge budget with the workspace's own bundle, and
reading them writes nothing into their trees.  A listed bundle that is gone costs only itself.
"""

from __future__ import annotations

import json
import os
import re

import pytest

from tests.helpers import invoke
from tests.test_memory_hooks_e2e import launch

ALICE = {"OKFPRO_TENANT": "acme", "OKFPRO_USER": "alice", "OKFPRO_TODAY": "2026-11-30"}


def _tree(root):
    return {os.path.relpath(os.path.join(d, n), root) for d, ds, fs in os.walk(root) for n in ds + fs}


def _handbook(base, n=1, words="The deploy window opens Tuesdays at noon."):
    okf = base / ".okf"
    okf.mkdir(parents=True)
    (okf / "index.md").write_text('---\nokf_version: "0.2"\n---\n# Map\n')
    for i in range(n):
        (okf / f"deploy-{i}.md").write_text(
            f"---\ntype: Process\ntitle: Deploy window {i}\nupdated: 2026-11-20\n---\n{words} Note {i}.\n")
    (base / "okfpro.toml").write_text("")  # another okfpro workspace: only read from here
    return base


@pytest.fixture
def setup(tmp_path):
    ws = tmp_path / "ws"
    assert invoke("init", str(ws)).returncode == 0
    (ws / ".okf" / "deploy-own.md").write_text(
        "---\ntype: Note\ntitle: Our deploy checklist\n---\nBefore the deploy window: freeze, tag.\n")
    hb = _handbook(tmp_path / "handbook")
    api = _handbook(tmp_path / "api", words="Nothing about releases here.")
    env = {**ALICE, "OKFPRO_HOME": str(tmp_path / "home"), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    pristine = (_tree(hb), _tree(api))
    for d, slug in ((hb, "handbook"), (api, "api")):
        assert invoke("registry", "set", str(d), "--as", slug, env=env, cwd=tmp_path).returncode == 0
    assert (_tree(hb), _tree(api)) == pristine
    return ws, hb, api, env


def _configure(ws, line):
    toml = ws / "okfpro.toml"
    base = toml.read_text().split("\n[knowledge]\n")[0]
    toml.write_text(base + f"\n[knowledge]\n{line}\n")


def _recall(ws, env, prompt="when is the deploy window?"):
    proc = launch(ws, "user_prompt_submit.py",
                  {"hook_event_name": "UserPromptSubmit", "session_id": "s1", "cwd": str(ws), "prompt": prompt}, env)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout) if proc.stdout.strip() else {}
    return out.get("hookSpecificOutput", {}).get("additionalContext", ""), proc.stderr


def test_listed_bundles_are_recalled_labelled_by_bundle(setup):
    ws, hb, api, env = setup
    text, _ = _recall(ws, env)
    assert "Our deploy checklist" in text and "Deploy window 0" not in text  # not listed: not read
    _configure(ws, 'bundles = ["@handbook"]')
    before = (_tree(hb), _tree(api))
    text, err = _recall(ws, env)
    assert "Our deploy checklist" in text, err
    assert re.search(r'source="bundle:@handbook"[^>]*>', text) and "Deploy window 0" in text
    assert re.search(r'source="bundle"', text)  # the workspace's own block keeps its label
    assert (_tree(hb), _tree(api)) == before  # no cache, no index in the registered bundle's tree


def test_a_group_or_all_and_the_budget_holds(setup, tmp_path):
    ws, hb, api, env = setup
    big = _handbook(tmp_path / "big", n=40, words="Deploy window deploy window deploy window " * 30)
    assert invoke("registry", "set", str(big), "--as", "big", env=env).returncode == 0
    assert invoke("registry", "group", "docs", "@handbook", "@big", env=env).returncode == 0
    toml = ws / "okfpro.toml"
    toml.write_text(toml.read_text().replace("budget_tokens = 2000", "budget_tokens = 400"))
    _configure(ws, 'bundles = ["@docs"]')
    text, _ = _recall(ws, env)
    labels = set(re.findall(r'source="(bundle[^"]*)"', text))
    assert labels and labels <= {"bundle", "bundle:@handbook", "bundle:@big"}
    assert len(text) < 400 * 4 * 1.3  # the knowledge share of the same budget, not one per bundle
    _configure(ws, 'bundles = ["@all"]')
    text, err = _recall(ws, env)
    assert "bundle:@" in text, err


def test_a_missing_listed_bundle_costs_only_itself(setup, tmp_path):
    ws, hb, api, env = setup
    _configure(ws, 'bundles = ["@handbook", "@nope"]')
    text, err = _recall(ws, env)
    assert "Deploy window 0" in text and "Our deploy checklist" in text
    import shutil

    shutil.rmtree(hb)
    text, err = _recall(ws, env)
    assert "Our deploy checklist" in text and "Deploy window" not in text


def test_the_workspace_registry_decides(setup, tmp_path):
    """A committed .okf.json in the workspace is the registry its recall resolves through."""
    ws, hb, api, env = setup
    assert invoke("registry", "init", cwd=ws, env=env).returncode == 0
    assert invoke("registry", "set", str(api), "--as", "handbook", cwd=ws, env=env).returncode == 0
    _configure(ws, 'bundles = ["@handbook"]')
    text, _ = _recall(ws, env, "what about releases here?")
    assert "bundle:@handbook" in text and "Nothing about releases" in text
