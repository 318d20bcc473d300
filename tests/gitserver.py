"""A real Git smart-HTTP server on 127.0.0.1 for the sync tests: ``git http-backend`` behind basic auth.

Run as ``python tests/gitserver.py ROOT USERS_FILE``; prints the port on its first stdout
line and serves until killed.  USERS_FILE holds ``name:password`` lines.  A request
without valid credentials gets 401 (so git sends them); a good one runs ``git
http-backend`` as a CGI with ``REMOTE_USER`` set to the authenticated name, exactly as
Apache or nginx would, so the repository's pre-receive hook sees a real pusher.  When the
repository holds ``okfpro-http-backend`` (``okfpro memory server-hook install``), that CGI
wrapper runs instead of ``git http-backend``, as an admin would configure it.
Loopback only; each request is bounded in size and time.
"""

from __future__ import annotations

import base64
import os
import subprocess
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

MAX_BODY = 256 * 1024 * 1024


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    root = ""
    users: dict[str, str] = {}

    def log_message(self, *args) -> None:  # quiet
        pass

    def _user(self) -> str | None:
        auth = self.headers.get("Authorization", "")
        if not auth.startswith("Basic "):
            return None
        try:
            name, _, password = base64.b64decode(auth[6:]).decode("utf-8").partition(":")
        except (ValueError, UnicodeDecodeError):
            return None
        return name if self.users.get(name) == password and name else None

    def _body(self) -> bytes:
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            out = bytearray()
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    self.rfile.readline()
                    return bytes(out)
                out += self.rfile.read(size)
                self.rfile.readline()
                if len(out) > MAX_BODY:
                    raise ValueError("request too large")
        length = int(self.headers.get("Content-Length") or 0)
        if length > MAX_BODY:
            raise ValueError("request too large")
        return self.rfile.read(length)

    def _serve(self) -> None:
        user = self._user()
        body = self._body() if self.command == "POST" else b""
        if user is None:
            self.send_response(401)
            self.send_header("WWW-Authenticate", 'Basic realm="okfpro-test"')
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        url = urlsplit(self.path)
        env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
        env.update({
            "GIT_PROJECT_ROOT": self.root,
            "GIT_HTTP_EXPORT_ALL": "1",
            "PATH_INFO": url.path,
            "QUERY_STRING": url.query,
            "REQUEST_METHOD": self.command,
            "CONTENT_TYPE": self.headers.get("Content-Type", ""),
            "CONTENT_LENGTH": str(len(body)),
            "REMOTE_USER": user,
            "REMOTE_ADDR": "127.0.0.1",
            "SERVER_PROTOCOL": "HTTP/1.1",
            "GATEWAY_INTERFACE": "CGI/1.1",
        })
        # the repository's okfpro-http-backend (written by `okfpro memory server-hook install`)
        # when there is one: what an admin points the web server's CGI at; else git's own
        wrapper = os.path.join(self.root, url.path.strip("/").split("/")[0], "okfpro-http-backend")
        program = [wrapper] if os.path.isfile(wrapper) else ["git", "http-backend"]
        if self.headers.get("Content-Encoding"):
            env["HTTP_CONTENT_ENCODING"] = self.headers["Content-Encoding"]
        if self.headers.get("Git-Protocol"):
            env["GIT_PROTOCOL"] = self.headers["Git-Protocol"]
        proc = subprocess.run(program, input=body, capture_output=True, env=env, timeout=300)
        head, _, payload = proc.stdout.partition(b"\r\n\r\n")
        if not _:
            head, _, payload = proc.stdout.partition(b"\n\n")
        status = 200
        headers = []
        for line in head.decode("latin-1").splitlines():
            name, _, value = line.partition(":")
            if name.lower() == "status":
                status = int(value.strip().split()[0])
            elif name:
                headers.append((name, value.strip()))
        self.send_response(status)
        for name, value in headers:
            if name.lower() not in ("content-length", "transfer-encoding"):
                self.send_header(name, value)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    do_GET = _serve
    do_POST = _serve


def main() -> None:
    root, users_file = sys.argv[1], sys.argv[2]
    Handler.root = root
    with open(users_file, encoding="utf-8") as handle:
        Handler.users = dict(line.rstrip("\n").split(":", 1) for line in handle if ":" in line)
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
