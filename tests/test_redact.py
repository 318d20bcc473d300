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

from okfpro.core import redact as _redact
from okfpro.core import secretshapes as _shapes
from okfpro.core import sanitise as _sanitise

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
    assert providers <= set(_shapes.RULE_IDS)


@pytest.mark.parametrize("rule,secret,template", CORPUS, ids=[f"{i}-{r[0]}" for i, r in enumerate(CORPUS)])
def test_every_token_is_redacted_with_a_stable_placeholder(rule, secret, template):
    text = template.format(s=secret)
    out = _redact.redact(text)
    assert secret not in out.text
    expected = _redact.placeholder(rule, secret)
    assert expected in out.text, (out.text, out.findings)
    assert expected == f"[REDACTED:{rule}:{hashlib.sha256(secret.encode()).hexdigest()[:8]}]"
    assert (rule, 1) in out.findings
    # stable: the same input redacts the same way; redaction is idempotent
    assert _redact.redact(text).text == out.text
    assert _redact.redact(out.text).text == out.text
    # scan reports rule and line, never the value
    found = _redact.scan(text)
    assert any(f.rule == rule and f.placeholder == expected for f in found)
    assert all(secret not in repr(f) for f in found)


def test_whole_corpus_in_one_document():
    doc = "\n".join(t.format(s=s) for _, s, t in CORPUS)
    out = _redact.redact(doc)
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
    flagged = [(n, line, _redact.scan(line)) for n, line in enumerate(lines, 1) if _redact.scan(line)]
    rate = len(flagged) / len(lines)
    with capsys.disabled():
        print(f"\n[redact] prose false positives: {len(flagged)}/{len(lines)} lines = {rate:.1%}")
        for n, _line, found in flagged:
            print(f"[redact]   line {n}: {[f.rule for f in found]}")
    assert rate < 0.05
    # and the prose is left byte-identical where nothing was found
    for line in lines:
        if not _redact.scan(line):
            assert _redact.redact(line).text == line


# ---------------------------------------------------------------------------------------
# behaviour details


def test_scan_reports_one_based_lines_and_no_values():
    key = "ghp_" + rs(ALNUM, 36)
    text = f"first line\nsecond line\nthird has {key}\n"
    found = _redact.scan(text)
    assert [(f.rule, f.line) for f in found] == [("github-pat", 3)]
    assert key not in str(found)


def test_allow_marker_exempts_tier_b_but_never_tier_a():
    text = "password=Fixture-Passw0rd  # okfpro:allow-secret"
    assert _redact.scan(text) == []
    key = "AKIA" + rs(UPPER_NUM, 16)
    assert _redact.scan(f"{key}  # okfpro:allow-secret")[0].rule == "aws-access-key-id"


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
        assert _redact.scan(text) == [], text


def test_strip_recall_removes_our_own_blocks():
    recall = (
        f"{_redact.RECALL_BEGIN}\nReference data.\n<okf-context id=\"memory:user:x\">\nship on Fridays\n"
        f"</okf-context>\n{_redact.RECALL_END}"
    )
    text = f"before\n{recall}\nafter"
    out = _redact.strip_recall(text)
    assert "ship on Fridays" not in out and _redact.RECALL_BEGIN not in out
    assert out.startswith("before") and out.endswith("after")
    # unterminated block: dropped to the end, never kept
    assert "leak" not in _redact.strip_recall(f"keep\n{_redact.RECALL_BEGIN}\nleak")
    assert _redact.strip_recall("<okf-context id=\"k\">\nold recall\n</okf-context>\nnew") == "new"


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
    assert _sanitise.refusal(text) == reason
    assert _sanitise.sanitise(text).refused == reason
    assert _sanitise.sanitise(text).text == ""


def test_ordinary_text_is_not_refused():
    for text in ["We ship on Fridays.", "KEY=value is how dotenv lines look", "see the `ls -l` output above"]:
        assert _sanitise.refusal(text) is None


def test_entropy():
    assert _shapes.shannon_entropy("") == 0.0
    assert _shapes.shannon_entropy("aaaa") == 0.0
    assert abs(_shapes.shannon_entropy("abcd") - 2.0) < 1e-9


# ---------------------------------------------------------------------------------------
# the pre-commit door: `okfpro secrets`, as a real process

import os  # noqa: E402
import subprocess  # noqa: E402
from pathlib import Path  # noqa: E402

from tests.helpers import invoke  # noqa: E402

