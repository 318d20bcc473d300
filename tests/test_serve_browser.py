"""`okfpro serve` in a real headless Chromium (the system's, driven by Playwright): every view opens
and draws without a console error, a click opens a concept with its Markdown rendered, search finds,
an edit on disk shows on the open page without a reload (a delete too), and a hostile bundle runs
no script.  Screenshots are kept as artifacts ($OKFPRO_TEST_ARTIFACTS, else the tests' cache)."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest

from tests.helpers import REPO, cache_dir, scoped_env
from tests.test_serve import ALICE, HOSTILE_PAGES, Served, hostile_workspace, make_workspace

CHROMIUM = next((shutil.which(n) for n in ("chromium", "chromium-browser") if shutil.which(n)), None)
try:
    from playwright.sync_api import sync_playwright
except ImportError:  # pragma: no cover - the test extra installs it
    sync_playwright = None

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install -y chromium); .ci/run installs it"),
    pytest.mark.skipif(sync_playwright is None, reason="playwright is not installed (pip install -e .[test])"),
]
VIEWS = ["/", "/?dir=notes", "/catalog", "/files", "/tags", "/types", "/stats", "/graph", "/search?q=cache", "/board", "/journal",
         "/log", "/lint", "/memory", "/concept?id=notes/rich"]


def artifacts() -> Path:
    base = Path(os.environ.get("OKFPRO_TEST_ARTIFACTS") or cache_dir("artifacts")) / "serve"
    base.mkdir(parents=True, exist_ok=True)
    return base


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        yield b
        b.close()


class Watched:
    """A page whose console errors, dialogs and requests beyond the server are recorded."""

    def __init__(self, browser, origin: str, bypass_csp: bool = False) -> None:
        self.context = browser.new_context(viewport={"width": 1300, "height": 850}, bypass_csp=bypass_csp)
        self.page = self.context.new_page()
        self.errors: list[str] = []
        self.outside: list[str] = []
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("dialog", lambda d: (self.errors.append("dialog: " + d.message), d.dismiss()))
        self.page.on("request", lambda r: None if r.url.startswith(origin) else self.outside.append(r.url))

    def close(self) -> None:
        self.context.close()


def test_every_view_a_click_a_search_and_live_edits(browser, tmp_path):
    ws = make_workspace(tmp_path, 300)
    env = scoped_env(PYTHONPATH=str(REPO), **ALICE)
    from tests.helpers import invoke

    assert invoke("memory", "remember", "alice keeps the kafka dashboard", cwd=ws, base_env=env).returncode == 0
    shots = artifacts()
    with Served(".okf", cwd=ws, env=env) as s:
        w = Watched(browser, s.url[:-1])
        page = w.page
        for path in VIEWS:
            page.goto(s.url[:-1] + path)
            page.wait_for_selector("main#main")
            if path == "/graph":
                page.wait_for_function("() => document.getElementById('graph-canvas').dataset.drawn > 0", timeout=20000)
            text = page.inner_text("main")
            assert len(text) > 20, (path, text)
            name = path.strip("/").split("?")[0] or ("index" if "dir=" not in path else "index-notes")
            page.screenshot(path=str(shots / f"{name}.png"), full_page=False)
        assert not w.errors, w.errors
        assert not w.outside, w.outside  # no network beyond the server

        # the graph: a real click on a drawn node opens its concept
        page.goto(s.url + "graph")
        page.wait_for_function("() => document.getElementById('graph-canvas').dataset.drawn > 0", timeout=20000)
        at = page.evaluate("() => document.getElementById('graph-canvas').centre('notes/rich')")
        box = page.locator("#graph-canvas").bounding_box()
        page.mouse.click(box["x"] + at[0], box["y"] + at[1])
        page.wait_for_url("**/concept?id=notes/rich")

        # a concept page: rendered Markdown, a link into the bundle followed by a click
        assert page.inner_text("main h1") == "Rich Text"
        assert page.inner_text(".md strong") == "bold words"
        assert page.locator(".md table td").first.inner_text() == "1"
        assert page.locator(".md a.link.out").get_attribute("rel") == "noopener noreferrer"
        page.click("text=link to plain")
        page.wait_for_url("**/concept?id=notes/plain")

        # search from the header box
        page.fill("header input[name=q]", "zebraword")
        page.press("header input[name=q]", "Enter")
        page.wait_for_selector("ol.results li")
        assert page.locator("ol.results a[data-id='notes/plain']").count() == 1

        # the catalog's concept link
        page.goto(s.url + "catalog")
        page.click("a[data-id='notes/rich']")
        page.wait_for_url("**/concept?id=notes/rich")

        # live: an edit on disk shows within 2 s, without a reload
        page.evaluate("() => { window.__kept = 'same document'; }")
        rich = ws / ".okf" / "notes" / "rich.md"
        rich.write_text(rich.read_text().replace("Some **bold words**", "Now **changed words**"))
        start = time.monotonic()
        page.wait_for_function("() => document.querySelector('.md strong') && "
                               "document.querySelector('.md strong').textContent === 'changed words'", timeout=2500)
        took = time.monotonic() - start
        assert page.evaluate("() => window.__kept") == "same document"  # not reloaded
        page.screenshot(path=str(shots / "live-edit.png"))

        # a new concept appears in the open catalog; a deleted one leaves the open concept page
        page.goto(s.url + "catalog")
        page.evaluate("() => { window.__kept = 'catalog'; }")
        (ws / ".okf" / "notes" / "fresh.md").write_text("---\ntype: Note\ntitle: Fresh One\n---\nnew\n")
        page.wait_for_selector("a[data-id='notes/fresh']", timeout=2500)
        page.goto(s.url + "concept?id=notes/plain")
        page.evaluate("() => { window.__kept = 'plain'; }")
        (ws / ".okf" / "notes" / "plain.md").rename(ws / ".okf" / "notes" / "renamed.md")
        page.wait_for_selector("#missing", timeout=2500)
        assert "deleted or renamed" in page.inner_text("#missing") and page.evaluate("() => window.__kept") == "plain"
        # the board: a card captured by the agent shows on the open board
        page.goto(s.url + "board")
        board = ws / ".okf" / "board.md"
        board.write_text(board.read_text().replace("## Inbox\n", "## Inbox\n\n- 2026-11-30 — a card from the agent\n", 1))
        page.wait_for_selector("text=a card from the agent", timeout=2500)
        # the only console line allowed: the refreshed page's own 404 after the rename
        assert all("status of 404" in e for e in w.errors), w.errors
        w.close()
    print(f"live edit shown after {took:.2f}s")


def test_a_hostile_bundle_runs_no_script(browser, tmp_path):
    ws = hostile_workspace(tmp_path)
    shots = artifacts()
    with Served(".okf", cwd=ws, env=scoped_env(PYTHONPATH=str(REPO), **ALICE)) as s:
        # the CSP off: escaping alone must keep every script out (the policy is the second wall)
        w = Watched(browser, s.url[:-1], bypass_csp=True)
        for path in HOSTILE_PAGES:
            w.page.goto(s.url[:-1] + path)
            w.page.wait_for_selector("main#main")
            w.page.wait_for_timeout(150)
            for el in w.page.locator("main a, main span, main td").all()[:15]:
                if el.is_visible():
                    el.hover(timeout=2000)
            assert w.page.evaluate("() => typeof window.__pwned") == "undefined", path
        w.page.goto(s.url + "concept?id=evil")
        w.page.screenshot(path=str(shots / "hostile-concept.png"))
        assert "<script>window.__pwned=1</script>" in w.page.inner_text("main .md")  # shown as text
        assert not [e for e in w.errors if "dialog" in e], w.errors
        assert not w.outside, w.outside
        w.close()
