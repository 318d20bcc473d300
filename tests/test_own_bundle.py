"""okfpro documents its own design as an OKF bundle, and that bundle passes okfpro's own gates."""

from __future__ import annotations

import json

from tests.helpers import REPO, invoke


def test_own_bundle_is_conformant() -> None:
    proc = invoke("validate", str(REPO / ".okf"), "--json")
    report = json.loads(proc.stdout)
    assert proc.returncode == 0, report["errors"]
    assert report["conformant"] is True
    assert report["warnings"] == []
    assert report["counts"]["concepts"] >= 5


def test_own_bundle_lints_clean_at_warn() -> None:
    proc = invoke("lint", str(REPO / ".okf"), "--json", "--fail-on", "warn", "--today", "2026-11-30")
    report = json.loads(proc.stdout)
    warns = [f for f in report["findings"] if f["severity"] == "warn"]
    assert proc.returncode == 0, warns
    assert report["healthy"] is True
