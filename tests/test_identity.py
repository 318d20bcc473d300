"""Identity resolution: order, provenance, fail-closed multi-user mode, session binding."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from okfpro.io import identity as _identity

REPO = Path(__file__).resolve().parents[1]


def ws(tmp_path: Path, toml: str = "") -> Path:
    (tmp_path / "okfpro.toml").write_text(textwrap.dedent(toml))
    return tmp_path


def test_config_then_env_part_by_part(tmp_path):
    w = ws(tmp_path, '[identity]\ntenant = "acme"\nuser = "alice"\nagent = "claude"\n')
    res = _identity.resolve(w, {}, env={"OKFPRO_USER": "bob"})
    assert (res.scope.tenant, res.scope.user, res.scope.agent) == ("acme", "bob", "claude")
    assert res.provenance["tenant"] == "config:okfpro.toml"
    assert res.provenance["user"] == "env:OKFPRO_USER"
    assert res.provenance["agent"] == "config:okfpro.toml"
    assert not res.fallback


def test_local_fallback_is_labelled(tmp_path):
    res = _identity.resolve(ws(tmp_path), {}, env={})
    assert res.ok and res.fallback
    assert res.provenance.get("user", "").startswith("fallback:") or res.scope.user is None
    assert res.scope.tenant is None


def test_multi_user_without_identity_fails_closed(tmp_path):
    w = ws(tmp_path, '[memory]\nmode = "multi-user"\n')
    res = _identity.resolve(w, {"session_id": "s1"}, env={})
    assert res.scope is None and not res.capture_allowed and not res.recall_allowed
    assert "fail closed" in res.reason
    assert not (w / ".tmp").exists()  # nothing bound for a refused identity
    ok = _identity.resolve(w, {"session_id": "s1"}, env={"OKFPRO_TENANT": "acme", "OKFPRO_USER": "alice"})
    assert ok.ok and not ok.fallback


def test_identity_never_comes_from_prompt_or_transcript(tmp_path):
    w = ws(tmp_path)
    env = {"OKFPRO_TENANT": "acme", "OKFPRO_USER": "alice"}
    transcript = tmp_path / "t.jsonl"
    transcript.write_text(json.dumps({"type": "user", "message": {"role": "user", "content": "user_id=bob"}}) + "\n")
    event = {
        "session_id": "s-1",
        "prompt": "I am bob, user_id=bob, tenant_id=globex",
        "transcript_path": str(transcript),
        "user": "bob",
        "tenant": "globex",
        "user_id": "bob",
    }
    res = _identity.resolve(w, event, env=env)
    assert (res.scope.tenant, res.scope.user) == ("acme", "alice")


def test_session_binding_detects_a_change_and_stays_poisoned(tmp_path):
    """An identity change from okfpro.toml (where identity is configured) latches the session."""
    w = ws(tmp_path, '[identity]\ntenant = "acme"\nuser = "alice"\n')
    first = _identity.resolve(w, {"session_id": "sess-1"}, env={})
    assert first.ok and first.bound and first.scope.session == "sess-1"
    files = list((w / ".tmp" / "okfpro-identity").glob("*.json"))
    assert len(files) == 1 and "sess-1" not in files[0].name
    assert _identity.resolve(w, {"session_id": "sess-1"}, env={}).bound
    (w / "okfpro.toml").write_text('[identity]\ntenant = "acme"\nuser = "bob"\n')
    changed = _identity.resolve(w, {"session_id": "sess-1"}, env={})
    assert changed.scope is None and changed.poisoned and not changed.capture_allowed
    # latched: even the original identity is refused for the rest of that session
    (w / "okfpro.toml").write_text('[identity]\ntenant = "acme"\nuser = "alice"\n')
    again = _identity.resolve(w, {"session_id": "sess-1"}, env={})
    assert again.poisoned and again.scope is None
    # another session is unaffected
    assert _identity.resolve(w, {"session_id": "sess-2"}, env={}).ok


@pytest.mark.parametrize("toml", ["", '[identity]\ntenant = "acme"\n', '[memory]\nmode = "multi-user"\n'])
def test_knowing_a_session_id_cannot_switch_off_its_owners_memory(tmp_path, toml):
    """Issue #10 residual: a caller whose identity comes from the environment or the OS login
    and who presents alice's session id is refused, but never latches her session."""
    w = ws(tmp_path, toml)
    alice = {"OKFPRO_TENANT": "acme", "OKFPRO_USER": "alice"}
    assert _identity.resolve(w, {"session_id": "sess-1"}, env=alice).bound
    callers = [{"OKFPRO_TENANT": "acme", "OKFPRO_USER": "mallory"}, {"OKFPRO_TENANT": "globex", "OKFPRO_USER": "alice"},
               {"OKFPRO_TENANT": "acme", "OKFPRO_USER": "alice", "OKFPRO_AGENT": "bot"}, {}]
    for env in callers:
        for _ in range(2):
            other = _identity.resolve(w, {"session_id": "sess-1"}, env=env)
            assert other.scope is None and not other.poisoned and not other.capture_allowed, env
            assert "alice" not in json.dumps(other.to_json())
        still = _identity.resolve(w, {"session_id": "sess-1"}, env=alice)
        assert still.ok and still.bound and not still.poisoned, env
    binding = json.loads(next((w / ".tmp" / "okfpro-identity").glob("*.json")).read_text())
    assert binding["poisoned"] is False and binding["user"] == "alice"


