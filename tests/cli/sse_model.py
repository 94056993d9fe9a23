"""A loopback OpenAI-compatible server that streams its answers with server-sent events.

Each request is answered with one structured output (a tool call to the run's output tool)
addressed to `@Human`, its arguments sent in small chunks as `chat.completion.chunk` events.
The first request holds its last chunk until the test calls `release()`, so a test can see
what was shown before the model had finished; later requests stream straight through.
Standard library only; it listens on 127.0.0.1 and is stopped with the test.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

FIRST_WORDS = "First words of the streamed answer"
LAST_WORDS = "and these are its last words."
ANSWER = f"{FIRST_WORDS}, then more of it, {LAST_WORDS}"
HOLD_TIMEOUT = 60.0  # a failed test never leaves a request thread behind for longer


class StreamingModel(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self._released = threading.Event()
        self._held = False
        self._lock = threading.Lock()
        #: Set once the first request has sent everything up to its held last chunk.
        self.holding = threading.Event()
        #: How many requests were streamed, and how many answered whole.
        self.streamed = 0
        self.whole = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_port}/v1"

    def release(self) -> None:
        """Let the held request send its last chunk."""
        self._released.set()

    def next_holds(self) -> bool:
        with self._lock:
            holds, self._held = not self._held, True
            return holds

    def wait_released(self) -> None:
        self.holding.set()
        self._released.wait(HOLD_TIMEOUT)


class _Handler(BaseHTTPRequestHandler):
    server: StreamingModel

    def log_message(self, format: str, *args: Any) -> None:  # quiet: the test reads a pty
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        tool = _output_tool(body)
        args = json.dumps(
            {"messages": [{"recipient": "@Human", "message_type": "response", "message": ANSWER}]}
        )
        if not body.get("stream"):
            self.server.whole += 1
            self._send_json(_completion(tool, args))
            return
        self.server.streamed += 1
        holds = self.server.next_holds()
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        cut = args.index(LAST_WORDS)
        try:
            self._event({"role": "assistant", "tool_calls": [_call(tool, "")]})
            for start in range(0, cut, 8):
                self._event({"tool_calls": [_piece(args[start : min(start + 8, cut)])]})
            if holds:
                self.server.wait_released()
            self._event({"tool_calls": [_piece(args[cut:])]})
            self._event({}, finish="tool_calls")
            self.wfile.write(b"data: [DONE]\n\n")
            self.wfile.flush()
        except OSError:  # the client went away (the run was stopped): nothing more to send
            pass

    def _event(self, delta: dict[str, Any], finish: str | None = None) -> None:
        chunk = {
            "id": "chunk",
            "object": "chat.completion.chunk",
            "created": 0,
            "model": "streaming",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }
        self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
        self.wfile.flush()

    def _send_json(self, data: dict[str, Any]) -> None:
        raw = json.dumps(data).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)


def _output_tool(body: dict[str, Any]) -> str:
    names = [tool["function"]["name"] for tool in body.get("tools", [])]
    return next((name for name in names if name.startswith("final_result")), "final_result")


def _call(name: str, arguments: str) -> dict[str, Any]:
    function = {"name": name, "arguments": arguments}
    return {"index": 0, "id": "call_1", "type": "function", "function": function}


def _piece(arguments: str) -> dict[str, Any]:
    return {"index": 0, "function": {"arguments": arguments}}


def _completion(tool: str, arguments: str) -> dict[str, Any]:
    call = _call(tool, arguments)
    del call["index"]
    message = {"role": "assistant", "content": None, "tool_calls": [call]}
    return {
        "id": "completion",
        "object": "chat.completion",
        "created": 0,
        "model": "streaming",
        "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls"}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20},
    }


@contextmanager
def streaming_model() -> Iterator[StreamingModel]:
    server = StreamingModel()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.release()
        server.shutdown()
        server.server_close()