REPO = Path(__file__).resolve().parents[1]


def _okfpro(args, cwd, **extra):
    return invoke(*args, cwd=cwd, env=extra)


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

    one = _re.compile(_shapes._KEYWORD_ASSIGN_RE)

    def cls(kw):
        return "password" if _re.fullmatch(_shapes.PASSWORD_WORDS, kw.lower()) else "secret"

    texts = prose_lines() + [t.format(s=s) for _, s, t in CORPUS] + [
        "Api-Key: 9f8e7d6c5b4a39281706f5e4d3c2b1a0", "cache_key = 1234", "PASSWORD is Tr0ub4dor&3"]  # okfpro:allow-secret
    for text in texts:
        fast = {(cls(kw), v, i) for kw, v, i in _shapes.keyword_assignments(text, text.lower())}
        slow = {(cls(m.group("kw")), m.group("value"), m.start("value")) for m in one.finditer(text)}
        assert fast == slow, text


from hypothesis import given, settings  # noqa: E402
from tests.helpers import examples  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=examples(200), deadline=None)
@given(line=st.integers(min_value=0, max_value=199), row=st.integers(min_value=0, max_value=len(CORPUS) - 1),
       where=st.floats(min_value=0, max_value=1), sep=st.sampled_from([" ", "\n", " (", ": ", "\t"]))
def test_a_token_dropped_into_prose_never_survives(line, row, where, sep):
    rule, secret, template = CORPUS[row]
    prose = PROSE[line]
    cut = int(len(prose) * where)
    while cut < len(prose) and prose[cut - 1 : cut].isalnum() if cut else False:
        cut += 1  # insert at a word boundary
    text = prose[:cut] + sep + template.format(s=secret) + " " + prose[cut:]
    out = _redact.redact(text)
    assert secret not in out.text
    assert _redact.redact(out.text).text == out.text


PROSE = prose_lines()


@pytest.mark.parametrize("text", [
    "remember that release 3 ships on Friday, password hunter2-3",
    "the password hunter2-XYZ",
    "my passphrase Tr0ub4dor&3 for the vault",
])
def test_a_password_word_followed_by_a_bare_mixed_value_is_redacted(text):
    """Found by the memory-hooks benchmark: "password hunter2-3" (no `is`, no `=`) reached disk."""
    out = _redact.redact(text)
    assert "[REDACTED:generic-password:" in out.text
    assert "hunter2" not in out.text and "Tr0ub4dor" not in out.text


@pytest.mark.parametrize("text", [
    "the password reset flow is broken",
    "passwords are hashed with bcrypt12 rounds",
    "a password field with 12345 characters",
    "password policy requires rotation",
])
def test_password_prose_is_left_alone(text):
    assert _redact.redact(text).text == text


# ---------------------------------------------------------------------------------------
# Evasions (issue #10): the same secrets, spelled so that a rule on the raw text misses them.
# Seven shapes, each in variants over every token of the corpus; recall and false-positive
# counts are printed.  A finding in a normalised, joined or decoded view redacts the original
# span, so the output holds none of the variant's characters of the secret.

import unicodedata as _ud  # noqa: E402
import zlib  # noqa: E402

EVASION_SEED = int(os.environ.get("OKFPRO_EVASION_SEED", "0"))  # the suite pins 0; vary it to explore

_ZERO_WIDTH = ("\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad", "\u200e", "\u202c")
_LOOKALIKE = {"g": "\u0261", "a": "\u0430", "o": "\u03bf", "e": "\u0435", "p": "\u0440", "c": "\u0441",
              "x": "\u0445", "s": "\u0455", "i": "\u0456", "j": "\u0458", "y": "\u0443", "h": "\u04bb",
              "A": "\u0410", "K": "\u041a", "I": "\u0406", "S": "\u0405", "E": "\u0415", "M": "\u041c",
              "T": "\u0422", "P": "\u0420", "O": "\u041e", "H": "\u041d", "B": "\u0412", "C": "\u0421"}
_BREAKS = ("\n", "\\\n", "\n    ", "\r\n", "\n# ", "\n> ")
_EVADABLE = [(rule, secret, template) for rule, secret, template in CORPUS if rule != "private-key"]


def _fullwidth(text: str) -> str:
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text)


def _lookalike(text: str) -> str:
    out, swapped = [], 0
    for c in text:
        if swapped < 3 and c in _LOOKALIKE:
            out.append(_LOOKALIKE[c])
            swapped += 1
        else:
            out.append(c)
    return "".join(out)


