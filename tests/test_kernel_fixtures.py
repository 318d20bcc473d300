"""validate and lint on hand-written bundles: every error class, every warning id, every lint check.

Each case starts from one clean bundle (conformant, zero warnings, zero lint
findings), changes one thing on disk, and asserts that exactly the expected
check fires — so "not firing" is pinned by the clean bundle and "firing" by the
change.  The CLI cases run ``python -m okfpro`` as a real process.
"""

from __future__ import annotations

import datetime as dt
import json
import os
from pathlib import Path
from typing import Any

import pytest
import yaml

from okfpro.core.lint import CHECK_IDS, SEVERITIES, UnknownCheck, lint, parse_cutoff
from okfpro.core.validate import CONVENTION_CHECKS, WARNING_CHECKS, validate
from okfpro.io.reader import read_bundle
from tests.helpers import invoke

TODAY = "2026-11-30"
CUTOFF = "2026-01-01"


def doc(fm: dict[str, Any] | None, body: str) -> str:
    if fm is None:
        return body
    text = yaml.safe_dump(fm, sort_keys=False, allow_unicode=True)
    return f"---\n{text}---\n\n{body}"


def alpha_fm(**changes: Any) -> dict[str, Any]:
    fm: dict[str, Any] = {
        "type": "Overview",
        "title": "Alpha",
        "description": "The first concept of the fixture bundle.",
        "generated": {"by": "claude/opus-5", "at": dt.date(2026, 11, 1)},
        "sources": [{"id": "s1", "resource": "https://example.com/alpha", "title": "Alpha source"}],
    }
    for key, value in changes.items():
        if value is _DROP:
            fm.pop(key, None)
        else:
            fm[key] = value
    return fm


def beta_fm(**changes: Any) -> dict[str, Any]:
    fm: dict[str, Any] = {
        "type": "Decision",
        "title": "Beta",
        "description": "The second concept of the fixture bundle.",
        "generated": {"by": "human:rod", "at": "2026-11-02T10:00:00Z"},
        "verified": [{"by": "human:ana", "at": dt.date(2026, 11, 3)}],
    }
    for key, value in changes.items():
        if value is _DROP:
            fm.pop(key, None)
        else:
            fm[key] = value
    return fm


_DROP = object()
ALPHA_BODY = "# Alpha\n\nAlpha leads to [Beta](beta.md) and carries enough prose to not be a stub.[^s1]\n"
BETA_BODY = "# Beta\n\nBeta points back to [Alpha](/alpha.md) with more than fifty characters of text.\n"
ROOT_INDEX = '---\nokf_version: "0.2"\n---\n\n# Bundle\n\n* [Alpha](alpha.md) - first.\n* [Beta](beta.md) - second.\n'
LOG = "# Log\n\n## 2026-11-20\n\n* **Update**: beta.\n\n## 2026-11-10\n\n* **Creation**: alpha.\n"


def clean_files() -> dict[str, str | bytes]:
    return {
        "index.md": ROOT_INDEX,
        "log.md": LOG,
        "alpha.md": doc(alpha_fm(), ALPHA_BODY),
        "beta.md": doc(beta_fm(), BETA_BODY),
    }


def write_bundle(root: Path, files: dict[str, str | bytes | None]) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for rel, content in files.items():
        path = root / rel
        if content is None:
            if path.exists():
                path.unlink()
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return root


def make(tmp_path: Path, **changes: str | bytes | None) -> Path:
    files: dict[str, str | bytes | None] = dict(clean_files())
    for key, value in changes.items():
        files[key.replace("__", "/").replace("_DOT_", ".")] = value
    return write_bundle(tmp_path / "ws" / ".okf", files)


def lint_report(root: Path, **kwargs: Any) -> dict[str, Any]:
    kwargs.setdefault("today", TODAY)
    kwargs.setdefault("stale_after", CUTOFF)
    return lint(read_bundle(root), **kwargs)


# --- the clean bundle ------------------------------------------------------------------
def test_clean_bundle_is_conformant_silent_and_healthy(tmp_path: Path) -> None:
    root = make(tmp_path)
    report = validate(read_bundle(root))
    assert report == {
        "conformant": True,
        "counts": {"concepts": 2, "indexes": 1, "logs": 1},
        "errors": [],
        "warnings": [],
    }
    lr = lint_report(root)
    assert lr["findings"] == []  # so no check fires on it: every "not firing" case
    assert lr["healthy"] is True
    stats = lr["stats"]
    assert stats["skipped_checks"] == []
    assert (stats["concepts"], stats["edges"], stats["components"], stats["loose"], stats["orphans"]) == (2, 2, 1, 0, 0)
    assert stats["trust"] == {"unverified": 1, "machine-confirmed": 0, "human-reviewed": 1}
    assert stats["types"] == {"Decision": 1, "Overview": 1}
    assert stats["status"] == {"stable": 2}
    assert stats["hubs"] == [{"id": "alpha", "in_degree": 1}, {"id": "beta", "in_degree": 1}]


