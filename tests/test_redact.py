"""The capture safety layer against a synthetic secrets corpus and ordinary prose.

Every token below is generated here from a seeded RNG: none is live, and the repository
holds no literal secret (so our own pre-commit door stays quiet on this file).
"""

from __future__ import annotations

import base64
import hashlib
import json
import random
import string
import uuid

import pytest

from okfpro.core import redact as R

RNG = random.Random(20261130)
ALNUM = string.ascii_letters + string.digits
UPPER_NUM = string.ascii_uppercase + string.digits
HEX = "0123456789abcdef"
URLSAFE = ALNUM + "-_"


def rs(alphabet: str, n: int) -> str:
    return "".join(RNG.choice(alphabet) for _ in range(n))


def b64url(obj: dict) -> str:
    return base64.urlsafe_b64encode(json.dumps(obj).encode()).decode().rstrip("=")


def _private_key() -> str:
    body = "\n".join(rs(ALNUM + "+/", 64) for _ in range(6))
    kind = "RSA " + "PRIVATE KEY"
    return f"-----BEGIN {kind}-----\n{body}\n-----END {kind}-----"


# (rule id expected, secret, sentence template holding it)
def corpus() -> list[tuple[str, str, str]]:
    jwt = b64url({"alg": "HS256", "typ": "JWT"}) + "." + b64url({"sub": "1234567890", "name": "Jo"}) + "." + rs(URLSAFE, 43)
    rows = [
        ("aws-access-key-id", "AKIA" + rs(UPPER_NUM, 16), "aws configure set aws_access_key_id {s}"),
        ("aws-secret-access-key", rs(ALNUM + "/+", 40), "aws_secret_access_key = {s}"),
        ("github-pat", "ghp_" + rs(ALNUM, 36), "export GH_TOKEN={s}"),
        ("github-oauth", "gho_" + rs(ALNUM, 36), "the oauth grant returned {s} yesterday"),
        ("github-app-token", "ghs_" + rs(ALNUM, 36), "installation token {s}"),
        ("github-fine-grained-pat", "github_pat_" + rs(ALNUM, 22) + "_" + rs(ALNUM, 59), "use {s} for the clone"),
        ("gitlab-token", "glpat-" + rs(URLSAFE, 20), "GITLAB_TOKEN: {s}"),
        ("slack-token", "xoxb-" + rs("0123456789", 12) + "-" + rs("0123456789", 12) + "-" + rs(ALNUM, 24), "bot {s}"),
        ("slack-webhook", "https://hooks.slack.com/services/T" + rs(UPPER_NUM, 8) + "/B" + rs(UPPER_NUM, 8) + "/" + rs(ALNUM, 24), "post to {s} on deploy"),
        ("openai-api-key", "sk-proj-" + rs(URLSAFE, 64), "OPENAI_API_KEY={s}"),
        ("openai-api-key", "sk-" + rs(ALNUM, 48), "legacy key {s}"),
        ("anthropic-api-key", "sk-ant-api03-" + rs(URLSAFE, 93) + "AA", "key {s} in the vault"),
        ("stripe-secret-key", "sk_" + "live_" + rs(ALNUM, 24), "charge with {s}"),
        ("stripe-webhook-secret", "whsec_" + rs(ALNUM, 32), "webhook signing {s}"),
        ("twilio-api-key", "SK" + rs(HEX, 32), "twilio sid {s}"),
        ("sendgrid-api-key", "SG." + rs(URLSAFE, 22) + "." + rs(URLSAFE, 43), "mail via {s}"),
        ("npm-token", "npm_" + rs(ALNUM, 36), "//registry.npmjs.org/:_authToken={s}"),
        ("pypi-token", "pypi-AgEIcHlwaS5vcmc" + rs(URLSAFE, 70), "twine upload -p {s}"),
        ("private-key", _private_key(), "here is the key:\n{s}\nthanks"),
        ("jwt", jwt, "curl -H 'X-Session: {s}'"),
        ("url-credentials", "Pw" + rs(ALNUM, 14), "DATABASE_URL=postgres://app:{s}@db.internal:5432/app"),
        ("google-api-key", "AIza" + rs(URLSAFE, 35), "maps key {s}"),
        ("gcp-oauth-client-secret", "GOCSPX-" + rs(URLSAFE, 28), "client secret {s}"),
        ("google-oauth-token", "ya29." + rs(URLSAFE, 60), "bearer {s}"),
        ("azure-storage-key", rs(ALNUM + "+/", 86) + "==", "DefaultEndpointsProtocol=https;AccountName=x;AccountKey={s};EndpointSuffix=core.windows.net"),
        ("azure-ad-client-secret", rs(ALNUM, 3) + "8Q~" + rs(ALNUM + "_~.", 34), "tenant app secret {s}"),
        ("discord-bot-token", "M" + rs(ALNUM, 23) + "." + rs(URLSAFE, 6) + "." + rs(URLSAFE, 27), "bot login {s}"),
        ("discord-webhook", "https://discord.com/api/webhooks/" + rs("0123456789", 18) + "/" + rs(URLSAFE, 68), "notify {s}"),
        ("telegram-bot-token", rs("123456789", 9) + ":AA" + rs(URLSAFE, 33), "bot {s} polling"),
        ("mailchimp-api-key", rs(HEX, 32) + "-us14", "list api {s}"),
        ("huggingface-token", "hf_" + rs(ALNUM, 34), "HF_TOKEN {s}"),
        ("digitalocean-token", "dop_v1_" + rs(HEX, 64), "doctl auth init -t {s}"),
        ("shopify-token", "shpat_" + rs(HEX, 32), "store token {s}"),
        ("hashicorp-vault-token", "hvs." + rs(URLSAFE, 95), "VAULT_TOKEN {s}"),
        ("databricks-token", "dapi" + rs(HEX, 32), "workspace {s}"),
        ("linear-api-key", "lin_api_" + rs(ALNUM, 40), "linear {s}"),
        ("postman-api-key", "PMAK-" + rs(HEX, 24) + "-" + rs(HEX, 34), "postman {s}"),
        ("age-secret-key", "AGE-SECRET-KEY-1" + rs("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58), "sops age {s}"),
        ("auth-header", rs(ALNUM, 40), "Authorization: Bearer {s}"),
        ("generic-password", "hunter2-XYZ", "remember the deploy password is {s} and we ship on Fridays"),
        ("generic-password", "Tr0ub4dor&3", "DB_PASSWORD={s}"),
        ("generic-secret", rs(ALNUM, 32), 'api_key: "{s}"'),
        ("generic-secret", rs(HEX, 40), "client_secret = {s}"),
    ]
    return rows


CORPUS = corpus()


def test_corpus_covers_at_least_20_provider_formats():
    providers = {rule for rule, _, _ in CORPUS if not rule.startswith("generic-")}
    assert len(providers) >= 20, providers
    assert providers <= set(R.RULE_IDS)


@pytest.mark.parametrize("rule,secret,template", CORPUS, ids=[f"{i}-{r[0]}" for i, r in enumerate(CORPUS)])
def test_every_token_is_redacted_with_a_stable_placeholder(rule, secret, template):
    text = template.format(s=secret)
    out = R.redact(text)
    assert secret not in out.text
    expected = R.placeholder(rule, secret)
    assert expected in out.text, (out.text, out.findings)
    assert expected == f"[REDACTED:{rule}:{hashlib.sha256(secret.encode()).hexdigest()[:8]}]"
    assert (rule, 1) in out.findings
    # stable: the same input redacts the same way; redaction is idempotent
    assert R.redact(text).text == out.text
    assert R.redact(out.text).text == out.text
    # scan reports rule and line, never the value
    found = R.scan(text)
    assert any(f.rule == rule and f.placeholder == expected for f in found)
    assert all(secret not in repr(f) for f in found)


def test_whole_corpus_in_one_document():
    doc = "\n".join(t.format(s=s) for _, s, t in CORPUS)
    out = R.redact(doc)
    leaked = [rule for rule, s, _ in CORPUS if s in out.text]
    assert leaked == []
    assert out.count >= len(CORPUS)


# ---------------------------------------------------------------------------------------
# ordinary technical prose: hashes, UUIDs, base64 fixtures, secret-sounding words


def prose_lines() -> list[str]:
    rng = random.Random(42)

    def sha1() -> str:
        return hashlib.sha1(str(rng.random()).encode()).hexdigest()

    def sha256() -> str:
        return hashlib.sha256(str(rng.random()).encode()).hexdigest()

    def uid() -> str:
        return str(uuid.UUID(int=rng.getrandbits(128), version=4))

    def b64() -> str:
        return base64.b64encode(bytes(rng.getrandbits(8) for _ in range(rng.choice([12, 24, 33, 48])))).decode()

    templates = [
        lambda: f"Fixed the flaky test in commit {sha1()[:12]}; the root cause was a race in the cache warmer.",
        lambda: f"Merge {sha1()} into main after the review from the platform team.",
        lambda: f"The release tarball has sha256 {sha256()} and is signed by the build key.",
        lambda: f"Request id {uid()} timed out after 30 s on the ingest path.",
        lambda: f"Each order gets a UUID such as {uid()} before it reaches the queue.",
        lambda: f"The test fixture payload is `{b64()}` (base64 of random bytes).",
        lambda: f"  assert decode('{b64()}') == expected_bytes",
        lambda: f"git checkout {sha1()[:7]} -- src/parser.py restores the old tokenizer.",
        lambda: "The tokenizer splits on whitespace; each token is lowercased before scoring.",
        lambda: f"Set max_tokens={rng.choice([256, 1024, 4096])} for the summariser; longer outputs were cut.",
        lambda: "Passwords are hashed with argon2id and never logged; see docs/security.md.",
        lambda: "The password field is required and must be at least 12 characters long.",
        lambda: "password: ${DB_PASSWORD} is read from the environment at start-up.",
        lambda: 'api_key = os.environ["PAYMENTS_API_KEY"]  # never hard-code it',
        lambda: "token: string — the bearer token type in the OpenAPI schema.",
        lambda: "Secret rotation runs every 90 days through the vault operator.",
        lambda: "The secret is that the cache key includes the tenant id.",
        lambda: f"cache_key = \"orders:{sha256()[:16]}\" keeps hot entries apart.",
        lambda: f"The Docker image digest is sha256:{sha256()}.",
        lambda: f"ETag: \"{sha1()}\" lets the client skip unchanged pages.",
        lambda: f"Trace {uid()} shows the retry loop spinning on a 409 from the ledger.",
        lambda: "Use `git log --oneline -n 20` to see what landed this week.",
        lambda: "The auth_token column was dropped in migration 0042_drop_legacy_auth.",
        lambda: f"Integrity hash in package-lock: sha512-{b64()}",
        lambda: "Set OKFPRO_TODAY=2026-11-30 to pin the date for reproducible tests.",
        lambda: f"Snapshot {sha256()[:32]} was taken before the schema change.",
        lambda: "We moved the access_key lookup into the credentials provider chain.",
        lambda: f"Object key uploads/{uid()}/report.pdf is written by the export job.",
        lambda: f"HMAC test vector: key=\"key\", message=\"The quick brown fox\", digest={sha256()}",
        lambda: "The session_key is derived per connection and discarded on close.",
        lambda: f"PR #{rng.randint(100, 9999)} bumps pygit2 and fixes the reflog expiry test.",
        lambda: f"Base64 of 'hello world' is aGVsbG8gd29ybGQ=; the fixture {b64()} is random.",
        lambda: "The api_key parameter is optional when the client uses mutual TLS.",
        lambda: f"Benchmark p50 was {rng.randint(8, 40)} ms against {rng.randint(8, 12)} ms for python3 -c pass.",
        lambda: "Connect with postgres://localhost:5432/app for the local database (no credentials).",
        lambda: f"Row version {sha1()[:16]} conflicts with the stored one, so the write is refused.",
        lambda: f"Correlation-Id: {uid()}",
        lambda: "secret_name: orders-db is the Kubernetes secret the pod mounts.",
        lambda: f"Generated id ck_{sha1()[:24]} identifies the checkout session in logs.",
        lambda: "The token budget is 2000 and the split is 0.6 / 0.4 between knowledge and memory.",
    ]
    lines: list[str] = []
    i = 0
    while len(lines) < 200:
        lines.append(templates[i % len(templates)]())
        i += 1
    return lines


def test_prose_false_positive_rate_under_five_percent(capsys):
    lines = prose_lines()
    assert len(lines) == 200
    flagged = [(n, line, R.scan(line)) for n, line in enumerate(lines, 1) if R.scan(line)]
    rate = len(flagged) / len(lines)
    with capsys.disabled():
        print(f"\n[redact] prose false positives: {len(flagged)}/{len(lines)} lines = {rate:.1%}")
        for n, _line, found in flagged:
            print(f"[redact]   line {n}: {[f.rule for f in found]}")
    assert rate < 0.05
    # and the prose is left byte-identical where nothing was found
    for line in lines:
        if not R.scan(line):
            assert R.redact(line).text == line


# ---------------------------------------------------------------------------------------
# behaviour details


def test_scan_reports_one_based_lines_and_no_values():
    key = "ghp_" + rs(ALNUM, 36)
    text = f"first line\nsecond line\nthird has {key}\n"
    found = R.scan(text)
    assert [(f.rule, f.line) for f in found] == [("github-pat", 3)]
    assert key not in str(found)


def test_allow_marker_exempts_tier_b_but_never_tier_a():
    text = "password=Fixture-Passw0rd  # okfpro:allow-secret"
    assert R.scan(text) == []
    key = "AKIA" + rs(UPPER_NUM, 16)
    assert R.scan(f"{key}  # okfpro:allow-secret")[0].rule == "aws-access-key-id"


def test_templates_and_placeholders_are_not_secrets():
    for text in [
        "password=${DB_PASSWORD}",
        "password: <your password>",
        "api_key={{ api_key }}",
        "token = get_token()",
        "secret: changeme",
        "password=********",
        "token: 123e4567-e89b-12d3-a456-426614174000",
        "postgres://user:password@localhost/db",
        r'toml = "[memory]\nbudget_tokens = 600\nknowledge_share = 0.5\n"',  # escapes in source code
    ]:
        assert R.scan(text) == [], text


def test_strip_recall_removes_our_own_blocks():
    recall = (
        f"{R.RECALL_BEGIN}\nReference data.\n<okf-context id=\"memory:user:x\">\nship on Fridays\n"
        f"</okf-context>\n{R.RECALL_END}"
    )
    text = f"before\n{recall}\nafter"
    out = R.strip_recall(text)
    assert "ship on Fridays" not in out and R.RECALL_BEGIN not in out
    assert out.startswith("before") and out.endswith("after")
    # unterminated block: dropped to the end, never kept
    assert "leak" not in R.strip_recall(f"keep\n{R.RECALL_BEGIN}\nleak")
    assert R.strip_recall("<okf-context id=\"k\">\nold recall\n</okf-context>\nnew") == "new"


@pytest.mark.parametrize(
    "reason,text",
    [
        ("credential-file:dotenv", "# app\nDEBUG=1\nDB_HOST=db\nDB_PASSWORD=pw-" + "q" * 6 + "\nPORT=5432\n"),
        (
            "credential-file:aws-credentials",
            "[default]\naws_access_key_id = AKIA" + "X" * 16 + "\naws_secret_access_key = " + "y" * 40 + "\n",
        ),
        ("credential-file:netrc", "machine api.example.com\n  login bot\n  password " + "p" * 12 + "\n"),
        ("credential-file:private-key", _private_key()),
        ("credential-file:pgpass", "db.internal:5432:app:app:" + "s" * 10 + "\n"),
        ("shell-output:ansi-escapes", "\x1b[32mPASS\x1b[0m tests/test_x.py"),
        ("shell-output:env-dump", "PATH=/usr/bin\nHOME=/root\nSHELL=/bin/bash\nUSER=root\nTERM=xterm\n"),
        (
            "shell-output:directory-listing",
            "\n".join(f"-rw-r--r-- 1 root root {100 + i} Nov 30 03:48 f{i}.txt" for i in range(6)),
        ),
    ],
)
def test_refusals(reason, text):
    assert R.refusal(text) == reason
    assert R.sanitise(text).refused == reason
    assert R.sanitise(text).text == ""


def test_ordinary_text_is_not_refused():
    for text in ["We ship on Fridays.", "KEY=value is how dotenv lines look", "see the `ls -l` output above"]:
        assert R.refusal(text) is None


def test_entropy():
    assert R.shannon_entropy("") == 0.0
    assert R.shannon_entropy("aaaa") == 0.0
    assert abs(R.shannon_entropy("abcd") - 2.0) < 1e-9


# ---------------------------------------------------------------------------------------
# the pre-commit door: `okfpro secrets`, as a real process

import os  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402

REPO = Path(__file__).resolve().parents[1]


def _okfpro(args, cwd, **extra):
    env = dict(os.environ, PYTHONPATH=str(REPO), **extra)
    return subprocess.run([sys.executable, "-m", "okfpro", *args], cwd=cwd, env=env, capture_output=True, text=True)


def test_secrets_cli_on_files(tmp_path):
    key = "ghp_" + rs(ALNUM, 36)
    dirty = tmp_path / "config.py"
    dirty.write_text(f"# settings\nTOKEN = '{key}'\n")
    clean = tmp_path / "notes.md"
    clean.write_text("\n".join(prose_lines()[:50]))
    res = _okfpro(["secrets", str(dirty), str(clean)], tmp_path)
    assert res.returncode == 1, res.stderr
    assert res.stdout.strip() == f"{dirty}:2: github-pat"
    assert key not in res.stdout + res.stderr
    assert _okfpro(["secrets", str(clean)], tmp_path).returncode == 0
    assert _okfpro(["secrets", str(tmp_path / "missing.txt")], tmp_path).returncode == 2


def test_secrets_cli_on_staged_content(tmp_path):
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    token = "xoxb-" + rs("0123456789", 11) + "-" + rs(ALNUM, 24)
    (tmp_path / "a.txt").write_text(f"slack {token}\n")
    (tmp_path / "b.txt").write_text("nothing to see\n")
    subprocess.run(["git", "add", "b.txt"], cwd=tmp_path, check=True)
    assert _okfpro(["secrets"], tmp_path).returncode == 0  # a.txt is not staged
    subprocess.run(["git", "add", "a.txt"], cwd=tmp_path, check=True)
    res = _okfpro(["secrets"], tmp_path)
    assert res.returncode == 1 and res.stdout.strip() == "a.txt:1: slack-token"
    # the staged blob is what counts, not the working tree
    (tmp_path / "a.txt").write_text("cleaned\n")
    assert _okfpro(["secrets"], tmp_path).returncode == 1


def test_secrets_cli_outside_a_repository_is_a_usage_error(tmp_path):
    res = _okfpro(["secrets"], tmp_path, GIT_DIR=str(tmp_path / "no-such-repo"))
    assert res.returncode == 2


def test_two_step_keyword_scan_agrees_with_the_one_step_regex():
    import re as _re

    one = _re.compile(R._KEYWORD_ASSIGN_RE)

    def cls(kw):
        return "password" if _re.fullmatch(R._PASSWORD_WORDS, kw.lower()) else "secret"

    texts = prose_lines() + [t.format(s=s) for _, s, t in CORPUS] + [
        "Api-Key: 9f8e7d6c5b4a39281706f5e4d3c2b1a0", "cache_key = 1234", "PASSWORD is Tr0ub4dor&3"]  # okfpro:allow-secret
    for text in texts:
        fast = {(cls(kw), v, i) for kw, v, i in R._keyword_assignments(text, text.lower())}
        slow = {(cls(m.group("kw")), m.group("value"), m.start("value")) for m in one.finditer(text)}
        assert fast == slow, text


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=200, deadline=None)
@given(line=st.integers(min_value=0, max_value=199), row=st.integers(min_value=0, max_value=len(CORPUS) - 1),
       where=st.floats(min_value=0, max_value=1), sep=st.sampled_from([" ", "\n", " (", ": ", "\t"]))
def test_a_token_dropped_into_prose_never_survives(line, row, where, sep):
    rule, secret, template = CORPUS[row]
    prose = PROSE[line]
    cut = int(len(prose) * where)
    while cut < len(prose) and prose[cut - 1 : cut].isalnum() if cut else False:
        cut += 1  # insert at a word boundary
    text = prose[:cut] + sep + template.format(s=secret) + " " + prose[cut:]
    out = R.redact(text)
    assert secret not in out.text
    assert R.redact(out.text).text == out.text


PROSE = prose_lines()


@pytest.mark.parametrize("text", [
    "remember that release 3 ships on Friday, password hunter2-3",
    "the password hunter2-XYZ",
    "my passphrase Tr0ub4dor&3 for the vault",
])
def test_a_password_word_followed_by_a_bare_mixed_value_is_redacted(text):
    """Found by the memory-hooks benchmark: "password hunter2-3" (no `is`, no `=`) reached disk."""
    out = R.redact(text)
    assert "[REDACTED:generic-password:" in out.text
    assert "hunter2" not in out.text and "Tr0ub4dor" not in out.text


@pytest.mark.parametrize("text", [
    "the password reset flow is broken",
    "passwords are hashed with bcrypt12 rounds",
    "a password field with 12345 characters",
    "password policy requires rotation",
])
def test_password_prose_is_left_alone(text):
    assert R.redact(text).text == text
