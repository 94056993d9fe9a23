"""Loopback HTTP servers the tests start: fake search backends and a fake web site.

Each `FakeServer` listens on a 127.0.0.0/8 address, answers with the test's `Route`
functions and records every request it saw, so a test can also assert that a refused fetch
reached nothing. A route that must stall waits on the server's `release` event, set when the
server closes: nothing sleeps.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from retinue import AgentCard
from retinue.testing import FOLLOW, scripted_card
from retinue_web_search import WebSearchTool


@dataclass(frozen=True)
class Seen:
    """One request a fake server received."""

    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: bytes


Route = Callable[["Exchange"], None]


@dataclass
class Exchange:
    """A request being answered: what was asked, and the handler to answer on."""

    seen: Seen
    handler: BaseHTTPRequestHandler
    server: FakeServer

    def reply(
        self,
        status: int,
        body: bytes | str = b"",
        content_type: str = "text/html; charset=utf-8",
        headers: Mapping[str, str] | None = None,
    ) -> None:
        data = body.encode() if isinstance(body, str) else body
        self.handler.send_response(status)
        self.handler.send_header("Content-Type", content_type)
        self.handler.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.handler.send_header(name, value)
        self.handler.end_headers()
        self.handler.wfile.write(data)

    def json(self, data: Any) -> None:
        self.reply(200, json.dumps(data), "application/json")


@dataclass
class FakeServer:
    """A threaded HTTP server on `host`, answering GET and POST by path with `routes`."""

    routes: dict[str, Route]
    host: str = "127.0.0.1"
    seen: list[Seen] = field(default_factory=list)
    release: threading.Event = field(default_factory=threading.Event)
    done: threading.Event = field(default_factory=threading.Event)
    """Set when a route that streams (`stream_forever`) has stopped writing."""
    sent: int = 0
    _httpd: ThreadingHTTPServer | None = None

    @classmethod
    def start(cls, servers: list[FakeServer], routes: dict[str, Route], **kw: Any) -> FakeServer:
        server = cls(routes, **kw)
        owner = server

        class Handler(BaseHTTPRequestHandler):
            def _serve(self) -> None:
                parts = urlsplit(self.path)
                length = int(self.headers.get("Content-Length") or 0)
                seen = Seen(
                    self.command,
                    parts.path,
                    parse_qs(parts.query),
                    {k.lower(): v for k, v in self.headers.items()},
                    self.rfile.read(length) if length else b"",
                )
                owner.seen.append(seen)
                route = owner.routes.get(parts.path)
                exchange = Exchange(seen, self, owner)
                if route is None:
                    exchange.reply(404, "not here", "text/plain")
                else:
                    route(exchange)

            do_GET = _serve
            do_POST = _serve

            def log_message(self, format: str, *args: Any) -> None:
                pass

        server._httpd = ThreadingHTTPServer((server.host, 0), Handler)
        server._httpd.daemon_threads = True
        threading.Thread(target=server._httpd.serve_forever, daemon=True).start()
        servers.append(server)
        return server

    @property
    def url(self) -> str:
        assert self._httpd is not None
        return f"http://{self.host}:{self._httpd.server_address[1]}"

    @property
    def port(self) -> int:
        assert self._httpd is not None
        return int(self._httpd.server_address[1])

    def close(self) -> None:
        self.release.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()


def stall(exchange: Exchange) -> None:
    """Never answer, until the server closes: a server that hangs."""
    exchange.server.release.wait(60)


def stream_forever(total: int, chunk: int = 64 * 1024) -> Route:
    """An HTML page `total` bytes long, written chunk by chunk until the reader goes away."""

    def route(exchange: Exchange) -> None:
        handler = exchange.handler
        handler.send_response(200)
        handler.send_header("Content-Type", "text/html")
        handler.send_header("Content-Length", str(total))
        handler.end_headers()
        block = b"<p>" + b"x" * (chunk - 8) + b"</p>\n "
        try:
            while exchange.server.sent < total:
                handler.wfile.write(block)
                exchange.server.sent += len(block)
        except OSError:
            pass  # the reader hung up: what the cap is for
        finally:
            exchange.server.done.set()

    return route


def researcher(**settings: Any) -> AgentCard:
    """A role whose agent carries the card (with `settings`) and follows the directives."""
    return scripted_card("Researcher", FOLLOW, tools=[WebSearchTool(**settings)])