def _variants(rule: str, secret: str, template: str) -> list[tuple[str, str, str]]:
    """(shape, text, evasive spelling of the secret) for one corpus row."""
    rng = random.Random(zlib.crc32(f"{EVASION_SEED}:{rule}:{secret}".encode()))
    out = []
    for zw in _ZERO_WIDTH:
        at = rng.randrange(2, len(secret) - 2)
        spelled = secret[:at] + zw + secret[at:]
        out.append(("zero-width", template.format(s=spelled), spelled))
    spelled = _fullwidth(secret)
    out.append(("fullwidth", template.format(s=spelled), spelled))
    spelled = _lookalike(secret)
    if spelled != secret:
        out.append(("lookalike", template.format(s=spelled), spelled))
    for brk in _BREAKS:
        at = rng.randrange(4, len(secret) - 4)
        while not (secret[at - 1].isalnum() and secret[at].isalnum()):
            at = rng.randrange(4, len(secret) - 4)
        spelled = secret[:at] + brk + secret[at:]
        out.append(("split", template.format(s=spelled), spelled))
    plain = template.format(s=secret)
    for name, encoded in (
        ("base64", base64.b64encode(plain.encode()).decode()),
        ("base64url", base64.urlsafe_b64encode(plain.encode()).decode().rstrip("=")),
        ("hex", plain.encode().hex()),
        ("base64-of-base64", base64.b64encode(base64.b64encode(plain.encode())).decode()),
        ("base64-wrapped-76", "\n".join(textwrap_chunks(base64.b64encode(plain.encode()).decode(), 76))),
    ):
        out.append((name, f"the fixture is {encoded} (do not commit)", encoded))
    return out


def textwrap_chunks(text: str, width: int) -> list[str]:
    return [text[i:i + width] for i in range(0, len(text), width)]


def _aws_variants() -> list[tuple[str, str, str]]:
    rng = random.Random(99)
    out = []
    for n in range(40):
        key_id = "AKIA" + "".join(rng.choice(UPPER_NUM) for _ in range(16))
        secret = "".join(rng.choice(ALNUM + "/+") for _ in range(40))
        while not (any(c.isupper() for c in secret) and any(c.islower() for c in secret)
                   and any(c.isdigit() for c in secret)):
            secret = "".join(rng.choice(ALNUM + "/+") for _ in range(40))
        shapes = [
            ("bare-aws-secret", f"creds for the deploy user: {key_id} {secret}", secret),
            ("bare-aws-secret", f"AWS creds\n{secret}\nuse them for the upload", secret),
            ("bare-aws-secret", f"the aws pair is {key_id} / {secret}", secret),
            ("bare-aws-secret", f"id={key_id}\n{secret}", secret),
        ]
        at = rng.randrange(4, 16)
        split_id = key_id[:at] + "\n" + key_id[at:]
        shapes.append(("split-aws-key-id", f"the key id is {split_id} for prod", split_id))
        out.append(shapes[n % len(shapes)])
        out.append(shapes[-1])
    return out


