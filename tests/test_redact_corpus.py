"""Secret shapes that reached disk (issue 37, item 8) and the false positives the new rules must not
bring: a token split across lines with words between the halves (its prefix half is a secret
fragment), an AKIA key id split the same way, a bare 40-character random secret with no keyword
near it — and, measured over a corpus of ordinary technical text (git hashes, UUIDs, base64 fixtures,
file paths, CamelCase identifiers, this repository's own source and docs), zero findings."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import random
import string
import uuid
from pathlib import Path

import pytest

from okfpro.core import redact as _redact
from tests.helpers import invoke, quick

ROOT = Path(__file__).resolve().parent.parent
RNG = random.Random(37_8)
B62 = string.ascii_letters + string.digits
AWS_ALPHABET = B62 + "/+"
B32 = string.ascii_uppercase + "234567"


def token(prefix: str, n: int, alphabet: str = B62) -> str:
    while True:
        tail = "".join(RNG.choice(alphabet) for _ in range(n))
        if any(c.isdigit() for c in tail) and any(c.isupper() for c in tail) and any(c.islower() for c in tail):
            return prefix + tail


def aws_secret() -> str:
    while True:
        value = "".join(RNG.choice(AWS_ALPHABET) for _ in range(40))
        if value.count("/") <= 2 and any(c.isdigit() for c in value):
            return value


def key_id() -> str:
    return "AKIA" + "".join(RNG.choice(B32) for _ in range(16))


WORDS = ["and then", "— wait, the rest is —", "(see the wiki)\n", "\n> and more words\n> ", " ... ", "\r\nthen\r\n"]


def split_cases() -> list[tuple[str, str, str]]:
    """(name, text, the piece that must not survive)."""
    out = []
    for prefix, n, alphabet in (("ghp_", 36, B62), ("gho_", 36, B62), ("github_pat_", 82, B62 + "_"),
                                ("glpat-", 20, B62), ("xoxb-", 40, B62), ("sk-ant-api03-", 60, B62),
                                ("npm_", 36, B62), ("hf_", 34, B62), ("sk-proj-", 48, B62)):
        whole = token(prefix, n, alphabet)
        for cut in (len(prefix) + 8, len(prefix) + n // 2):
            for between in WORDS:
                text = f"my token is {whole[:cut]} {between} {whole[cut:]} ok"
                out.append((f"split-{prefix}{cut}", text, whole[:cut]))
    for cut in (8, 10, 12):
        kid = key_id()
        for between in WORDS:
            out.append((f"split-akia-{cut}", f"the key id {kid[:cut]} {between} {kid[cut:]} is prod", kid[:cut]))
    for _ in range(20):
        secret = aws_secret()
        out.append(("bare-aws-secret", f"set it to {secret} before the deploy", secret))
        out.append(("bare-aws-secret-line", f"{secret}\n", secret))
    out.append(("aws-docs-example", "the secret wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY goes in", "wJalrXUtnFEMI"))
    return out


@pytest.mark.parametrize("name,text,piece", split_cases(), ids=[c[0] for c in split_cases()])
def test_split_fragments_and_bare_secrets_are_redacted(name, text, piece) -> None:
    red = _redact.redact(text)
    assert piece not in red.text, (name, red.text)
    assert _redact.redact(red.text).text == red.text  # idempotent


def test_split_and_bare_secrets_never_reach_disk_through_remember(tmp_path) -> None:
    (tmp_path / ".okf").mkdir()
    (tmp_path / "okfpro.toml").write_text("[memory]\n")
    env = {"OKFPRO_TENANT": "", "OKFPRO_USER": "red", "OKFPRO_AGENT": "", "OKFPRO_SESSION": ""}
    ghp, kid, secret = token("ghp_", 36), key_id(), aws_secret()
    text = (f"the bot uses {ghp[:20]}\nwhich the wiki explains\n{ghp[20:]} for pushes;\n"
            f"key {kid[:10]} (prod) {kid[10:]} and the value {secret} with no keyword")
    proc = invoke("memory", "remember", text, cwd=tmp_path, env=env)
    assert proc.returncode == 0, proc.stderr
    stored = b"".join(p.read_bytes() for p in (tmp_path / ".okf-memory").rglob("*.md"))
    objects = invoke("memory", "log", "--json", cwd=tmp_path, env=env)
    assert json.loads(objects.stdout)["commits"]
    for piece in (ghp[:20], kid[:10], secret):
        assert piece.encode() not in stored, piece


# ------------------------------------------------------------------------------ false positives


def _generated() -> list[str]:
    rng = random.Random(2026)

    def sha1() -> str:
        return hashlib.sha1(str(rng.random()).encode()).hexdigest()

    def b64_text(n: int) -> str:
        words = "the quick brown fox jumps over a lazy dog while okfpro keeps the notes".split()
        return base64.b64encode(" ".join(rng.choice(words) for _ in range(n)).encode()[:n]).decode()

    def b64_binary_wrapped(n: int, width: int) -> str:
        data = base64.b64encode(bytes(rng.getrandbits(8) for _ in range(n))).decode()
        return "\n".join(data[i:i + width] for i in range(0, len(data), width))

    docs = [
        "\n".join(f"commit {sha1()}\nAuthor: Dev <dev@example.org>\n\n    Merge branch 'fix/{sha1()[:7]}'" for _ in range(20)),
        "\n".join(f"{sha1()[:12]} {sha1()[:7]} fix the importer's line numbers" for _ in range(40)),
        "\n".join(f"{hashlib.sha256(str(i).encode()).hexdigest()}  dist/okfpro-0.{i}.tar.gz" for i in range(20)),
        "\n".join(str(uuid.UUID(int=rng.getrandbits(128), version=4)) for _ in range(50)),
        "\n".join(str(uuid.UUID(int=rng.getrandbits(128), version=4)).replace("-", "") for _ in range(50)),
        "\n".join(str(uuid.UUID(int=rng.getrandbits(128), version=4)).upper() for _ in range(50)),
        *(f"fixture = \"{b64_text(n)}\"  # base64 of {n} bytes of text" for n in range(12, 121)),
        *(b64_binary_wrapped(n, w) for n in (45, 57, 300, 1024) for w in (64, 76)),
        "integrity sha512-" + base64.b64encode(hashlib.sha512(b"x").digest()).decode(),
        "sha256-" + base64.b64encode(hashlib.sha256(b"y").digest()).decode() + " and sha1 "
        + base64.b64encode(hashlib.sha1(b"z").digest()).decode(),
        "\n".join(str(p.relative_to(ROOT)) for p in sorted(ROOT.joinpath("okfpro").rglob("*.py"))),
        "\n".join(str(p) for p in sorted(ROOT.joinpath("okfpro").rglob("*.py"))),
        "C:\\Users\\Developer\\AppData\\Local\\Programs\\Python\\Python311\\Lib\\site-packages\\okfpro\\memory",
        "/home/developer/.cache/okfpro/hosts/node_modules/@anthropic-ai/claude-code/cli.js",
        "ConfigurationLoaderImplementationFactory1 AbstractSingletonProxyFactoryBean2Impl "
        "TestMemoryImportTrustHostileLineIsClear1 HTTPServerRequestHandlerForOAuth2Tokens",
        "npm_config_cache npm_lifecycle_event hf_hub_download hf_transformers ghp_tokens_are_secret "
        "ASIAPACIFIC ASIAN markets, AKIA is the prefix AWS uses; xoxb- tokens start so",
        "the env var GITHUB_TOKEN and the npm_package_version, glpat- prefixes, sk-proj- keys",
        "\n".join(f"{rng.choice(['GET', 'POST'])} /api/v1/items/{rng.randint(1, 10**9)}?page={rng.randint(1, 99)} 200"
                  for _ in range(30)),
        "docker pull python@sha256:" + hashlib.sha256(b"img").hexdigest(),
        "The CommitId AbCdEf0123 was reverted in PR #4242; see ISSUE-37 and RFC 4648 section 4.",
    ]
    return docs


def _repository() -> list[tuple[str, str]]:
    """This repository's own source and docs (tests hold deliberate fake secrets and are left out)."""
    out = []
    for top in ("okfpro", ".okf", "bench", ".ci"):
        for d, _, files in os.walk(ROOT / top):
            for f in sorted(files):
                if f.endswith((".py", ".md", ".toml", ".yaml", ".yml", ".json", ".txt", ".sh")) or top == ".ci":
                    path = Path(d) / f
                    out.append((str(path.relative_to(ROOT)), path.read_text(encoding="utf-8", errors="replace")))
    for name in ("README.md", "pyproject.toml"):
        if (ROOT / name).is_file():
            out.append((name, (ROOT / name).read_text(encoding="utf-8")))
    return sorted(out)


