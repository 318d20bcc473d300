"""okfpro's validate and lint agree with the reference on every conformance bundle.

The corpus (``shared/conformance``) holds 100 generated workspaces and the
reference implementation's answers on them.  We compare what is not wording:
the conformant flag, counts, error paths, warning (path, check, source), lint
(check, severity, path) — all as multisets — and the lint stats.  Finding order
and metrics are compared too: they match the reference exactly today, and a
drift there is a behaviour change a script would notice.

The library is run on every bundle (in-process, fast); the real CLI
(``python -m okfpro ... --json``) is run on a sample to pin the envelope, the
``bundle`` name and the exit codes against the golden's ``rc``.

The corpus is read-only: the parse cache is turned off so nothing is written
beside it.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from okfpro.core.lint import lint
from okfpro.core.validate import validate
from okfpro.io.reader import read_bundle
from tests.helpers import invoke

REPO = Path(__file__).resolve().parents[1]


def _shared() -> Path | None:
    for candidate in (Path(__file__).resolve().parents[2] / "shared", Path("/work/shared")):
        if (candidate / "conformance" / "expected").is_dir():
            return candidate
    return None


SHARED = _shared()
CORPUS = SHARED / "conformance" if SHARED else None
NAMES = sorted(p.stem for p in (CORPUS / "expected").glob("s*.json")) if CORPUS else []
STAT_KEYS = (
    "concepts", "edges", "indexes", "logs", "skipped", "skipped_checks", "orphans", "loose", "stubs",
    "backlog", "components", "hubs", "types", "tags", "trust", "status",
)
SKIP_REASON = "conformance corpus not found (looked for ../shared/conformance beside the repo and /work/shared)"

needs_corpus = pytest.mark.skipif(CORPUS is None, reason=SKIP_REASON)


def _golden(name: str) -> dict:
    return json.loads((CORPUS / "expected" / f"{name}.json").read_text(encoding="utf-8"))


def _lint_options(golden: dict) -> dict:
    """Run lint the way the reference did: ``--today`` the golden's day; no ``--stale-after``
    when the golden confesses ``stale`` as skipped."""
    stats = golden["lint"]["json"]["stats"]
    assert "stale" in stats["skipped_checks"], "golden ran with --stale-after; teach this test its cutoff"
    return {"today": golden["today"]}


def _compare_validate(ours: dict, gold: dict) -> None:
    assert ours["conformant"] == gold["conformant"]
    assert ours["counts"] == gold["counts"]
    assert Counter(e["path"] for e in ours["errors"]) == Counter(e["path"] for e in gold["errors"])
    key = lambda w: (w["path"], w["check"], w["source"])  # noqa: E731
    assert Counter(map(key, ours["warnings"])) == Counter(map(key, gold["warnings"]))
    assert [(w["path"], w["check"]) for w in ours["warnings"]] == [(w["path"], w["check"]) for w in gold["warnings"]]
    assert [e["path"] for e in ours["errors"]] == [e["path"] for e in gold["errors"]]


def _compare_lint(ours: dict, gold: dict) -> None:
    key = lambda f: (f["check"], f["severity"], f["path"])  # noqa: E731
    assert Counter(map(key, ours["findings"])) == Counter(map(key, gold["findings"]))
    for k in STAT_KEYS:
        assert ours["stats"][k] == gold["stats"][k], f"stats.{k}"
    assert ours["healthy"] == gold["healthy"]
    # Order and metrics (not wording) match the reference as well.
    full = lambda f: (f["check"], f["path"], json.dumps(f["metric"], sort_keys=True))  # noqa: E731
    assert [full(f) for f in ours["findings"]] == [full(f) for f in gold["findings"]]


@needs_corpus
@pytest.mark.parametrize("name", NAMES)
def test_bundle_agrees_with_reference(name: str) -> None:
    golden = _golden(name)
    bundle = read_bundle(CORPUS / "bundles" / name / golden["bundle"])
    _compare_validate(validate(bundle), golden["validate"]["json"])
    _compare_lint(lint(bundle, **_lint_options(golden)), golden["lint"]["json"])


def test_corpus_is_complete() -> None:
    if CORPUS is None:
        pytest.skip(SKIP_REASON)
    assert len(NAMES) == 100


def _cli(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "OKFPRO_NO_CACHE": "1", "PYTHONPATH": str(REPO)}
    env.pop("OKFPRO_TODAY", None)
    return invoke(*args, cwd=cwd, base_env=env)


@needs_corpus
@pytest.mark.parametrize("name", NAMES[::10])
def test_cli_json_agrees_with_reference(name: str) -> None:
    golden = _golden(name)
    workspace = CORPUS / "bundles" / name
    v = _cli(["validate", golden["bundle"], "--json"], workspace)
    assert v.returncode == golden["validate"]["rc"], v.stderr
    assert "\n" not in v.stdout.strip()  # --json is one line
    ours = json.loads(v.stdout)
    assert ours["bundle"] == golden["validate"]["json"]["bundle"]
    _compare_validate(ours, golden["validate"]["json"])

    l = _cli(["lint", golden["bundle"], "--json", "--today", golden["today"]], workspace)  # noqa: E741
    assert l.returncode == golden["lint"]["rc"], l.stderr
    ours = json.loads(l.stdout)
    assert ours["bundle"] == golden["lint"]["json"]["bundle"]
    _compare_lint(ours, golden["lint"]["json"])
    # --fail-on warn turns an unhealthy report into exit 1.
    strict = _cli(["lint", golden["bundle"], "--json", "--today", golden["today"], "--fail-on", "warn"], workspace)
    assert strict.returncode == (0 if golden["lint"]["json"]["healthy"] else 1)