@pytest.mark.parametrize("multi", [False, True])
def test_a_bound_session_id_never_supplies_the_identity(tmp_path, multi):
    w = ws(tmp_path)
    if multi:
        (w / "okfpro.toml").write_text('[memory]\nmode = "multi-user"\n')
    _identity.resolve(w, {"session_id": "sess-9"}, env={"OKFPRO_TENANT": "acme", "OKFPRO_USER": "alice"})
    # a caller with no identity of its own presents alice's session id (event or environment)
    for event, env in (({"session_id": "sess-9"}, {}), (None, {"OKFPRO_SESSION": "sess-9"})):
        later = _identity.resolve(w, event, env=env, bind=False)
        assert later.scope is None or later.scope.user != "alice"
        assert "alice" not in json.dumps(later.to_json())
    # and a different independently resolved identity is refused, not merged
    other = _identity.resolve(w, None, env={"OKFPRO_SESSION": "sess-9", "OKFPRO_USER": "mallory"}, bind=False)
    assert other.scope is None


def test_whoami_style_resolution_does_not_bind(tmp_path):
    w = ws(tmp_path)
    _identity.resolve(w, {"session_id": "s"}, env={"OKFPRO_USER": "alice"}, bind=False)
    assert not (w / ".tmp").exists()


@pytest.mark.parametrize("bad", ["../evil", "a/b", "has space", "_local"])
def test_invalid_parts_are_refused(tmp_path, bad):
    res = _identity.resolve(ws(tmp_path), {}, env={"OKFPRO_USER": bad})
    assert res.scope is None and res.reason.startswith("identity:")


def test_identity_hash_is_not_the_raw_id(tmp_path):
    res = _identity.resolve(ws(tmp_path), {}, env={"OKFPRO_TENANT": "acme", "OKFPRO_USER": "alice"})
    h = res.key_hash()
    assert len(h) == 16 and "alice" not in h and h != _identity.identity_hash(_identity.Scope("acme", "bob"))


# ---------------------------------------------------------------------------------------
# a real host resolver, registered as an entry point of a real (tiny) distribution


def _resolver_dist(tmp_path: Path, body: str) -> Path:
    site = tmp_path / "site"
    (site / "acme_identity-1.0.dist-info").mkdir(parents=True)
    (site / "acme_identity-1.0.dist-info" / "METADATA").write_text("Metadata-Version: 2.1\nName: acme-identity\nVersion: 1.0\n")
    (site / "acme_identity-1.0.dist-info" / "entry_points.txt").write_text("[okfpro.identity]\nacme = acme_identity:resolve\n")
    (site / "acme_identity.py").write_text(textwrap.dedent(body))
    return site


def _whoami(cwd: Path, site: Path | None, env_extra: dict | None = None, *args: str):
    env = {k: v for k, v in os.environ.items() if not k.startswith("OKFPRO_")}
    env["PYTHONPATH"] = os.pathsep.join([str(REPO)] + ([str(site)] if site else []))
    env.update(env_extra or {})
    return subprocess.run([sys.executable, "-m", "okfpro", "whoami", "--json", *args], cwd=cwd, env=env,
                          capture_output=True, text=True)


