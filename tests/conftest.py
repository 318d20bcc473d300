"""Session-wide test environment: a Git identity and a pinned, hermetic home.

Tests run real Git (pygit2 and the git CLI); a CI machine may have no global
identity, so one is set here for every process the tests start.
"""

from __future__ import annotations

import os
import tempfile

import pytest

os.environ.setdefault("GIT_AUTHOR_NAME", "okfpro tests")
os.environ.setdefault("GIT_AUTHOR_EMAIL", "tests@okfpro.invalid")
os.environ.setdefault("GIT_COMMITTER_NAME", "okfpro tests")
os.environ.setdefault("GIT_COMMITTER_EMAIL", "tests@okfpro.invalid")
os.environ.pop("OKFPRO_TODAY", None)
# Caches of bundles outside a workspace go to the user's cache directory: a private one per run.
os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="okfpro-test-cache-")
# The bundle registry: a private, empty one per run (never the developer's own).
os.environ["OKFPRO_HOME"] = tempfile.mkdtemp(prefix="okfpro-test-home-")
for _var in ("OKFPRO_TENANT", "OKFPRO_USER", "OKFPRO_AGENT", "OKFPRO_SESSION", "OKFPRO_BUNDLE", "OKFPRO_NO_CACHE"):
    os.environ.pop(_var, None)


@pytest.fixture
def today_env(monkeypatch: pytest.MonkeyPatch):
    """Pin okfpro's clock for a test: returns a setter."""

    def pin(day: str) -> None:
        monkeypatch.setenv("OKFPRO_TODAY", day)

    return pin


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The ``slow`` tests run first: under ``-n`` a 60 s test started last is a minute of one idle core."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)  # stable: file order otherwise