def _leaks(output: str, spelled: str) -> bool:
    """Does any recognisable piece of the secret survive?  (Its spelling, or its normalised text.)"""
    if spelled in output:
        return True
    flat = "".join(c for c in _ud.normalize("NFKC", spelled) if _ud.category(c) != "Cf")
    flat = re.sub(r"[\s\\#>]+", "", flat)
    out_flat = re.sub(r"[\s\\#>]+", "", "".join(c for c in _ud.normalize("NFKC", output) if _ud.category(c) != "Cf"))
    return len(flat) >= 12 and flat[len(flat) // 4: len(flat) // 4 + 12] in out_flat


import re  # noqa: E402


def test_evasive_spellings_are_redacted_recall_printed(capsys):
    cases = [v for row in _EVADABLE for v in _variants(*row)] + _aws_variants()
    by_shape: dict[str, list[int]] = {}
    missed = []
    for shape, text, spelled in cases:
        out = _redact.redact(text)
        caught = not _leaks(out.text, spelled) and out.count >= 1
        by_shape.setdefault(shape, [0, 0])
        by_shape[shape][0] += caught
        by_shape[shape][1] += 1
        if not caught:
            missed.append((shape, text[:80]))
        # okfpro secrets (scan) sees exactly what redact replaces
        assert bool(_redact.scan(text)) == (out.count >= 1)
        assert _redact.redact(out.text).text == out.text  # idempotent
    with capsys.disabled():
        total = sum(n for _, n in by_shape.values())
        hit = sum(c for c, _ in by_shape.values())
        print(f"\n[redact] evasion recall: {hit}/{total} = {hit / total:.1%}")
        for shape, (c, n) in sorted(by_shape.items()):
            print(f"[redact]   {shape}: {c}/{n}")
        for m in missed[:20]:
            print(f"[redact]   missed {m}")
    assert {"zero-width", "fullwidth", "lookalike", "split", "base64", "hex", "bare-aws-secret",
            "split-aws-key-id"} <= set(by_shape)
    assert not missed


def test_a_finding_in_a_view_redacts_the_original_span_and_nothing_else():
    key = "ghp_" + rs(ALNUM, 36)
    for spelled in (key[:10] + "\u200b" + key[10:], _fullwidth(key), "\u0261" + key[1:], key[:15] + "\n" + key[15:]):
        text = f"before {spelled} after\nnext line"
        out = _redact.redact(text)
        assert out.text == f"before {_redact.placeholder('github-pat', key)} after\nnext line", (spelled, out.text)
    encoded = base64.b64encode(f"token {key}".encode()).decode()
    out = _redact.redact(f"x {encoded} y")
    assert out.text == f"x {_redact.placeholder('github-pat', encoded)} y"
    # line numbers in scan point at the original line
    assert [(f.rule, f.line) for f in _redact.scan(f"a\nb\nc {key[:15]}\n{key[15:]}")] == [("github-pat", 3)]


def _extra_prose() -> list[str]:
    rng = random.Random(7)

    def sha1() -> str:
        return hashlib.sha1(str(rng.random()).encode()).hexdigest()

    def b64(n: int) -> str:
        return base64.b64encode(bytes(rng.getrandbits(8) for _ in range(n))).decode()

    png = base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(rng.getrandbits(8) for _ in range(60))).decode()
    docs = [
        "\n".join(f"{sha1()} {sha1()[:7]} Merge pull request #{rng.randint(1, 999)} from team/branch" for _ in range(8)),
        "\n".join(f"{hashlib.sha256(str(i).encode()).hexdigest()}  dist/okfpro-{i}.tar.gz" for i in range(6)),
        "\n".join(textwrap_chunks(b64(300), 76)),
        f"<img src=\"data:image/png;base64,{png}\"> is the logo, inlined.",
        "\n".join(str(uuid.UUID(int=rng.getrandbits(128), version=4)) for _ in range(10)),
        "aws s3 cp s3://okf-artifacts/releases/2026/okfpro-1.2.tar.gz . --region eu-west-1",
        "The role arn:aws:iam::123456789012:role/OkfproDeployRole assumes the CI identity in AWS.",
        f"AWS returned ETag \"{hashlib.md5(b'x').hexdigest()}\" and VersionId {b64(24)} for the object.",
        f"aws ec2 describe-images --image-ids ami-{sha1()[:17]} --owners amazon",
        "Base64 of 'hello world, this is a plain test fixture' is "
        + base64.b64encode(b"hello world, this is a plain test fixture").decode(),
        "hex of the greeting: " + b"just an ordinary greeting for the test suite".hex(),
        "Les donn\u00e9es sont chiffr\u00e9es ; la cl\u00e9 reste dans le coffre.",
        "\u6570\u636e\u5e93\u5bc6\u7801\u5b58\u50a8\u5728\u4fdd\u9669\u5e93\u4e2d\uff0c\u4e0d\u8981\u63d0\u4ea4\u3002",
        "\u041a\u043b\u044e\u0447 \u0445\u0440\u0430\u043d\u0438\u0442\u0441\u044f \u0432 \u0441\u0435\u0439\u0444\u0435, "
        "\u0430 \u0442\u043e\u043a\u0435\u043d \u043e\u0431\u043d\u043e\u0432\u043b\u044f\u0435\u0442\u0441\u044f.",
        "Family emoji \U0001f468\u200d\U0001f469\u200d\U0001f467 and a flag \U0001f3f3\ufe0f\u200d\U0001f308 in the README.",
        "\uff2f\uff2b\uff26 \uff50\uff52\uff4f \uff49\uff53 \uff46\uff49\uff4e\uff45 (fullwidth prose).",
        "Line one ends in a long identifier configuration_loader_implementation\n"
        "continues_with_another_identifier_that_is_long on the next line.",
        "sha512-" + b64(64) + "\nsha512-" + b64(64),
        "Use `python -c \"import base64; print(base64.b64decode('aGVsbG8='))\"` to check it.",
        # a config block: "budget_tokens = 2000" joined with the next line once read as a secret
        'capture_tier = "user"\ntiers = ["session", "user"]\nbudget_tokens = 2000\nknowledge_share = 0.6\n'
        "memory_share = 0.4\nmax_tokens = 4096\ntoken_budget = 2000\nsecret_rotation_days = 90\n",
    ]
    return docs


