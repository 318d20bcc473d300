"""`okfpro serve` over real HTTP: a real server process on loopback, asked with raw requests.

Every JSON route answers what the CLI's ``--json`` prints for the same bundle; the HTML pages
hold no markup from the bundle (script, handlers, unsafe URLs) however hostile its text; the
server answers GET/HEAD only, its own Host only, and nothing outside the bundle whatever the
path; the memory served is the server's identity's only.  The browser half is
tests/test_serve_browser.py."""

from __future__ import annotations

import http.client
import json
import os
import re
import shutil
import subprocess
import sys
import time
from html.parser import HTMLParser
from pathlib import Path

import pytest

from tests.helpers import REPO, invoke, scoped_env

ALICE = dict(OKFPRO_TENANT="acme", OKFPRO_USER="alice")
BOB = dict(OKFPRO_TENANT="acme", OKFPRO_USER="bob")
SECRET = "TOPSECRET-outside-the-bundle"


class Served:
    """``okfpro serve ARGS`` as a real process (port 0: the kernel picks one), stopped on exit."""

    def __init__(self, *args: str, cwd: Path, env: dict[str, str] | None = None) -> None:
        full = {**(env or os.environ)}
        full.setdefault("PYTHONPATH", str(REPO))
        full["PYTHONUNBUFFERED"] = "1"
        self.proc = subprocess.Popen([sys.executable, "-m", "okfpro", "serve", *args, "--port", "0"], cwd=cwd,
                                     env=full, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline() if self.proc.stdout else ""
        m = re.search(r"http://([^/ ]+)/", line)
        if not m:
            self.stop()
            raise AssertionError(f"serve did not start: {line!r} {self.proc.stderr.read() if self.proc.stderr else ''}")
        self.host = m.group(1)
        self.url = f"http://{self.host}/"
        self.port = int(self.host.rsplit(":", 1)[1])

    def request(self, path: str, *, method: str = "GET", headers: dict[str, str] | None = None,
                body: bytes | None = None) -> tuple[int, dict[str, str], bytes]:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        try:
            hdrs = {"Host": self.host, **(headers or {})}
            conn.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
            for k, v in hdrs.items():
                conn.putheader(k, v)
            conn.endheaders(body)
            r = conn.getresponse()
            return r.status, {k.lower(): v for k, v in r.getheaders()}, r.read()
        finally:
            conn.close()

    def json(self, path: str) -> object:
        status, _, body = self.request(path)
        assert status == 200, (path, status, body[:300])
        return json.loads(body)

    def page(self, path: str) -> tuple[int, str]:
        status, headers, body = self.request(path, headers={"Accept": "text/html"})
        assert headers["content-type"].startswith("text/html"), (path, headers)
        return status, body.decode("utf-8")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        for stream in (self.proc.stdout, self.proc.stderr):
            if stream:
                stream.close()

    def __enter__(self) -> "Served":
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def make_workspace(tmp_path: Path, n: int = 120) -> Path:
    """A generated workspace (bench/gen_bundle.py: board, log, index per directory) with memory on,
    plus concepts whose Markdown exercises the renderer."""
    sys.path.insert(0, str(REPO / "bench"))
    from gen_bundle import generate

    generate(tmp_path / "ws", n)
    ws = tmp_path / "ws"
    (ws / "okfpro.toml").write_text("[memory]\n")
    okf = ws / ".okf"
    (okf / "notes").mkdir(exist_ok=True)
    (okf / "notes" / "rich.md").write_text(
        "---\ntype: Note\ntitle: Rich Text\ntags: [demo]\ndescription: Markdown rendered\n---\n"
        "# Heading\n\nSome **bold words** and a [link to plain](plain.md) and [away](https://example.org/x).\n\n"
        "| a | b |\n|---|---|\n| 1 | 2 |\n\n[gone](missing.md)\n")
    (okf / "notes" / "plain.md").write_text("---\ntype: Note\ntitle: Plain\n---\nNothing special. zebraword\n")
    journal = okf / "journal"
    journal.mkdir(exist_ok=True)
    (journal / "2026-11-29.md").write_text("---\ntype: Journal\ntitle: 2026-11-29\n---\n# Day\n\n- did *things*\n")
    return ws


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    ws = make_workspace(tmp_path_factory.mktemp("serve"))
    env = scoped_env(**ALICE)
    for text in ("alice likes the kafka dashboard", "alice deploys on fridays"):
        assert invoke("memory", "remember", text, cwd=ws, base_env=env).returncode == 0
    bob = scoped_env(**BOB)
    assert invoke("memory", "remember", "bob secret plan quasar", cwd=ws, base_env=bob).returncode == 0
    with Served(".okf", cwd=ws, env={**env, "PYTHONPATH": str(REPO)}) as s:
        s.ws, s.env = ws, env
        yield s


def cli_json(served: Served, *args: str, env: dict[str, str] | None = None) -> object:
    proc = invoke(*args, cwd=served.ws, base_env=env or served.env)
    assert proc.returncode == 0, (args, proc.stderr)
    return json.loads(proc.stdout)


# --------------------------------------------------------------------------- JSON = the CLI's JSON


@pytest.mark.parametrize("route,argv", [
    ("/catalog.json", ["catalog", ".okf", "--json"]),
    ("/files.json", ["files", ".okf", "--json"]),
    ("/tags.json", ["tags", ".okf", "--json"]),
    ("/types.json", ["types", ".okf", "--json"]),
    ("/stats.json", ["stats", ".okf", "--json"]),
    ("/index.json", ["index", ".okf", "--json"]),
    ("/index.json?dir=notes", ["index", ".okf", "--dir", "notes", "--json"]),
    ("/dirs.json", ["dirs", ".okf", "--json"]),
    ("/loose.json", ["loose", ".okf", "--json"]),
    ("/hubs.json", ["graph", ".okf", "--hubs", "--json"]),
    ("/graph.json", ["graph", ".okf", "--json"]),
    ("/graph.json?minimal=1", ["graph", ".okf", "--minimal", "--json"]),
    ("/lint.json", ["lint", ".okf", "--json"]),
    ("/catalog.json?type=Decision", ["catalog", ".okf", "--type", "Decision", "--json"]),
    ("/search.json?q=cache+kafka", ["search", ".okf", "cache", "kafka", "--json"]),
    ("/search.json?q=cache+kafka&engine=ranked", ["search", ".okf", "cache", "kafka", "--engine", "ranked", "--json"]),
    ("/node?id=notes/rich", ["read", "notes/rich", "--bundle", ".okf", "--json"]),
    ("/board.json", ["board", ".okf", "--json"]),
    ("/state.json", ["state", ".okf", "--json"]),
    ("/memory.json", ["memory", "list", "--json"]),
    ("/memory/recall.json?q=kafka", ["memory", "recall", "kafka", "--json"]),
    ("/memory/log.json", ["memory", "log", "--json"]),
])
def test_every_json_route_equals_the_cli(served, route, argv):
    assert served.json(route) == cli_json(served, *argv)


def test_a_concept_page_shows_its_lint_findings(served):
    """The findings of lint (kept after the server's warm-up) beside the concept they name."""
    lint = served.json("/lint.json")
    mine = [f for f in lint["findings"] if f["path"] == "notes/rich.md"]
    assert mine
    deadline = time.monotonic() + 60
    while True:
        _, page = served.page("/concept?id=notes/rich")
        if 'id="lint-pending"' not in page or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    aside = page.split('<aside class="lint">', 1)[1].split("</aside>", 1)[0]
    for f in mine:
        assert f"<b>{f['check']}</b>" in aside


def test_the_reference_route_names_answer_json_to_a_script(served):
    """``/catalog`` as the reference names it: JSON to a client that asks for it (curl's */* is not
    a browser's text/html), the page to a browser."""
    for route in ("/catalog", "/tags", "/types", "/index", "/log", "/search?q=cache"):
        status, headers, body = served.request(route, headers={"Accept": "application/json"})
        assert status == 200 and headers["content-type"].startswith("application/json"), route
        json.loads(body)
        status, page = served.page(route)
        assert status == 200 and "<main" in page, route
    log = served.json("/log.json")
    assert log["bundle"] == ".okf" and log["snapshots"] and "Snapshot" in log["content"]
    days = served.json("/journal.json")["days"]
    assert "2026-11-29" in days and days == sorted(days, reverse=True)
    day = served.json("/journal.json?day=2026-11-29")
    assert day["path"] == "journal/2026-11-29.md" and "did *things*" in day["content"]


def test_memory_is_the_servers_identity_only(served):
    listed = served.json("/memory.json")
    texts = json.dumps(listed)
    assert "alice" in texts and "quasar" not in texts
    recalled = served.json("/memory/recall.json?q=quasar")
    assert recalled["passages"] == []
    _, page = served.page("/memory?q=quasar")
    assert "bob secret plan" not in page and "alice likes the kafka dashboard" in page
    _, history = served.page("/memory/log")
    assert "bob secret" not in history and "alice" in history
    # no request can name another identity: scope words in the query are only words
    for q in ("/memory.json?user=bob", "/memory.json?OKFPRO_USER=bob", "/memory/recall.json?q=quasar&tenant=acme&user=bob"):
        answer = served.json(q)
        assert "bob secret plan" not in json.dumps(answer) and answer["scope"]["user"] == "alice", q
    status, _, _ = served.request("/memory.json", headers={"X-Okfpro-User": "bob", "Cookie": "user=bob"})
    assert status == 200
    # one entry's history, looked up among alice's own entries only
    mine = listed["entries"][0]["id"]
    entry = served.json("/memory/entry.json?id=" + mine.replace("#", "%23"))
    assert entry["entry"]["id"] == mine and entry["commits"] and all("remember" in c["summary"] for c in entry["commits"])
    _, page = served.page("/memory/entry?id=" + mine.replace("#", "%23"))
    assert "History" in page and entry["commits"][0]["commit"][:12] in page
    bobs = json.loads(invoke("memory", "list", "--json", cwd=served.ws, base_env=scoped_env(**BOB)).stdout)["entries"]
    assert bobs and "quasar" in bobs[0]["title"]
    status, _, body = served.request("/memory/entry.json?id=" + bobs[0]["id"].replace("#", "%23"))
    assert status == 404 and b"quasar" not in body  # another identity's entry is not found, even by its id


def test_memory_is_refused_beyond_loopback_and_without_an_identity(tmp_path):
    from okfpro.serve.http import memory_allowed

    assert memory_allowed("127.0.0.1") == (True, "")
    assert memory_allowed("::1")[0] and memory_allowed("127.0.0.2")[0]
    for addr in ("0.0.0.0", "192.168.1.5", "::", "example.org"):
        allowed, why = memory_allowed(addr)
        assert not allowed and "loopback only" in why
    assert memory_allowed("127.0.0.1", False) == (False, "memory is off (--no-memory)")
    ws = make_workspace(tmp_path, 20)
    (ws / "okfpro.toml").write_text('[memory]\nmode = "multi-user"\n')
    with Served(".okf", cwd=ws, env=scoped_env(PYTHONPATH=str(REPO))) as s:
        status, _, body = s.request("/memory.json")
        assert status == 404 and "memory" in json.loads(body)["error"]
        _, page = s.page("/catalog")
        assert ">Memory<" not in page
    with Served(".okf", "--no-memory", cwd=ws, env=scoped_env(PYTHONPATH=str(REPO), **ALICE)) as s:
        assert s.request("/memory.json")[0] == 404


# --------------------------------------------------------------------------- the door


def test_only_get_and_head(served):
    for method in ("POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE"):
        status, headers, _ = served.request("/catalog", method=method, body=b"x=1")
        assert status == 405 and headers["allow"] == "GET, HEAD", method
    status, headers, body = served.request("/catalog", method="HEAD", headers={"Accept": "text/html"})
    assert status == 200 and body == b"" and int(headers["content-length"]) > 1000


def test_wrong_host_is_refused(served):
    port = served.port
    for host in ("evil.example", f"evil.example:{port}", "127.0.0.1", f"127.0.0.1:{port}.evil.example",
                 f"localhost.evil.example:{port}", f"127.0.0.1:{port + 1}", ""):
        status, _, body = served.request("/catalog.json", headers={"Host": host})
        assert status == 421 and b"concepts" not in body, host
    for host in (f"127.0.0.1:{port}", f"localhost:{port}", f"LOCALHOST:{port}"):
        assert served.request("/stats.json", headers={"Host": host})[0] == 200, host


def test_headers_are_strict(served):
    _, headers, _ = served.request("/", headers={"Accept": "text/html"})
    csp = headers["content-security-policy"]
    assert "script-src 'self'" in csp and "unsafe-inline" not in csp and "default-src 'none'" in csp
    assert "frame-ancestors 'none'" in csp and headers["x-content-type-options"] == "nosniff"


def test_nothing_outside_the_bundle_is_served(tmp_path):
    ws = make_workspace(tmp_path, 20)
    (tmp_path / "secret.md").write_text(f"---\ntitle: {SECRET}\n---\n{SECRET}\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "deep.md").write_text(f"---\ntitle: {SECRET}\n---\n{SECRET}\n")
    okf = ws / ".okf"
    os.symlink(tmp_path / "secret.md", okf / "leak.md")
    os.symlink(outside, okf / "linkdir")
    (okf / "log.md").unlink()
    os.symlink(tmp_path / "secret.md", okf / "log.md")  # a state file that resolves outside
    os.symlink(tmp_path / "secret.md", okf / "journal" / "2026-01-01.md")  # a journal day that does
    with Served(".okf", cwd=ws, env=scoped_env(PYTHONPATH=str(REPO), **ALICE)) as s:
        probes = ["/../secret.md", "/%2e%2e/secret.md", "/%2E%2E%2Fsecret.md", "//etc/passwd", "/etc/passwd",
                  "/concept?id=../secret", "/concept?id=..%2Fsecret", "/concept?id=/etc/passwd",
                  "/concept?id=leak", "/concept?id=linkdir/deep", "/node?id=leak", "/node?id=../secret",
                  "/node?id=%2Fetc%2Fpasswd", "/node?id=a%00b", "/node?id=linkdir/deep.md", "/_static/../site.py",
                  "/_static/%2e%2e/site.py", "/_static/..%2Fsite.py", "/_static/app.js/../../site.py",
                  "/journal?day=../../secret", "/journal?day=..%2F..%2Fsecret", "/journal?day=2026-01-01",
                  "/journal.json?day=2026-01-01", "/journal", "/concept?id=journal/2026-01-01", "/log", "/log.json",
                  "/b/x/../../secret.md", "/search.json?q=TOPSECRET", "/search?q=TOPSECRET", "/catalog.json", "/index.json",
                  "/graph.json", "/_layout", "/lint.json"]
        for path in probes:
            status, _, body = s.request(path, headers={"Accept": "text/html"})
            assert SECRET.encode() not in body, (path, status)
            assert b"root:x:0" not in body and b"def site_route" not in body, path
        status, _, _ = s.request("/node?id=a\x00b".replace("\x00", "%00"))
        assert status in (400, 404)


# --------------------------------------------------------------------------- hostile bundles


class Markup(HTMLParser):
    """Every tag and attribute of a page, to judge what a browser would run."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.bad: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "script" and a.get("src") != "/_static/app.js":
            self.bad.append(f"script {attrs}")
        if tag in ("iframe", "object", "embed", "img", "base", "meta") and tag != "meta":
            self.bad.append(tag)
        if tag == "meta" and "http-equiv" in a:
            self.bad.append(f"meta {attrs}")
        for k, v in attrs:
            if k.startswith("on") or k in ("srcdoc", "formaction"):
                self.bad.append(f"{tag} {k}")
            if k in ("href", "src", "action") and v is not None:
                scheme = re.match(r"\s*([a-zA-Z][a-zA-Z0-9+.-]*):", re.sub(r"[\x00-\x20]", "", v))
                if scheme and scheme.group(1).lower() not in ("http", "https", "mailto"):
                    self.bad.append(f"{tag} {k}={v}")


HOSTILE = '<script>window.__pwned=1</script><img src=x onerror="window.__pwned=2">'


def hostile_workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "hostile"
    okf = ws / ".okf"
    evil_dir = okf / '<script>window.__pwned=3<'.replace("/", "")
    evil_dir.mkdir(parents=True)
    (ws / "okfpro.toml").write_text("[memory]\n")
    (okf / "index.md").write_text(f'---\nokf_version: "0.2"\n---\n# Map {HOSTILE}\n\n[x](javascript:alert(1))\n')
    (okf / "evil.md").write_text(
        f"---\ntype: \"{HOSTILE.replace(chr(34), chr(39))}\"\ntitle: \"</title>{HOSTILE.replace(chr(34), chr(39))}\"\n"
        f"tags: [\"<b onmouseover=alert(1)>t</b>\", \"\\\"><svg onload=alert(1)>\"]\n"
        f"description: \"<iframe src=javascript:alert(1)>\"\n---\n"
        f"{HOSTILE}\n\n[js](javascript:alert(1)) [JS](JaVaScRiPt:alert(1)) [vb](vbscript:msgbox) "
        "[data](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==) [ent](jav&#x61;script:alert(1)) "
        "[tab](java\tscript:alert(1)) ![img](javascript:alert(1)) <a href=\"javascript:alert(1)\">raw</a>\n\n"
        "[ref][r]\n\n[r]: javascript:alert(1)\n\n```html\n<script>alert(1)</script>\n```\n"
        "<svg/onload=alert(1)> <details open ontoggle=alert(1)>\n")
    (evil_dir / "inside.md").write_text(f"---\ntitle: inside {HOSTILE.replace(chr(34), chr(39))}\n---\n[up](../evil.md)\n")
    (okf / "board.md").write_text(
        "# Board\n\n**In flight: 1/3**\n\n## In flight\n\n- 2026-11-20 — " + HOSTILE + " [x](/evil.md)\n\n"
        "## Backlog\n\n## Waiting\n\n## Inbox\n\n- 2026-11-28 — <img src=x onerror=alert(9)>\n\n## To read\n\n## Deadlines\n")
    (okf / "log.md").write_text(
        f"# Log\n\n## 2026-11-29\n\n* **Snapshot**: inbox 1 (oldest 1d) · in flight 1/3 · waiting 0 (0 past chase) · "
        f"backlog 2 · to read 0\n* {HOSTILE}\n")
    (okf / "journal").mkdir()
    (okf / "journal" / "2026-11-29.md").write_text(f"---\ntitle: day\n---\n{HOSTILE}\n")
    (okf / "huge.md").write_text("---\ntitle: Huge\n---\n" + ("word " * 40 + "\n\n") * 12000)  # ~2.4 MB
    return ws


HOSTILE_PAGES = ["/", "/catalog", "/files", "/tags", "/types", "/stats", "/graph", "/board", "/journal",
                 "/journal?day=2026-11-29", "/log", "/lint", "/memory", "/search?q=script", "/search?q=pwned&engine=ranked",
                 "/concept?id=evil", "/concept?id=huge", "/concept?id=%3Cscript%3Ewindow.__pwned%3D3%3C/inside",
                 "/concept?id=%3Cscript%3E", "/nope%3Cscript%3E"]


def test_hostile_text_is_only_text(tmp_path):
    ws = hostile_workspace(tmp_path)
    with Served(".okf", cwd=ws, env=scoped_env(PYTHONPATH=str(REPO), **ALICE)) as s:
        for path in HOSTILE_PAGES:
            start = time.monotonic()
            status, page = s.page(path)
            assert status in (200, 404), path
            assert time.monotonic() - start < 30, path
            parser = Markup()
            parser.feed(page)
            assert not parser.bad, (path, parser.bad[:5])
        _, evil = s.page("/concept?id=evil")
        assert "&lt;script&gt;window.__pwned=1&lt;/script&gt;" in evil  # shown as text, not dropped
        assert "[js](javascript:alert(1))" in evil  # an unsafe link is left as the text it was written as
        status, _, _ = s.request("/concept?id=huge", headers={"Accept": "text/html"})
        assert status == 200


# --------------------------------------------------------------------------- Markdown, in process


def test_markdown_renders_commonmark_tables_and_bundle_links():
    from okfpro.serve.markdown import Markdown

    known = {"notes/plain.md": "notes/plain", "hub.md": "hub", "projects/a/index.md": "projects/a/index"}
    md = Markdown(known.get, lambda cid: f"/concept?id={cid}")
    out = md.render("# T\n\n**b** [p](plain.md) [h](../hub.md#x) [d](/projects/a/) [m](nope.md) [o](https://e.org)\n\n"
                    "| a |\n|---|\n| 1 |\n", "notes/x.md")
    assert "<h1>T</h1>" in out and "<strong>b</strong>" in out and "<table>" in out
    assert '<a class="link in" href="/concept?id=notes/plain">p</a>' in out
    assert '<a class="link in" href="/concept?id=hub">h</a>' in out
    assert '<a class="link in" href="/concept?id=projects/a/index">d</a>' in out
    assert '<span class="link dangling" title="nope.md">m</span>' in out
    assert '<a class="link out" href="https://e.org" rel="noopener noreferrer">o</a>' in out


@pytest.mark.parametrize("url", ["javascript:alert(1)", "JAVASCRIPT:alert(1)", "jav&#x61;script:alert(1)",
                                 "java%0ascript:alert(1)", "vbscript:x", "data:text/html,x", "data:image/png;base64,AA",
                                 "file:///etc/passwd", " javascript:x", "javascript&colon;x", "<javascript:x>",
                                 "java\\\nscript:x"])
def test_no_unsafe_url_survives(url):
    from okfpro.serve.markdown import Markdown

    md = Markdown(lambda p: None, lambda cid: cid)
    for src in (f"[a]({url})", f"![a]({url})", f"[a][r]\n\n[r]: {url}", f"<{url}>"):
        parser = Markup()
        parser.feed(md.render(src, "x.md"))
        assert not parser.bad, (src, parser.bad)


def test_the_markup_judge_can_fail():
    parser = Markup()
    parser.feed('<a href="javascript:x">a</a><img src=x onerror=y><script>z</script>')
    assert len(parser.bad) >= 3


# --------------------------------------------------------------------------- type parity (issue item 7)


def test_a_type_of_spaces_is_kept_as_the_reference_keeps_it(tmp_path):
    okf = tmp_path / "b" / ".okf"
    okf.mkdir(parents=True)
    (okf / "index.md").write_text('---\nokf_version: "0.2"\n---\n# i\n')
    (okf / "a.md").write_text('---\ntype: "  "\ntitle: A\n---\nx\n')
    (okf / "b.md").write_text('---\ntype: "  Note "\ntitle: B\n---\ny\n')
    (okf / "c.md").write_text('---\ntype:\ntitle: C\n---\nz\n')
    out = {v: json.loads(invoke(v, str(okf), "--json").stdout) for v in ("catalog", "files", "index", "types")}
    assert [r["type"] for r in out["catalog"]["concepts"]] == ["  ", "  Note ", ""]
    assert [r["type"] for r in out["files"]["files"]] == ["  ", "  Note ", ""]
    assert out["index"]["directories"][0]["types"] == {"  ": 1, "  Note ": 1, "": 1}
    assert {r["type"]: r["count"] for r in out["types"]["types"]} == {"Untyped": 2, "  Note ": 1}
    ref = Path("/work/shared/reference-impl/run-okf")
    if ref.exists() and shutil.which("ruby"):
        for v in ("catalog", "files", "index", "types", "stats"):
            theirs = subprocess.run([str(ref), v, str(okf), "--json"], capture_output=True, text=True, timeout=120)
            assert json.loads(theirs.stdout) == json.loads(invoke(v, str(okf), "--json").stdout), v


def test_catalog_and_files_pages_are_paged_and_the_export_is_whole():
    from okfpro.serve import pages

    rows = [{"id": f"c{i:05d}", "title": "t", "type": "", "trust": "unverified", "status": None, "tags": [],
             "links_in": 0, "links_out": 0} for i in range(2500)]
    data = {"count": 2500, "concepts": rows}
    first = pages.catalog_page(data, pages.Links(""), 1)
    last = pages.catalog_page(data, pages.Links(""), 99)  # past the end: the last page
    assert first.count('data-id="c') == 1000 and 'data-id="c00000"' in first and 'href="/catalog?page=3"' in first
    assert last.count('data-id="c') == 500 and 'data-id="c02499"' in last
    assert pages.catalog_page(data, pages.Links("", export=True)).count('data-id="c') == 2500


def test_several_bundles_behind_a_hub(tmp_path):
    """``serve @a @b``: the hub lists them, each is served under /b/<slug>/ with its own JSON (the
    CLI's for ``@slug``), one search runs across both, and a slug that is not served is 404."""
    home = tmp_path / "home"
    env = scoped_env(PYTHONPATH=str(REPO), OKFPRO_HOME=str(home), OKF_NO_DISCOVERY="1", **ALICE)
    a = make_workspace(tmp_path / "a", 20)
    b = tmp_path / "b" / ".okf"
    b.mkdir(parents=True)
    (b / "index.md").write_text('---\nokf_version: "0.2"\n---\n# B\n')
    (b / "only-b.md").write_text("---\ntitle: Zebraword in B\n---\nzebraword\n")
    for d, slug in ((a / ".okf", "alpha"), (b, "beta")):
        assert invoke("registry", "set", str(d), "--as", slug, cwd=tmp_path, base_env=env).returncode == 0
    with Served("@alpha", "@beta", cwd=tmp_path, env=env) as s:
        status, hub = s.page("/")
        assert status == 200 and 'href="/b/alpha/"' in hub and 'href="/b/beta/"' in hub
        for slug in ("alpha", "beta"):
            assert s.json(f"/b/{slug}/catalog.json") == json.loads(
                invoke("catalog", f"@{slug}", "--json", cwd=tmp_path, base_env=env).stdout)
        status, page = s.page("/b/beta/concept?id=only-b")
        assert status == 200 and 'href="/b/beta/catalog"' in page and 'data-version-url="/b/beta/_version"' in page
        found = s.json("/search.json?q=zebraword")
        assert {(r["slug"], r["id"]) for r in found["matches"]} == {("alpha", "notes/plain"), ("beta", "only-b")}
        _, page = s.page("/search?q=zebraword")
        assert 'href="/b/beta/concept?id=only-b"' in page and 'href="/b/alpha/concept?id=notes/plain"' in page
        assert s.request("/b/gamma/")[0] == 404 and s.request("/b/../b/alpha/")[0] == 404
        assert s.request("/catalog.json")[0] == 404  # the hub serves no bundle at its root


@pytest.mark.parametrize("watch", [True, False])
def test_the_version_moves_on_every_change_and_only_then(tmp_path, watch):
    """What the open page polls: steady while nothing changes; new after an edit, a new concept, a
    delete, a board or journal write — with the file watcher and without it (re-read per request)."""
    from okfpro.serve.site import Site

    ws = make_workspace(tmp_path, 20)
    okf = ws / ".okf"
    site = Site(okf, ".okf", memory=False, watch=watch)
    seen = [site.version()]
    assert site.version() == seen[0] and site.version() == seen[0]

    def changed() -> None:
        deadline = time.monotonic() + 5
        while site.version() == seen[-1] and time.monotonic() < deadline:
            time.sleep(0.05)
        now = site.version()
        assert now != seen[-1]  # (without the watcher it is a digest: the same content, the same version)
        seen.append(now)
        assert site.version() == now

    (okf / "notes" / "plain.md").write_text("---\ntype: Note\ntitle: Plain, edited\n---\nedited\n")
    changed()
    (okf / "notes" / "new.md").write_text("---\ntitle: New\n---\nnew\n")
    changed()
    (okf / "notes" / "new.md").unlink()
    changed()
    with open(okf / "board.md", "a") as fh:
        fh.write("\n")
    changed()
    (okf / "journal" / "2026-11-30.md").write_text("---\ntitle: d\n---\nx\n")
    changed()
    site.warm.close()