def test_host_resolver_wins_over_env_and_config(tmp_path):
    (tmp_path / "w").mkdir()
    w = ws(tmp_path / "w", '[memory]\nmode = "multi-user"\n[identity]\nuser = "carol"\n')
    site = _resolver_dist(tmp_path, """
        def resolve(ctx):
            assert ctx["session_id"] == "sess-7"
            return {"tenant": "acme", "user": "alice", "agent": "claude"}
    """)
    res = _whoami(w, site, {"OKFPRO_USER": "mallory"}, "--session", "sess-7")
    assert res.returncode == 0, res.stderr
    data = json.loads(res.stdout)
    assert data["scope"] == {"tenant": "acme", "user": "alice", "agent": "claude", "session": "sess-7"}
    assert data["provenance"]["user"] == "resolver:acme"
    assert "mallory" not in res.stdout and "carol" not in res.stdout


@pytest.mark.parametrize(
    "body,needle",
    [("def resolve(ctx):\n    return None\n", "returned no identity"),
     ("def resolve(ctx):\n    raise RuntimeError('token=abc')\n", "failed (RuntimeError)")],
)
def test_host_resolver_none_or_crash_fails_closed_in_multi_user(tmp_path, body, needle):
    (tmp_path / "w").mkdir()
    w = ws(tmp_path / "w", '[memory]\nmode = "multi-user"\n')
    site = _resolver_dist(tmp_path, body)
    res = _whoami(w, site, {"OKFPRO_TENANT": "acme", "OKFPRO_USER": "alice"})
    assert res.returncode == 1
    data = json.loads(res.stdout)
    assert data["resolved"] is False and needle in data["reason"]
    assert "abc" not in res.stdout  # the exception's text never surfaces


def test_whoami_text_and_exit_codes(tmp_path):
    w = ws(tmp_path, '[identity]\ntenant = "acme"\n')
    env = {k: v for k, v in os.environ.items() if not k.startswith("OKFPRO_")}
    env.update(PYTHONPATH=str(REPO), OKFPRO_USER="alice")
    out = subprocess.run([sys.executable, "-m", "okfpro", "whoami"], cwd=w, env=env, capture_output=True, text=True)
    assert out.returncode == 0
    assert "tenant=acme user=alice" in out.stdout and "env:OKFPRO_USER" in out.stdout and "config:okfpro.toml" in out.stdout
    (w / "okfpro.toml").write_text("[memory\n")
    bad = subprocess.run([sys.executable, "-m", "okfpro", "whoami"], cwd=w, env=env, capture_output=True, text=True)
    assert bad.returncode == 2


def test_the_entry_point_check_follows_every_change_on_disk(tmp_path, monkeypatch):
    """_declared_anywhere reads the folders afresh on each call: a distribution installed, removed,
    or its entry_points.txt rewritten in place (same size, times put back) is each seen at once."""
    site = tmp_path / "site"
    site.mkdir()
    plain = site / "plain-1.0.dist-info"
    plain.mkdir()
    (plain / "entry_points.txt").write_text("[console_scripts]\nplain = plain:main\n")
    bare = site / "bare-1.0.dist-info"
    bare.mkdir()
    monkeypatch.setattr(sys, "path", [str(site)])

    def declared() -> bool:
        return _identity._declared_anywhere()

    assert declared() is False
    # an entry point written into a distribution that had none
    (bare / "entry_points.txt").write_text("[okfpro.identity]\nacme = acme:resolve\n")
    assert declared() is True
    (bare / "entry_points.txt").unlink()
    assert declared() is False
    assert declared() is False
    # a file rewritten in place: same size, its modification time put back
    points = plain / "entry_points.txt"
    st = points.stat()
    text = points.read_text()
    points.write_text(text.replace("[console_scripts]", "[okfpro.identity]".ljust(len("[console_scripts]"))))
    os.utime(points, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert points.stat().st_size == st.st_size
    assert declared() is True
    assert declared() is True
    points.write_text(text)
    assert declared() is False
    # a new distribution installed beside them, then removed
    new = site / "acme_identity-1.0.dist-info"
    new.mkdir()
    (new / "entry_points.txt").write_text("[okfpro.identity]\nacme = acme_identity:resolve\n")
    assert declared() is True
    assert declared() is True
    (new / "entry_points.txt").unlink()
    new.rmdir()
    assert declared() is False
