"""What the web view's tests share: a scripted team, HTTP and SSE clients on 127.0.0.1."""

from __future__ import annotations

import asyncio
import http.client
import json
import re
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models.function import AgentInfo
from retinue.testing import TeamHarness, incoming, send
from retinue_web import WebView

#: Set while the worker's long model request is in flight.
HOLDING = threading.Event()
TIMEOUT = 60.0


async def lead(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Answers the person; `delegate ...` goes to a Worker (hired) and its answer back up."""
    got = incoming(messages)
    if got.sender == "@Human":
        if got.content.startswith("delegate"):
            return send(info, ("Worker", "request", f"work on: {got.content}"))
        return send(info, ("@Human", "response", f"echo: {got.content}"))
    return send(info, ("@Human", "response", f"done: {got.content}"))


async def worker(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Answers its requester; a request holding `hold` is a model request that never ends."""
    got = incoming(messages)
    if "hold" in got.content:
        HOLDING.set()
        await asyncio.sleep(600)  # sleep-ok: a model request that never ends, to be stopped
    return send(info, (got.sender, "response", f"result of {got.content}"))


def wait_until(check: Callable[[], Any], timeout: float = TIMEOUT, what: str = "it") -> Any:
    """Poll `check()` until it returns something truthy; fail naming `what` after `timeout`."""
    deadline = time.monotonic() + timeout
    while True:
        found = check()
        if found:
            return found
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)  # sleep-ok: polls a browser's state, which has no event to wait on


def open_live(page: Any, url: str) -> None:
    """Open `url` in the browser's `page` and wait until it follows the team live."""
    page.goto(url)
    page.wait_for_selector("#conn.live")


#: The session cookie of each view signed in (by port): what the person's browser holds.
SESSIONS: dict[int, str] = {}


def sign_in(port: int, login_url: str) -> str:
    """Open the one-time login URL as a browser does; later requests to `port` carry the
    session cookie it sets (unless they give a `Cookie` of their own)."""
    status, _, headers = request_with_headers(port, "GET", login_url[login_url.index("/?") :])
    assert status == 303, status
    SESSIONS[port] = headers["set-cookie"].split(";")[0]
    return SESSIONS[port]


@contextmanager
def signed_in(team: TeamHarness) -> Iterator[WebView]:
    """The view over `team`, signed in as the person (its actions need the session)."""
    with WebView(team) as web:
        sign_in(web.port, web.login_url())
        try:
            yield web
        finally:
            SESSIONS.pop(web.port, None)


def path(view: WebView, rest: str) -> str:
    """The path of `rest` in the API of the view's live team."""
    return f"/api/teams/{view.live_id}/{rest}"


def act(
    view: WebView, rest: str, body: Any, headers: dict[str, str] | None = None
) -> tuple[int, Any]:
    """POST `body` to the live team's action `rest` (`say`, `stop`, `approvals/approve`)."""
    return request(view.port, "POST", path(view, rest), body, headers)


def request(
    port: int,
    method: str,
    path: str,
    body: Any = None,
    headers: dict[str, str] | None = None,
) -> tuple[int, Any]:
    """One HTTP request to the view on 127.0.0.1; the status and the JSON (or text) answer."""
    status, answer, _ = request_with_headers(port, method, path, body, headers)
    return status, answer


def request_with_headers(
    port: int,
    method: str,
    path: str,
    body: Any = None,
    headers: dict[str, str] | None = None,
) -> tuple[int, Any, dict[str, str]]:
    """As `request`, with the answer's headers (lower-case names)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=TIMEOUT)
    sent = dict(headers or {})
    if port in SESSIONS and not any(name.lower() == "cookie" for name in sent):
        sent["Cookie"] = SESSIONS[port]
    data = None
    if body is not None:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        sent.setdefault("Content-Type", "application/json")
    try:
        connection.request(method, path, body=data, headers=sent)
        response = connection.getresponse()
        raw = response.read().decode()
        kind = response.getheader("content-type") or ""
        answer = json.loads(raw) if kind.startswith("application/json") else raw
        return response.status, answer, {k.lower(): v for k, v in response.getheaders()}
    finally:
        connection.close()


def sse(
    port: int, path: str, last_event_id: int | None = None
) -> Iterator[tuple[str | None, str, str]]:
    """The events of a Server-Sent Events stream: (id, event name, data), as they come."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=TIMEOUT)
    headers = {"Accept": "text/event-stream"}
    if last_event_id is not None:
        headers["Last-Event-ID"] = str(last_event_id)
    connection.request("GET", path, headers=headers)
    response = connection.getresponse()
    assert response.status == 200, response.read()
    try:
        event_id, name, data = None, "message", []
        while True:
            line = response.fp.readline().decode()
            if not line:
                return
            line = line.rstrip("\n")
            if not line:
                if data:
                    yield event_id, name, "\n".join(data)
                event_id, name, data = None, "message", []
            elif line.startswith("id: "):
                event_id = line[4:]
            elif line.startswith("event: "):
                name = line[7:]
            elif line.startswith("data: "):
                data.append(line[6:])
    finally:
        connection.close()


#: `retinue web` started as a person starts it, on a team file of the examples.
ROOT = Path(__file__).resolve().parents[3]
SOLO = ROOT / "examples" / "teams" / "solo.toml"


def retinue(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "retinue", "web", *args, "--port", "0"],
        stderr=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )


def port_of(process: subprocess.Popen[str]) -> tuple[int, list[str]]:
    """The port `retinue web` printed it listens on, and the lines before it; the person is
    signed in by the one-time URL it printed."""
    assert process.stderr is not None
    lines = []
    for line in process.stderr:
        lines.append(line.rstrip())
        found = re.search(r"open (http://127\.0\.0\.1:(\d+)/\S*)", line)
        if found:
            port = int(found[2])
            SESSIONS.pop(port, None)
            if "?token=" in found[1]:
                sign_in(port, found[1])
            return port, lines
    raise AssertionError(f"retinue web printed no URL: {lines}")