# --- validate: the three error classes ---------------------------------------------------
ERROR_CASES: dict[str, tuple[dict[str, str | bytes | None], str, str]] = {
    "missing frontmatter": ({"gamma.md": "# Gamma\n\nNo frontmatter here.\n"}, "gamma.md", "missing YAML frontmatter"),
    "invalid yaml": ({"gamma.md": "---\ntype: [unclosed\n---\n\nbody\n"}, "gamma.md", "invalid YAML frontmatter"),
    "non-mapping": ({"gamma.md": "---\n- a\n- b\n---\n\nbody\n"}, "gamma.md", "frontmatter must be a mapping"),
    "invalid utf-8 concept": (
        {"gamma.md": b"---\ntype: Term\ntitle: caf\xe9\n---\n\nbody\n"},
        "gamma.md",
        "file content is not valid UTF-8",
    ),
    "invalid utf-8 reserved": (
        {"notes/index.md": b"# Notes\n\ncaf\xe9\n", "notes/n.md": doc(alpha_fm(title="N"), ALPHA_BODY)},
        "notes/index.md",
        "file content is not valid UTF-8",
    ),
    "empty type": ({"alpha.md": doc(alpha_fm(type="  "), ALPHA_BODY)}, "alpha.md", "non-empty type"),
    "missing type": ({"alpha.md": doc(alpha_fm(type=_DROP), ALPHA_BODY)}, "alpha.md", "non-empty type"),
    "nested index frontmatter": (
        {"notes/index.md": '---\ntitle: Notes\n---\n\n# Notes\n'},
        "notes/index.md",
        "nested index.md must not include frontmatter",
    ),
    "root index extra key": (
        {"index.md": '---\nokf_version: "0.2"\ntitle: Mine\n---\n\n* [Alpha](alpha.md)\n* [Beta](beta.md)\n'},
        "index.md",
        "root index.md frontmatter may only include okf_version",
    ),
    "log heading not a date": ({"log.md": "# Log\n\n## Yesterday\n\n* x\n"}, "log.md", "YYYY-MM-DD"),
    "log heading not a calendar day": ({"log.md": "# Log\n\n## 2026-02-30\n\n* x\n"}, "log.md", "YYYY-MM-DD"),
}


@pytest.mark.parametrize("case", list(ERROR_CASES))
def test_each_error_class(tmp_path: Path, case: str) -> None:
    changes, path, fragment = ERROR_CASES[case]
    files = dict(clean_files())
    files.update(changes)
    root = write_bundle(tmp_path / ".okf", files)
    report = validate(read_bundle(root))
    assert report["conformant"] is False
    assert [e["path"] for e in report["errors"]] == [path]
    assert fragment in report["errors"][0]["message"]


def test_symlink_out_of_root_is_an_error_not_a_read(tmp_path: Path) -> None:
    secret = tmp_path / "outside.md"
    secret.write_text("---\ntype: Secret\n---\n\nsecret [x](alpha.md)\n", encoding="utf-8")
    root = make(tmp_path)
    os.symlink(secret, root / "escape.md")
    report = validate(read_bundle(root))
    assert report["errors"] == [{"path": "escape.md", "message": "symlink target escapes bundle root"}]
    assert report["counts"]["concepts"] == 3  # an unreadable concept-position file still counts


def test_invalid_utf8_is_not_counted_other_unparseables_are(tmp_path: Path) -> None:
    root = make(tmp_path, bad_DOT_md=b"\xff\xfe", plain_DOT_md="no frontmatter\n")
    report = validate(read_bundle(root))
    assert report["counts"]["concepts"] == 3  # alpha, beta, plain — not the invalid-UTF-8 file
    assert {e["path"] for e in report["errors"]} == {"bad.md", "plain.md"}


def test_log_errors_one_per_bad_heading_and_order(tmp_path: Path) -> None:
    root = make(
        tmp_path,
        log_DOT_md="# Log\n\n## 2026-02-30\n\n## soon\n\n## 2026-11-01\n",
        gamma_DOT_md="# no frontmatter\n",
        alpha_DOT_md=doc(alpha_fm(type=""), ALPHA_BODY),
    )
    report = validate(read_bundle(root))
    # concepts first, then reserved files, then unparseable files
    assert [e["path"] for e in report["errors"]] == ["alpha.md", "log.md", "log.md", "gamma.md"]


# --- validate: every warning id ------------------------------------------------------------
def _alpha(**changes: Any) -> dict[str, str]:
    return {"alpha.md": doc(alpha_fm(**changes), ALPHA_BODY)}