def test_zero_false_positives_on_ordinary_technical_text_and_this_repository(capsys) -> None:
    docs = [(f"generated #{i}", d) for i, d in enumerate(_generated())]
    repo = _repository()
    assert len(repo) > 100
    docs += repo[::4] if quick() else repo  # the inner loop reads a quarter of the repository
    flagged = [(name, [(f.rule, f.line) for f in _redact.scan(text)]) for name, text in docs]
    flagged = [row for row in flagged if row[1]]
    with capsys.disabled():
        print(f"\n[redact] technical corpus false positives: {len(flagged)}/{len(docs)} documents "
              f"({sum(len(t) for _, t in docs)} characters)")
        for name, rules in flagged:
            print(f"[redact]   {name}: {rules[:5]}")
    assert flagged == []


def test_split_and_bare_secrets_never_reach_disk_through_the_stop_capture(tmp_path) -> None:
    from tests.test_capture_recall import ALICE, all_bytes_under, git_objects, hook, stop_event, transcript, workspace

    ws = workspace(tmp_path)
    ghp, kid, secret = token("ghp_", 36), key_id(), aws_secret()
    user = f"the bot token starts {ghp[:18]}\nand, after the wiki's words, ends\n{ghp[18:]}"
    agent = f"Noted. The key id {kid[:10]} (prod) {kid[10:]} and {secret} stay out of notes."
    t = transcript(tmp_path / "t.jsonl", user, agent)
    res = hook("stop", stop_event(ws, "sess-r1", t, agent), {**ALICE, "OKFPRO_TODAY": "2026-11-27"})
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["written"]
    mem = ws / ".okf-memory"
    stored = all_bytes_under(mem) + b"".join(git_objects(p.parent) for p in mem.rglob("HEAD")
                                             if (p.parent / "objects").is_dir())
    assert b"stay out of notes" in stored
    for piece in (ghp[:18], kid[:10], secret):
        assert piece.encode() not in stored, piece
