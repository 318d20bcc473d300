"""Against the runnable reference (Ruby okf 2.2.0 / okf-pro 1.1.0, ``shared/reference-impl/run-okf``):
the edges of the surface the conformance corpus does not cover — a directory without index.md, a
bundle without board.md, unusable files — answered the same way, exit code and facts.

The reference's answers are goldens (``tests/goldens/reference_parity.json``): every case compares
okfpro with them in the default run, and again (``slow``) with the live reference, which must still
give the golden answer — skipped, with the reason, when the reference or ruby is not on this machine.
Re-record: ``OKFPRO_RECORD_REFERENCE=1 python -m pytest -p no:xdist -m slow tests/test_reference_parity.py``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.helpers import REPO, invoke, shared_dir

RUN_OKF = shared_dir() / "reference-impl" / "run-okf"
needs_reference = pytest.mark.skipif(
    not RUN_OKF.is_file() or shutil.which("ruby") is None,
    reason="the runnable reference (shared/reference-impl/run-okf) or ruby is not installed",
)


GOLDENS = REPO / "tests" / "goldens" / "reference_parity.json"
RECORD = os.environ.get("OKFPRO_RECORD_REFERENCE") == "1"
_recorded: dict[str, list] = {}


def _places(tmp_path: Path) -> list[tuple[str, str]]:
    shared = shared_dir()
    return [(str(tmp_path), "<TMP>"), (str(shared), "<SHARED>"), (os.path.realpath(shared), "<SHARED>")]


def _norm(text: str, tmp_path: Path) -> str:
    for real, name in _places(tmp_path):
        text = text.replace(real, name)
    return text


@pytest.fixture(scope="module")
def goldens():
    data = json.loads(GOLDENS.read_text(encoding="utf-8")) if GOLDENS.is_file() else {}
    yield data
    if RECORD and _recorded:
        GOLDENS.parent.mkdir(exist_ok=True)
        GOLDENS.write_text(json.dumps({**data, **_recorded}, indent=1, sort_keys=True, ensure_ascii=False) + "\n",
                           encoding="utf-8")


@pytest.fixture(params=["golden", pytest.param("live", marks=[pytest.mark.slow, needs_reference])])
def okf(request, goldens, tmp_path):
    """The reference's answer to ``okf ARGS`` (cwd, env): recorded, or asked of the live reference —
    which must still give the recorded answer (with OKFPRO_RECORD_REFERENCE=1 it is recorded)."""

    def ask(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
        key = _norm(json.dumps([list(args), str(cwd), env or {}]), tmp_path)
        if request.param == "golden":
            if key not in goldens:
                pytest.fail(f"no recorded answer for {key} (re-record: see the module's docstring)")
            code, out, err = goldens[key]
            for real, name in _places(tmp_path)[:2]:
                out, err = out.replace(name, real), err.replace(name, real)
            return subprocess.CompletedProcess(args, code, out, err)
        proc = subprocess.run([str(RUN_OKF), *args], cwd=cwd, env={**os.environ, **(env or {})}, capture_output=True,
                              text=True, timeout=120)
        answer = [proc.returncode, _norm(proc.stdout, tmp_path), _norm(proc.stderr, tmp_path)]
        if RECORD:
            _recorded[key] = answer
        else:
            assert goldens.get(key) == answer, f"the reference no longer gives the recorded answer to {key}"
        return proc

    return ask


@pytest.fixture
def loose_dir(tmp_path: Path) -> Path:
    """A directory of concept files: no index.md, one bad frontmatter, one non-UTF-8 file."""
    d = tmp_path / "notes"
    (d / "sub").mkdir(parents=True)
    (d / "a.md").write_text("---\ntype: Note\ntitle: A\ndescription: d\ntags: [x]\n---\nSee [b](sub/b.md).\n")
    (d / "sub" / "b.md").write_text("---\ntype: Note\n---\nBee alpha.\n")
    (d / "bad.md").write_text("---\nbroken: [\n---\n")
    (d / "latin.md").write_bytes(b"---\ntype: T\n---\n\xe9t\xe9\n")
    return d


@pytest.mark.parametrize("view", ["catalog", "files", "stats", "tags", "types", "dirs", "loose", "index", "graph"])
def test_a_directory_without_index_reads_as_the_reference_reads_it(okf, loose_dir, view):
    ours = invoke(view, "notes", "--json", cwd=loose_dir.parent)
    ref = okf(view, "notes", "--json", cwd=loose_dir.parent)
    assert (ours.returncode, ref.returncode) == (0, 0), ours.stderr
    assert json.loads(ours.stdout) == json.loads(ref.stdout)
    # the skipped-files note: same facts (how many, where to look), on stderr, stdout clean
    count = re.compile(r"^note: skipped (\d+) unusable file\(s\) \(run `(okf|okfpro) validate` for details\)$")
    m_ours, m_ref = count.match(ours.stderr.strip()), count.match(ref.stderr.strip())
    assert m_ours and m_ref and m_ours.group(1) == m_ref.group(1) == "2", (ours.stderr, ref.stderr)


@pytest.mark.parametrize("verb", ["validate", "lint"])
def test_validate_and_lint_read_it_too(okf, loose_dir, verb):
    ours = invoke(verb, "notes", "--json", cwd=loose_dir.parent)
    ref = okf(verb, "notes", "--json", cwd=loose_dir.parent)
    assert ours.returncode == ref.returncode, (ours.stderr, ref.stderr)
    o, r = json.loads(ours.stdout), json.loads(ref.stdout)
    key = "counts" if verb == "validate" else "stats"
    assert o[key] == r[key]
    assert ("note: skipped" in ours.stderr) == ("note: skipped" in ref.stderr)


def test_snapshot_and_state_refuse_a_bundle_without_a_board(okf, tmp_path):
    (tmp_path / "index.md").write_text('---\nokf_version: "0.2"\n---\n# Map\n')
    for verb in ("snapshot", "state"):
        ours = invoke(verb, str(tmp_path))
        ref = okf("pro", verb, str(tmp_path), cwd=tmp_path)
        assert ours.returncode == ref.returncode == 2, (verb, ours.stdout, ref.stderr)
        assert ours.stdout == "" and "no board.md" in ours.stderr and "no board.md" in ref.stderr


@pytest.mark.parametrize("terms", [["cache"], ["backlog", "cache"], ["cache", "backlog"], ["hook", "token"]])
def test_search_across_registered_bundles_matches_the_reference(okf, tmp_path, terms):
    """`search @a @b TERM...` and `@all`: the same bundles head, rows, scores, slugs, order and snippets."""
    corpus = shared_dir() / "conformance" / "bundles"
    env_ref = {"OKF_HOME": str(tmp_path / "okf-home")}
    env_ours = {"OKFPRO_HOME": str(tmp_path / "okfpro-home")}
    for slug, name in (("one", "s1001"), ("two", "s1002"), ("three", "s1003")):
        d = str(corpus / name / ".okf")
        assert okf("registry", "set", d, "--as", slug, env=env_ref, cwd=tmp_path).returncode == 0
        assert invoke("registry", "set", slug, d, env=env_ours).returncode == 0
    for refs in (["@one", "@three"], ["@all"]):
        ref = okf("search", *refs, *terms, "--json", env=env_ref, cwd=tmp_path)
        ours = invoke("search", *refs, *terms, "--json", env=env_ours, cwd=tmp_path)
        assert ours.returncode == ref.returncode == 0, ours.stderr
        assert json.loads(ours.stdout) == json.loads(ref.stdout), refs


FILTERED = ["catalog --type term", "catalog --dir ROOT", "catalog --tag Beta", "catalog --status draft",
            "catalog --trust human_reviewed", "files --dir notes/deep", "tags --type Term", "tags --dir notes",
            "types --tag beta", "types --status STABLE", "tags --by dir --type term", "dirs --dir notes --depth 0",
            "index --dir NOTES/ --no-body", "dirs --dir nowhere", "graph --no-body"]


@pytest.mark.parametrize("args", FILTERED)
def test_filters_and_narrowings_match_the_reference(okf, args):
    bundle = shared_dir() / "conformance" / "bundles" / "s1003" / ".okf"
    verb, *rest = args.split()
    ours = invoke(verb, str(bundle), *rest, "--json")
    ref = okf(verb, str(bundle), *rest, "--json", cwd=bundle)
    assert ours.returncode == ref.returncode == 0, ours.stderr
    assert json.loads(ours.stdout) == json.loads(ref.stdout)