AC = {"type": "Attested Computation", "runtime": "python3"}
WARNING_CASES: dict[str, dict[str, str]] = {
    "recommended_title": _alpha(title=_DROP),
    "recommended_description": _alpha(description="   "),
    "tags_shape": _alpha(tags="alpha, beta"),
    "timestamp_format": _alpha(timestamp="last tuesday"),
    "generated_shape": _alpha(generated="claude/opus-5"),
    "generated_by": _alpha(generated={"at": dt.date(2026, 11, 1)}),
    "generated_at_format": _alpha(generated={"by": "claude/opus-5", "at": "yesterday"}),
    "verified_shape": _alpha(verified="human:rod"),
    "verified_entry_shape": _alpha(verified=["human:rod"]),
    "verified_entry_by": _alpha(verified=[{"at": dt.date(2026, 11, 2)}]),
    "verified_entry_at_format": _alpha(verified=[{"by": "human:rod", "at": "soon"}]),
    "sources_shape": _alpha(sources="https://example.com/alpha"),
    "source_entry_shape": _alpha(sources=["https://example.com/alpha"]),
    "source_resource": _alpha(sources=[{"id": "s1", "title": "no resource"}]),
    "source_last_modified": _alpha(
        sources=[{"id": "s1", "resource": "https://example.com/a", "last_modified": "2026-11"}]
    ),
    "source_usage_count": _alpha(sources=[{"id": "s1", "resource": "https://example.com/a", "usage_count": "many"}]),
    "source_usage_window_shape": _alpha(
        sources=[{"id": "s1", "resource": "https://example.com/a", "usage_window": "2026"}]
    ),
    "usage_window_shape": _alpha(usage_window="all of 2026"),
    "usage_window_date": _alpha(usage_window={"from": "2026-1-1", "to": dt.date(2026, 2, 1)}),
    "status_vocabulary": _alpha(status="archived"),
    "stale_after_format": _alpha(stale_after="next week"),
    "runtime_required": {"alpha.md": doc(alpha_fm(type="Attested Computation", computation="/calc.py"), ALPHA_BODY)},
    "parameters_shape": _alpha(parameters="n"),
    "parameter_entry_shape": _alpha(parameters=["n"]),
    "parameter_name": _alpha(parameters=[{"type": "int", "required": True}]),
    "executor_shape": _alpha(executor="run it"),
    "executor_resource": _alpha(executor={"receipt": ["rows"]}),
    "attester_shape": _alpha(attester="check it"),
    "attester_resource": _alpha(attester={"kind": "sql"}),
    "okf_version_unknown": {"index.md": ROOT_INDEX.replace('"0.2"', '"9.9"')},
    "broken_link": {"beta.md": doc(beta_fm(), BETA_BODY + "\nSee [gone](gone.md#part).\n")},
}


# The reference's convention-sourced checks (everything else is ``spec``), written out here
# rather than read from the module so that a drift in the module fails this test.
CONVENTION = {
    "verified_entry_by", "source_usage_count", "source_usage_window_shape",
    "parameter_name", "executor_resource", "attester_resource",
}


def test_every_warning_id_has_a_case() -> None:
    assert set(WARNING_CASES) == set(WARNING_CHECKS)
    assert len(WARNING_CHECKS) == 31
    assert CONVENTION_CHECKS == CONVENTION


@pytest.mark.parametrize("check", WARNING_CHECKS)
def test_each_warning_id_fires_alone(tmp_path: Path, check: str) -> None:
    files = dict(clean_files())
    files.update(WARNING_CASES[check])
    root = write_bundle(tmp_path / ".okf", files)
    report = validate(read_bundle(root))
    assert report["conformant"] is True  # warnings never make a bundle non-conformant
    assert [(w["check"]) for w in report["warnings"]] == [check]
    warning = report["warnings"][0]
    assert warning["source"] == ("convention" if check in CONVENTION else "spec")
    assert warning["path"] == ("index.md" if check == "okf_version_unknown" else
                               "beta.md" if check == "broken_link" else "alpha.md")
    assert warning["message"]


def test_status_vocabulary_folds_and_catches_blank_and_boolean(tmp_path: Path) -> None:
    for value, fires in (("Stable", False), (" deprecated ", False), ("", True), (False, True), (None, True)):
        root = write_bundle(tmp_path / f"s{value!r}", {**clean_files(), **_alpha(status=value)})
        checks = [w["check"] for w in validate(read_bundle(root))["warnings"]]
        assert (checks == ["status_vocabulary"]) is fires, value