def test_zero_false_positives_on_technical_prose_including_views(capsys):
    """The 200 prose lines, the same lines as ONE document (so every line break is a join
    candidate), and multi-line technical text: git logs, checksums, wrapped base64, data URIs,
    UUID lists, AWS-flavoured prose, non-Latin scripts, emoji ZWJ sequences, fullwidth prose."""
    lines = prose_lines()
    docs = lines + ["\n".join(lines), "\n".join(lines[::-1])] + _extra_prose()
    flagged = [(i, [f.rule for f in _redact.scan(d)]) for i, d in enumerate(docs) if _redact.scan(d)]
    with capsys.disabled():
        print(f"\n[redact] false positives with evasion views: {len(flagged)}/{len(docs)} documents")
        for i, rules in flagged:
            print(f"[redact]   doc {i}: {rules}: {docs[i][:100]!r}")
    assert flagged == []
    for d in docs:
        assert _redact.redact(d).text == d


def test_zero_false_positives_on_the_conformance_corpus(capsys):
    """Every concept of the 100 conformance workspaces (4,333 files of real notes): no finding."""
    from tests.helpers import shared_dir

    base = shared_dir() / "conformance" / "bundles"
    files = [os.path.join(d, f) for d, _, fs in os.walk(base) for f in fs if f.endswith(".md")]
    if not files:
        pytest.skip("conformance corpus not available")
    flagged = []
    for path in files:
        with open(path, encoding="utf-8", errors="replace") as handle:
            found = _redact.scan(handle.read())
        if found:
            flagged.append((path, [f.rule for f in found]))
    with capsys.disabled():
        print(f"\n[redact] conformance corpus false positives: {len(flagged)}/{len(files)} files")
    assert flagged == []


def _seven_shapes() -> list[tuple[str, str]]:
    """The seven shapes of issue #10, one text each: (text, a piece of the secret that must not survive)."""
    rng = random.Random(1130)
    gh = "ghp_" + "".join(rng.choice(ALNUM) for _ in range(36))
    key_id = "AKIA" + "".join(rng.choice(UPPER_NUM) for _ in range(16))
    aws_secret = "".join(rng.choice(ALNUM) for _ in range(38)) + "/+"
    slack = "xoxb-" + "".join(rng.choice("0123456789") for _ in range(12)) + "-" + "".join(
        rng.choice(ALNUM) for _ in range(24))
    return [
        (f"the deploy user has {key_id} and {aws_secret} for the upload", aws_secret),
        (f"token {gh[:18]}\n{gh[18:]} for CI", gh[18:]),
        (f"key id {key_id[:9]}\n{key_id[9:]} rotated today", key_id[9:]),
        ("fixture " + base64.b64encode(f"export GH_TOKEN={gh}".encode()).decode(), gh[8:30]),
        (f"bot \u0261{gh[1:]} is the app", gh[8:30]),
        ("slack " + _fullwidth(slack), _fullwidth(slack)[10:30]),
        (f"token {slack[:12]}\u200b{slack[12:]} in the channel", slack[14:]),
    ]


def test_the_seven_shapes_through_okfpro_secrets(tmp_path):
    shapes = _seven_shapes()
    target = tmp_path / "notes.md"
    target.write_text("\n\n".join(text for text, _ in shapes) + "\n", encoding="utf-8")
    res = _okfpro(["secrets", str(target)], tmp_path)
    assert res.returncode == 1, res.stdout + res.stderr
    starts, line = [], 1
    for text, _ in shapes:
        starts.append(line)
        line += text.count("\n") + 2
    reported = {int(row.split(":")[1]) for row in res.stdout.strip().splitlines()}
    assert reported == set(starts), (reported, starts, res.stdout)  # every shape, on its first line
    for _, piece in shapes:
        assert piece not in res.stdout + res.stderr


