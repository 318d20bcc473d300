"""One live agent turn of a real host against a fake model on 127.0.0.1 (for tests/test_live_hosts.py).

    unshare -rn python3 live_turn.py REQUEST.json

runs inside a fresh network namespace that holds nothing but the loopback device, so neither the
host nor anything it starts can reach any other address.  It brings ``lo`` up, serves the model API
the host speaks (Codex: OpenAI Responses SSE; Claude Code: Anthropic Messages SSE; Gemini CLI:
``streamGenerateContent?alt=sse``) on an ephemeral 127.0.0.1 port, points the host at it, and runs
one non-interactive turn in which the fake model asks, one per request, for the tool calls listed in
the request's ``calls`` and then says "done".  Every request the host sent is written back, so the
test can read what each tool call returned to the model (a hook's deny reason, or the tool's output).

REQUEST: {"host": "codex"|"claude"|"gemini", "bin": PATH, "workspace": DIR, "home": DIR,
          "calls": [{"name": TOOL, "input": {...} | "text"}...], "out": FILE, "timeout": SECONDS}
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

FINAL = "done"


def _sse(events: list[tuple[str | None, dict]]) -> bytes:
    out = []
    for name, data in events:
        head = f"event: {name}\n" if name else ""
        out.append(f"{head}data: {json.dumps(data)}\n\n")
    return "".join(out).encode()


# --------------------------------------------------------------------------- the three model APIs


def codex_reply(step: int, call: dict | None) -> bytes:
    rid = f"resp_{step}"
    if call is None:
        item = {"type": "message", "role": "assistant", "id": f"msg_{step}", "content": [{"type": "output_text", "text": FINAL}]}
    elif isinstance(call["input"], str):  # a freeform tool (apply_patch)
        item = {"type": "custom_tool_call", "name": call["name"], "input": call["input"], "call_id": f"call_{step}", "id": f"ctc_{step}"}
    else:
        item = {"type": "function_call", "name": call["name"], "arguments": json.dumps(call["input"]), "call_id": f"call_{step}",
                "id": f"fc_{step}"}
    usage = {"input_tokens": 1, "input_tokens_details": None, "output_tokens": 1, "output_tokens_details": None, "total_tokens": 2}
    return _sse([("response.created", {"type": "response.created", "response": {"id": rid}}),
                 ("response.output_item.done", {"type": "response.output_item.done", "item": item}),
                 ("response.completed", {"type": "response.completed", "response": {"id": rid, "usage": usage}})])


def claude_reply(step: int, call: dict | None, model: str) -> bytes:
    usage = {"input_tokens": 1, "output_tokens": 1}
    msg = {"id": f"msg_{step}", "type": "message", "role": "assistant", "model": model, "content": [],
           "stop_reason": None, "stop_sequence": None, "usage": usage}
    events: list[tuple[str | None, dict]] = [("message_start", {"type": "message_start", "message": msg})]
    if call is None:
        events += [("content_block_start", {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
                   ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": FINAL}})]
        stop = "end_turn"
    else:
        block = {"type": "tool_use", "id": f"toolu_{step:04d}", "name": call["name"], "input": {}}
        events += [("content_block_start", {"type": "content_block_start", "index": 0, "content_block": block}),
                   ("content_block_delta", {"type": "content_block_delta", "index": 0,
                                            "delta": {"type": "input_json_delta", "partial_json": json.dumps(call["input"])}})]
        stop = "tool_use"
    events += [("content_block_stop", {"type": "content_block_stop", "index": 0}),
               ("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                                  "usage": {"output_tokens": 1}}),
               ("message_stop", {"type": "message_stop"})]
    return _sse(events)


def gemini_reply(call: dict | None) -> bytes:
    part = {"text": FINAL} if call is None else {"functionCall": {"name": call["name"], "args": call["input"]}}
    data = {"candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2}}
    return _sse([(None, data)])


class Fake:
    """The fake model: answers main-turn requests with the next planned call, side requests with text."""

    def __init__(self, host: str, calls: list[dict]) -> None:
        self.host, self.calls, self.step, self.log = host, calls, 0, []
        self.lock = threading.Lock()
        self.last = 0.0

    def is_main(self, body: dict) -> bool:
        tools = body.get("tools") or []
        names = json.dumps(tools)
        if self.host == "claude":
            return '"Bash"' in names
        if self.host == "gemini":
            return "write_file" in names
        return True

    def answer(self, path: str, body: dict) -> tuple[int, str, bytes]:
        with self.lock:
            self.last = time.monotonic()
            self.log.append({"path": path, "body": body})
            if self.host == "gemini" and "countTokens" in path:
                return 200, "application/json", json.dumps({"totalTokens": 1}).encode()
            if self.host == "claude" and "count_tokens" in path:
                return 200, "application/json", json.dumps({"input_tokens": 1}).encode()
            main = self.is_main(body)
            call = None
            if main:
                call = self.calls[self.step] if self.step < len(self.calls) else None
                self.step += 1
            self.log[-1]["main"] = main
            self.log[-1]["answered"] = call
            if self.host == "codex":
                return 200, "text/event-stream", codex_reply(self.step, call)
            if self.host == "claude":
                if not body.get("stream"):  # a non-streaming side request
                    text = {"id": "msg_side", "type": "message", "role": "assistant", "model": body.get("model", "m"),
                            "content": [{"type": "text", "text": FINAL}], "stop_reason": "end_turn", "stop_sequence": None,
                            "usage": {"input_tokens": 1, "output_tokens": 1}}
                    return 200, "application/json", json.dumps(text).encode()
                return 200, "text/event-stream", claude_reply(self.step, call, body.get("model", "m"))
            return 200, "text/event-stream", gemini_reply(call)


def serve(fake: Fake) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: object) -> None:
            pass

        def _reply(self, status: int, kind: str, data: bytes) -> None:
            self.send_response(status)
            self.send_header("content-type", kind)
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
            with fake.lock:
                fake.log.append({"path": self.path, "get": True})
            self._reply(404, "application/json", b"{}")

        def do_POST(self) -> None:  # noqa: N802
            raw = self.rfile.read(int(self.headers.get("content-length") or 0))
            try:
                body = json.loads(raw or b"{}")
            except ValueError:
                body = {"unparsed": raw.decode("utf-8", "replace")}
            self._reply(*fake.answer(self.path, body))

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


# --------------------------------------------------------------------------- the hosts


def run_host(req: dict, port: int, fake: Fake) -> dict:
    host, ws, home = req["host"], req["workspace"], req["home"]
    base = f"http://127.0.0.1:{port}"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC", "OPENAI", "GEMINI", "GOOGLE", "CLAUDE", "CODEX"))}
    env.update(HOME=home, NO_COLOR="1", TERM="dumb", no_proxy="*", NO_PROXY="*")
    env.pop("http_proxy", None), env.pop("https_proxy", None), env.pop("HTTP_PROXY", None), env.pop("HTTPS_PROXY", None)
    env.update(req.get("env", {}))
    prompt = "Do the planned work."
    if host == "codex":
        config = os.path.join(home, ".codex", "config.toml")
        with open(config, encoding="utf-8") as handle:
            text = handle.read()
        with open(config, "w", encoding="utf-8") as handle:
            handle.write(text.replace("@BASE_URL@", base + "/v1"))
        env["CODEX_HOME"] = os.path.join(home, ".codex")
        args = [req["bin"], "exec", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox", prompt]
    elif host == "claude":
        env.update(ANTHROPIC_BASE_URL=base, ANTHROPIC_API_KEY="sk-ant-fake-loopback", DISABLE_AUTOUPDATER="1",
                   CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1", DISABLE_TELEMETRY="1", DISABLE_ERROR_REPORTING="1")
        args = [req["bin"], "-p", prompt, "--output-format", "json", *req.get("args", [])]
    else:
        env.update(GOOGLE_GEMINI_BASE_URL=base, GEMINI_API_KEY="fake-loopback-key", GEMINI_CLI_NO_RELAUNCH="true")
        args = ["node", req["bin"], "-p", prompt, *req.get("args", [])]
    return _run(args, ws, env, req, fake)


def _run(args: list[str], cwd: str, env: dict, req: dict, fake: Fake) -> dict:
    """Run the host; with ``hang_grace``, stop it once the last planned call has been answered and the
    host has sent nothing for that many seconds (a host waiting forever on a confirmation nobody can give)."""
    proc = subprocess.Popen(args, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    deadline = time.monotonic() + req.get("timeout", 240)
    grace = req.get("hang_grace")
    hung = False
    while proc.poll() is None:
        time.sleep(0.2)
        with fake.lock:
            quiet = time.monotonic() - fake.last
            done = fake.step >= len(fake.calls)
        if (grace and done and quiet > grace) or time.monotonic() > deadline:
            hung = True
            os.killpg(proc.pid, signal.SIGKILL)
            break
    out, err = proc.communicate()
    return {"returncode": None if hung else proc.returncode, "hung": hung, "stdout": out[-20000:], "stderr": err[-20000:]}


def main() -> int:
    with open(sys.argv[1], encoding="utf-8") as handle:
        req = json.load(handle)
    subprocess.run(["ip", "link", "set", "lo", "up"], check=False, capture_output=True)
    fake = Fake(req["host"], req["calls"])
    server = serve(fake)
    try:
        result = run_host(req, server.server_address[1], fake)
    finally:
        server.shutdown()
    with fake.lock:
        result["requests"] = fake.log
    with open(req["out"], "w", encoding="utf-8") as handle:
        json.dump(result, handle)
    return 0


if __name__ == "__main__":
    sys.exit(main())