def test_moments_and_days(tmp_path: Path) -> None:
    cases = [
        (_alpha(timestamp="2026-11-01T10:00:00Z"), []),
        (_alpha(timestamp="2026-11-01"), []),
        (_alpha(timestamp="2026-13-01"), ["timestamp_format"]),
        (_alpha(stale_after=dt.date(2026, 12, 1)), []),
        (_alpha(stale_after="2026-12-01"), []),
        (_alpha(stale_after=dt.datetime(2026, 12, 1, 10, 0)), ["stale_after_format"]),
        (_alpha(stale_after="2026-02-30"), ["stale_after_format"]),
        (_alpha(stale_after=20261201), ["stale_after_format"]),
        ({"index.md": ROOT_INDEX.replace('"0.2"', "0.2")}, []),  # an unquoted YAML float is still 0.2
    ]
    for i, (change, expected) in enumerate(cases):
        root = write_bundle(tmp_path / f"c{i}", {**clean_files(), **change})
        assert [w["check"] for w in validate(read_bundle(root))["warnings"]] == expected, change


def test_pure_v01_concept_validates_silently(tmp_path: Path) -> None:
    v01 = "---\ntype: Term\ntitle: Old\ndescription: A v0.1 concept.\ntimestamp: 2025-01-01T00:00:00Z\n---\n\nbody\n"
    root = make(tmp_path, old_DOT_md=v01)
    assert validate(read_bundle(root))["warnings"] == []


# --- lint: every check ---------------------------------------------------------------------
def _index_with(*lines: str) -> str:
    return ROOT_INDEX + "".join(f"* {line}\n" for line in lines)


LONG = " It has plenty of words so that it is never mistaken for a stub."
LINT_CASES: dict[str, dict[str, str | bytes | None]] = {
    "orphan": {"gamma.md": doc(beta_fm(title="Gamma"), "# Gamma\n\nNothing links here and no index lists it." + LONG)},
    "not_in_index": {
        "alpha.md": doc(alpha_fm(), ALPHA_BODY + "\nAlso [Gamma](gamma.md).\n"),
        "gamma.md": doc(beta_fm(title="Gamma"), "# Gamma\n\nBack to [Alpha](alpha.md)." + LONG),
    },
    "disconnected_component": {
        "index.md": _index_with("[Gamma](gamma.md) - g.", "[Delta](delta.md) - d."),
        "gamma.md": doc(beta_fm(title="Gamma"), "# Gamma\n\nOnly to [Delta](delta.md)." + LONG),
        "delta.md": doc(beta_fm(title="Delta"), "# Delta\n\nOnly to [Gamma](gamma.md)." + LONG),
    },
    "unlinked": {
        "index.md": _index_with("[Gamma](gamma.md) - listed, but no link in or out."),
        "gamma.md": doc(beta_fm(title="Gamma"), "# Gamma\n\nListed in the index, linked by nobody." + LONG),
    },
    "missing_concept": {"beta.md": doc(beta_fm(), BETA_BODY + "\nSee [later](notes/later.md).\n")},
    "broken_index_entry": {"index.md": _index_with("[Gone](gone.md) - removed.")},
    "stub": {"beta.md": doc(beta_fm(), "Short. [Alpha](alpha.md)\n")},
    "missing_title": {"beta.md": doc(beta_fm(title=_DROP), BETA_BODY)},
    "missing_description": {"beta.md": doc(beta_fm(description=""), BETA_BODY)},
    "missing_generated": {"beta.md": doc(beta_fm(generated=_DROP), BETA_BODY)},
    "expired": {"beta.md": doc(beta_fm(stale_after=dt.date(2026, 11, 30)), BETA_BODY)},  # on the day itself
    "stale": {"beta.md": doc(beta_fm(generated={"by": "human:rod", "at": dt.date(2025, 6, 1)}), BETA_BODY)},
    "uncited_external": {"beta.md": doc(beta_fm(), BETA_BODY + "\nRead [the docs](https://example.com/docs).\n")},
    "broken_source": {
        "alpha.md": doc(
            alpha_fm(sources=[{"id": "s1", "resource": "https://example.com/a"}, {"id": "s2", "resource": "/gone.md"}]),
            ALPHA_BODY + "\nAnd a second claim.[^s2]\n",
        )
    },
    "unattributed_claim": {"alpha.md": doc(alpha_fm(), ALPHA_BODY + "\nA claim nobody sourced.[^zz]\n")},
    "unused_source": {
        "alpha.md": doc(
            alpha_fm(sources=[{"id": "s1", "resource": "https://example.com/a"},
                              {"id": "s9", "resource": "https://example.com/z"}]),
            ALPHA_BODY,
        )
    },
    "unprefixed_actor": {"alpha.md": doc(alpha_fm(generated={"by": "bot", "at": dt.date(2026, 11, 1)}), ALPHA_BODY)},
    "incomplete_computation": {"alpha.md": doc(alpha_fm(**AC), ALPHA_BODY)},
    "broken_attestation_ref": {"alpha.md": doc(alpha_fm(**AC, computation="/calc/missing.md"), ALPHA_BODY)},
    "legacy_timestamp": {
        "beta.md": doc(beta_fm(generated=_DROP, timestamp="2026-11-02T10:00:00Z"), BETA_BODY)
    },
    "legacy_citations": {
        "beta.md": doc(beta_fm(), BETA_BODY + "\n# Citations\n\n- [Ex](https://example.com/ex)\n")
    },
    "duplicate_title": {"beta.md": doc(beta_fm(title="ALPHA"), BETA_BODY)},
    "unused_reference_def": {"beta.md": doc(beta_fm(), BETA_BODY + "\n[spare]: /alpha.md\n")},
    "undefined_reference": {"beta.md": doc(beta_fm(), BETA_BODY + "\nSee [this][nodef].\n")},
    "self_link": {"beta.md": doc(beta_fm(), BETA_BODY + "\nOr [myself](beta.md#top).\n")},
    "log_order": {"log.md": "# Log\n\n## 2026-11-10\n\n* a\n\n## 2026-11-20\n\n* b\n"},
}