def test_the_seven_shapes_never_reach_disk_or_git_through_memory_remember(tmp_path):
    ws = tmp_path / "ws"
    (ws / ".okf").mkdir(parents=True)
    (ws / "okfpro.toml").write_text("[memory]\n")
    env = {"OKFPRO_TENANT": "acme", "OKFPRO_USER": "alice", "OKFPRO_TODAY": "2026-11-30"}
    for text, _ in _seven_shapes():
        res = _okfpro(["memory", "remember", text], ws, **env)
        assert res.returncode == 0, res.stderr
        assert "redacted" in res.stderr, (text, res.stderr)
    mem = ws / ".okf-memory"
    stored = "".join(f.read_text(encoding="utf-8") for f in mem.rglob("*.md"))
    objects = b""
    for head in mem.rglob("HEAD"):
        if (head.parent / "objects").is_dir():
            objects += subprocess.run(["git", f"--git-dir={head.parent}", "cat-file", "--batch-all-objects", "--batch"],
                                      capture_output=True, check=True).stdout
    assert objects, "no memory history found"
    for text, piece in _seven_shapes():
        assert piece not in stored, text
        assert piece.encode() not in objects, text


# ---------------------------------------------------------------------------------------
# The rule pre-filter for every rule at once (candidates) lets through exactly the rules whose own
# may_match is true: the hint table is only a faster spelling of it.

_HINT_BITS = sorted({h for hints in _shapes._HINTS.values() for h in hints} | {"Aws", "AWS", "Bearer", "AccountKey"})


def _one_by_one(text: str) -> list[int]:
    lowered = text.lower()
    return [i for i, rule in enumerate(_shapes.TIER_A) if rule.may_match(text, lowered)]


def test_candidates_are_the_rules_may_match_lets_through_on_the_corpus():
    texts = PROSE + [t.format(s=s) for _, s, t in CORPUS] + ["", "plain words only", *_HINT_BITS]
    for text in texts:
        assert _shapes.candidates(text, text.lower()) == _one_by_one(text), text


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(st.one_of(st.sampled_from(_HINT_BITS), st.text(max_size=6)), max_size=8))
def test_candidates_are_the_rules_may_match_lets_through(parts):
    text = "".join(parts)
    assert _shapes.candidates(text, text.lower()) == _one_by_one(text)


def _raw_hits_rule_by_rule(text: str) -> list[tuple]:
    """_raw_hits' tier A as it was: every rule in TIER_A order, each asked may_match; a hit's order
    is its rule's place (overlaps are resolved by it)."""
    lowered = text.lower()
    out = []
    for order, rule in enumerate(_shapes.TIER_A):
        if not rule.may_match(text, lowered):
            continue
        for m in rule.pattern.finditer(text):
            start, end = m.span(rule.group)
            secret = m.group(rule.group)
            if start < 0 or end <= start or secret.startswith(_shapes.PLACEHOLDER_PREFIX):
                continue
            if rule.id == "url-credentials" and _shapes.url_placeholder(secret):
                continue
            out.append((start, end, rule.id, secret, order, "A"))
    return out


def _tier_a(text: str) -> list[tuple]:
    return [(h.start, h.end, h.rule, h.secret, h.order, h.tier) for h in _redact._raw_hits(text, text.lower())
            if h.tier == "A" and h.order < len(_shapes.TIER_A)]


def test_raw_hits_find_what_every_rule_asked_in_turn_finds():
    doc = "\n".join(t.format(s=s) for _, s, t in CORPUS)
    for text in [doc, *PROSE, *(t.format(s=s) for _, s, t in CORPUS)]:
        assert _tier_a(text) == _raw_hits_rule_by_rule(text), text[:80]


def test_a_bare_aws_secret_beside_a_key_id_is_redacted_without_the_word_aws():
    """The key id found by tier A anchors the bare secret: an orderly 40-character run (too few
    class switches to pass as random on its own) is taken next to ``AKIA...``, and kept without it."""
    key_id, secret = "AKIAIOSFODNN7EXAMPLQ", "ABCDEFGHIJKLMNOPQRSTabcdefghijklmnop1234"  # okfpro:allow-secret
    out = _redact.redact(f"id {key_id}\nvalue {secret}\n")
    assert secret not in out.text and ("aws-secret-access-key", 1) in out.findings, out
    assert secret in _redact.redact(f"value {secret}\n").text