# Checks that a case may set off beside its own (a new concept is also unlinked, …).
ALSO = {"orphan": {"not_in_index", "unlinked"}}


def test_every_lint_check_has_a_case_and_a_pinned_severity() -> None:
    assert set(LINT_CASES) == set(CHECK_IDS)
    assert len(CHECK_IDS) == 26
    assert SEVERITIES == {
        "orphan": "warn", "not_in_index": "warn", "disconnected_component": "info", "unlinked": "info",
        "missing_concept": "info", "broken_index_entry": "warn", "stub": "info", "missing_title": "info",
        "missing_description": "info", "missing_generated": "info", "expired": "info", "stale": "warn",
        "uncited_external": "info", "broken_source": "warn", "unattributed_claim": "warn",
        "unused_source": "info", "unprefixed_actor": "info", "incomplete_computation": "warn",
        "broken_attestation_ref": "warn", "legacy_timestamp": "info", "legacy_citations": "info",
        "duplicate_title": "info", "unused_reference_def": "info", "undefined_reference": "warn",
        "self_link": "info", "log_order": "info",
    }


@pytest.mark.parametrize("check", CHECK_IDS)
def test_each_lint_check_fires(tmp_path: Path, check: str) -> None:
    files = dict(clean_files())
    files.update(LINT_CASES[check])
    root = write_bundle(tmp_path / ".okf", files)
    report = lint_report(root)
    fired = {f["check"] for f in report["findings"]}
    assert check in fired
    assert fired - {check} <= ALSO.get(check, set()), fired
    finding = next(f for f in report["findings"] if f["check"] == check)
    assert finding["severity"] == SEVERITIES[check]
    assert finding["message"]
    assert report["healthy"] is not any(f["severity"] == "warn" for f in report["findings"])
    # --only narrows to the check; --except removes it.
    only = lint_report(root, only=[check])
    assert {f["check"] for f in only["findings"]} == {check}
    assert check not in {f["check"] for f in lint_report(root, except_=check)["findings"]}


def test_lint_finding_shapes(tmp_path: Path) -> None:
    beta = doc(
        beta_fm(generated=_DROP, timestamp="2026-11-02T10:00:00Z", stale_after=dt.date(2026, 11, 30)),
        BETA_BODY + "\nSee [later](notes/later.md).\nOr [myself](beta.md#top).\n",
    )
    root = write_bundle(tmp_path / ".okf", {**clean_files(), "beta.md": beta})
    by_check = {f["check"]: f for f in lint_report(root)["findings"]}
    assert by_check["missing_concept"]["path"] == "notes/later.md"
    assert by_check["missing_concept"]["metric"] == {"references": 1, "sources": ["beta"]}
    assert by_check["expired"]["metric"] == {"days_past": 0, "stale_after": "2026-11-30"}
    assert by_check["legacy_timestamp"]["path"] is None
    assert by_check["legacy_timestamp"]["metric"] == {"concepts": ["beta.md"]}
    assert by_check["self_link"]["metric"] == {"count": 1}
    assert set(by_check["self_link"]) == {"check", "severity", "path", "message", "metric"}


def test_lint_negative_edges(tmp_path: Path) -> None:
    # An index listing makes a concept reachable (not an orphan) but not linked (unlinked).
    root = write_bundle(tmp_path / "a", {**clean_files(), **LINT_CASES["unlinked"]})
    fired = {f["check"] for f in lint_report(root)["findings"]}
    assert "orphan" not in fired and "unlinked" in fired
    # expired is inclusive of the day, and silent the day before.
    root = write_bundle(tmp_path / "b", {**clean_files(), **LINT_CASES["expired"]})
    assert "expired" not in {f["check"] for f in lint_report(root, today="2026-11-29")["findings"]}
    # A computation given exactly one way is complete.
    root = write_bundle(tmp_path / "c", {**clean_files(), "alpha.md": doc(
        alpha_fm(**AC), ALPHA_BODY + "\n# Computation\n\n```sql\nselect 1\n```\n")})
    assert "incomplete_computation" not in {f["check"] for f in lint_report(root)["findings"]}
    # ... and both ways is incomplete again.
    root = write_bundle(tmp_path / "d", {**clean_files(), "calc.md": doc(beta_fm(title="Calc"), BETA_BODY),
                                         "index.md": _index_with("[Calc](calc.md) - c."),
                                         "alpha.md": doc(alpha_fm(**AC, computation="/calc.md"),
                                                         ALPHA_BODY + "\n# Computation\n\n```sql\nselect 1\n```\n")})
    found = [f for f in lint_report(root)["findings"] if f["check"] == "incomplete_computation"]
    assert found and found[0]["metric"]["provided"] == ["computation", "body"]
    # A fenced link is not a link; an image is not a link.
    root = write_bundle(tmp_path / "e", {**clean_files(), "beta.md": doc(
        beta_fm(), BETA_BODY + "\n```\n[x](gone.md)\n```\n![img](gone2.md) and `[y](gone3.md)`\n")})
    assert lint_report(root)["findings"] == []


def test_clock_gated_checks_confess_when_they_cannot_run(tmp_path: Path) -> None:
    root = make(tmp_path)
    report = lint(read_bundle(root))
    assert report["stats"]["skipped_checks"] == ["expired", "stale"]
    report = lint(read_bundle(root), today=TODAY)
    assert report["stats"]["skipped_checks"] == ["stale"]
    report = lint(read_bundle(root), stale_after="90d")  # relative cutoff, no day to count from
    assert report["stats"]["skipped_checks"] == ["expired", "stale"]
    report = lint(read_bundle(root), only="missing_title")  # not selected -> not confessed
    assert report["stats"]["skipped_checks"] == []


def test_stale_after_forms() -> None:
    today = dt.date(2026, 11, 30)
    assert parse_cutoff("90d", today) == (dt.date(2026, 9, 1), False)
    assert parse_cutoff("12w", today) == (dt.date(2026, 9, 7), False)
    assert parse_cutoff("2026-01-01", today) == (dt.date(2026, 1, 1), False)
    assert parse_cutoff("2026-01-01T10:00:00Z", today) == (dt.date(2026, 1, 1), False)
    assert parse_cutoff(None, today) == (None, False)
    for bad in ("90", "90 days", "20260101", "2026-02-30", "2026-01-01Tnoon", "soon"):
        with pytest.raises(ValueError):
            parse_cutoff(bad, today)


def test_unknown_check_id_is_a_value_error(tmp_path: Path) -> None:
    root = make(tmp_path)
    with pytest.raises(UnknownCheck):
        lint(read_bundle(root), only="orphan,nope")
    with pytest.raises(ValueError):
        lint(read_bundle(root), except_=["reachability"])  # categories are not ids


# --- the CLI, as a real process ---------------------------------------------------------------
def _json(proc) -> dict[str, Any]:
    assert proc.stdout.count("\n") == 1, proc.stdout[:200]
    return json.loads(proc.stdout)


def test_cli_unknown_check_exits_2(tmp_path: Path) -> None:
    make(tmp_path)
    for flag in ("--only", "--except"):
        proc = invoke("lint", ".okf", flag, "orphan,no_such_check", cwd=tmp_path / "ws")
        assert proc.returncode == 2
        assert "no_such_check" in proc.stderr
        assert proc.stdout == ""


def test_cli_validate_exit_codes_and_envelope(tmp_path: Path) -> None:
    ws = make(tmp_path).parent
    proc = invoke("validate", "--json", cwd=ws)  # DIR omitted: the bundle enclosing cwd
    assert proc.returncode == 0, proc.stderr
    report = _json(proc)
    assert report["bundle"] == ".okf" and report["conformant"] is True
    assert list(report) == ["bundle", "conformant", "counts", "errors", "warnings"]
    proc = invoke("validate", str(ws), "--pretty")  # DIR -> DIR/.okf
    assert proc.returncode == 0 and proc.stdout.startswith("{\n  ")
    assert json.loads(proc.stdout)["bundle"] == os.path.join(str(ws), ".okf")
    write_bundle(ws / ".okf", {"gamma.md": "no frontmatter\n"})
    proc = invoke("validate", cwd=ws)
    assert proc.returncode == 1
    assert "gamma.md" in proc.stdout and "NOT conformant" in proc.stdout
    assert "3 concepts" in proc.stdout.splitlines()[-1]


def test_cli_no_bundle_exits_2(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    for verb in ("validate", "lint"):
        proc = invoke(verb, cwd=tmp_path / "empty")
        assert proc.returncode == 2 and "no bundle" in proc.stderr
        proc = invoke(verb, str(tmp_path / "missing"))
        assert proc.returncode == 2 and proc.stderr


def test_cli_lint_fail_on_and_flags(tmp_path: Path) -> None:
    root = make(tmp_path, **{"beta.md": doc(beta_fm(title=_DROP), BETA_BODY)})  # one info finding
    ws = root.parent
    base = ["lint", ".okf", "--json", "--today", TODAY, "--stale-after", CUTOFF]
    assert invoke(*base, cwd=ws).returncode == 0
    assert invoke(*base, "--fail-on", "warn", cwd=ws).returncode == 0
    proc = invoke(*base, "--fail-on", "info", cwd=ws)
    assert proc.returncode == 1
    report = _json(proc)
    assert list(report) == ["bundle", "healthy", "stats", "findings"]
    assert [(f["check"], f["path"]) for f in report["findings"]] == [("missing_title", "beta.md")]
    # a warn finding fails --fail-on warn
    write_bundle(root, LINT_CASES["orphan"])
    assert invoke(*base, "--fail-on", "warn", cwd=ws).returncode == 1
    assert invoke(*base, "--fail-on", "never", cwd=ws).returncode == 0
    # --stale-after forms and a bad one
    for value in ("90d", "12w", "2026-01-01", "2026-01-01T00:00:00Z"):
        assert invoke("lint", ".okf", "--stale-after", value, cwd=ws).returncode == 0, value
    bad = invoke("lint", ".okf", "--stale-after", "90", cwd=ws)
    assert bad.returncode == 2 and "90" in bad.stderr
    assert invoke("lint", ".okf", "--today", "30/11/2026", cwd=ws).returncode == 2
    assert invoke("lint", ".okf", "--fail-on", "sometimes", cwd=ws).returncode == 2
    assert invoke("lint", ".okf", "--min-body", "-1", cwd=ws).returncode == 2
    # --min-body tunes stub; without --stale-after, stale is confessed as skipped
    proc = invoke("lint", ".okf", "--json", "--min-body", "5000", "--only", "stub", cwd=ws)
    report = _json(proc)
    assert {f["check"] for f in report["findings"]} == {"stub"}
    assert report["stats"]["skipped_checks"] == []
    proc = invoke("lint", ".okf", "--json", cwd=ws, env={"OKFPRO_TODAY": TODAY})
    assert _json(proc)["stats"]["skipped_checks"] == ["stale"]
    # human output names what was skipped and ends with the verdict
    proc = invoke("lint", ".okf", cwd=ws, env={"OKFPRO_TODAY": TODAY})
    assert proc.returncode == 0
    assert "skipped: stale" in proc.stdout
    assert proc.stdout.rstrip().splitlines()[-1].startswith("NOT healthy")


def test_legacy_citations_are_read_as_the_reference_reads_them(tmp_path: Path) -> None:
    body = (
        "# Beta\n\nBeta points back to [Alpha](/alpha.md) with more than fifty characters of text.\n\n"
        "# Citations\n\n"
        "- see https://example.com/prose for details\n"
        "- https://example.com/bare\n"
        "- <mailto:someone@example.com>\n\n"
        "## Older\n\n"
        "- [Gone](/gone.md)\n"
        "- [By reference][r]\n\n"
        "[r]: /alpha.md\n\n"
        "# After\n\n"
        "- [Not a citation](https://example.com/after)\n"
    )
    root = write_bundle(tmp_path / ".okf", {**clean_files(), "beta.md": doc(beta_fm(), body)})
    bundle = read_bundle(root)
    beta = next(c for c in bundle.concepts if c.path == "beta.md")
    assert beta.sources == [
        {"resource": "https://example.com/bare"},
        {"resource": "mailto:someone@example.com"},
        {"title": "Gone", "resource": "/gone.md"},
        {"title": "By reference", "resource": "/alpha.md"},
    ]
    fired = {(f["check"], f["path"]) for f in lint_report(root)["findings"]}
    assert ("broken_source", "beta.md") in fired
    assert ("legacy_citations", None) in fired
    assert ("uncited_external", "beta.md") not in fired  # the lifted citations are its sources


def test_graph_edges_indexes_hubs_components(tmp_path: Path) -> None:
    from okfpro.core.graph import build

    files = {
        **clean_files(),
        # a custom id: links still resolve by path, edges carry the id
        "notes/gamma.md": doc(
            beta_fm(title="Gamma", id="topics/gamma", tags=["x", "y", "x"],
                    sources=[{"id": "s", "resource": "../alpha.md"}, {"id": "t", "resource": "https://e.com"}]),
            "# Gamma\n\n[a](/alpha.md) [a again](../alpha.md#x) [me](gamma.md) [gone](/gone.md) [beta][b]\n\n[b]: /beta.md\n",
        ),
        "lone.md": doc(beta_fm(title="Lone", type=""), "# Lone\n\nNo links at all.\n"),
    }
    g = build(read_bundle(write_bundle(tmp_path / ".okf", files)))
    assert g.ids == ["alpha", "beta", "lone", "topics/gamma"]
    assert sorted(g.edges) == [("alpha", "beta"), ("beta", "alpha"), ("topics/gamma", "alpha"), ("topics/gamma", "beta")]
    assert g.in_degree("alpha") == 2 and g.out_degree("topics/gamma") == 2 and g.degree("lone") == 0
    assert g.unlinked == ["lone"]
    assert g.type_index == {"Overview": ["alpha"], "Decision": ["beta", "topics/gamma"], "Untyped": ["lone"]}
    assert g.tag_index == {"x": ["topics/gamma"], "y": ["topics/gamma"]}
    assert [(h["id"], h["inbound"], h["by_top_dir"]) for h in g.hubs()] == [
        ("alpha", 2, {"(root)": 1, "topics": 1}),
        ("beta", 2, {"(root)": 1, "topics": 1}),
    ]
    assert g.components == [["alpha", "beta", "topics/gamma"], ["lone"]]
    assert g.node("lone")["title"] == "Lone" and g.node("alpha", minimal=True) == {"id": "alpha", "title": "Alpha"}


def test_identity_view_of_findings_with_a_custom_id(tmp_path: Path) -> None:
    # The reference names a concept by its id: findings say `<id>.md`, index listings and self
    # links are matched against the id, and the directory it "lives" in is its id's directory.
    renamed = doc(beta_fm(title="Gamma", id="topics/gamma", description=""),
                  "# Gamma\n\nLinks to [its own file](gamma.md) and [its id](/topics/gamma.md) and [Alpha](/alpha.md).\n")
    files = {**clean_files(), "notes/gamma.md": renamed, "notes/index.md": "# Notes\n\n* [Gamma](gamma.md)\n"}
    report = lint_report(write_bundle(tmp_path / ".okf", files))
    found = {(f["check"], f["path"]) for f in report["findings"]}
    assert ("missing_description", "topics/gamma.md") in found
    assert ("self_link", "topics/gamma.md") in found
    assert [f["metric"] for f in report["findings"] if f["check"] == "self_link"] == [{"count": 1}]
    # notes/index.md lists notes/gamma.md, which is not the id: no index names topics/gamma
    assert ("orphan", "topics/gamma.md") in found
    assert not any(f["check"] == "not_in_index" for f in report["findings"])  # no topics/index.md


def test_stats_counters_follow_the_selected_checks(tmp_path: Path) -> None:
    root = write_bundle(tmp_path / ".okf", {**clean_files(), **LINT_CASES["orphan"]})
    full = lint_report(root)["stats"]
    assert (full["orphans"], full["loose"]) == (1, 1)
    narrowed = lint_report(root, only="stub")["stats"]
    assert (narrowed["orphans"], narrowed["loose"], narrowed["stubs"], narrowed["backlog"]) == (0, 0, 0, 0)
    assert narrowed["concepts"] == 3 and narrowed["components"] == 2  # the rest is not selection-bound


def test_repeated_tags_and_dangling_footnotes_count_each_time(tmp_path: Path) -> None:
    files = {**clean_files(),
             "alpha.md": doc(alpha_fm(tags=["x", "x", "y"]), ALPHA_BODY + "\nOne.[^zz] Two.[^zz]\n")}
    report = lint_report(write_bundle(tmp_path / ".okf", files))
    assert report["stats"]["tags"] == {"x": 2, "y": 1}
    assert [f["check"] for f in report["findings"]].count("unattributed_claim") == 2


def test_prose_only_citations_section_silences_uncited_external(tmp_path: Path) -> None:
    body = BETA_BODY + "\nRead [the docs](https://example.com/docs).\n\n# Citations\n\nThe Q3 report, page 4.\n"
    report = lint_report(write_bundle(tmp_path / ".okf", {**clean_files(), "beta.md": doc(beta_fm(), body)}))
    checks = {f["check"] for f in report["findings"]}
    assert "uncited_external" not in checks and "legacy_citations" in checks
