"""`retinue mcp serve --http` under hostile callers: no token, a body nested 20,000 deep,
connections that never finish their request, a body past the size bound, and a SIGTERM or
SIGINT."""

from __future__ import annotations

import http.client
import json
import re
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from mcp_helpers import TEAM
from retinue.kit import new_token
from retinue.store import open_store
from retinue.teamfile import load_team_file
from retinue.testing import closed_within, half_sent, lines_until
from retinue_mcp.endpoint import REFUSAL, endpoint_url, http_server
from retinue_mcp.serve import TeamService, build_server, start

SERVE = [sys.executable, "-m", "retinue", "mcp", "serve"]
SHORT = 1.0  # the request timeout of the endpoint under test, in seconds
HALF_OPEN = 400
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"},
    },
}


@dataclass
class Endpoint:
    port: int
    token: str
    service: TeamService


@pytest.fixture
def endpoint() -> Iterator[Endpoint]:
    """The relay team's endpoint, served in this process on a free port."""
    service = TeamService(timeout=60)
    running = start(load_team_file(TEAM), service)
    token = new_token()
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = http_server(
        build_server(service, name="relay"),
        port=port,
        token=token,
        request_timeout=SHORT,
        log_level="warning",
    )
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not server.started:
        assert thread.is_alive()
        thread.join(0.02)
    try:
        yield Endpoint(port, token, service)
    finally:
        server.should_exit = True
        thread.join(30)
        sock.close()
        running.shutdown(30)


def post(
    port: int, path: str, body: bytes, headers: dict[str, str] | None = None
) -> tuple[int, bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        connection.request(
            "POST",
            path,
            body=body,
            headers={
                "Content-Type": "application/json",
                "Accept": "application/json, text/event-stream",
                **(headers or {}),
            },
        )
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


def test_a_call_without_the_token_is_a_401_with_one_line(endpoint: Endpoint) -> None:
    body = json.dumps(INITIALIZE).encode()
    answers = [
        post(endpoint.port, "/mcp", body),
        post(endpoint.port, "/mcp?token=guessed", body),
        post(endpoint.port, "/mcp", body, {"Authorization": "Bearer guessed"}),
    ]
    with_query = post(endpoint.port, f"/mcp?token={endpoint.token}", body)
    with_header = post(endpoint.port, "/mcp", body, {"Authorization": f"bearer {endpoint.token}"})

    assert answers == [(401, f"{REFUSAL}\n".encode())] * 3 and len(REFUSAL.splitlines()) == 1
    assert with_query[0] == 200 and with_header[0] == 200


def test_a_body_nested_20000_deep_is_a_400_with_one_line(endpoint: Endpoint) -> None:
    deep = (
        b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "ask", '
        b'"arguments": {"request": ' + b"[" * 20_000 + b"]" * 20_000 + b"}}}"
    )
    assert len(deep) < 41_000

    status, answer = post(endpoint.port, f"/mcp?token={endpoint.token}", deep)

    error = json.loads(answer)["error"]
    assert status == 400 and error["code"] == -32700
    assert "recursion limit" in error["message"] and "\n" not in error["message"]
    runs = re.findall(r"(\d+) runs", endpoint.service.describe())
    assert runs and set(runs) == {"0"}  # nothing reached the team


def test_a_body_past_the_size_bound_is_refused_before_it_is_parsed(endpoint: Endpoint) -> None:
    text = "x" * (5 * 1024 * 1024)  # past the SDK's 4 MiB
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "ask"}}
    big = json.dumps({**call, "params": {"name": "ask", "arguments": {"request": text}}})

    status, answer = post(endpoint.port, f"/mcp?token={endpoint.token}", big.encode())

    assert status == 413 and len(answer.decode().splitlines()) == 1
    assert len(answer) < 300
    runs = re.findall(r"(\d+) runs", endpoint.service.describe())
    assert runs and set(runs) == {"0"}  # nothing reached the team


def test_400_half_sent_requests_are_closed_within_the_request_timeout(
    endpoint: Endpoint,
) -> None:
    head = f"POST /mcp?token={endpoint.token} HTTP/1.1\r\nHost: 127.0.0.1:{endpoint.port}\r\n"
    body = f"{head}Content-Type: application/json\r\nContent-Length: 500\r\n\r\n{{"
    with half_sent(endpoint.port, [body.encode(), head.encode()], HALF_OPEN) as sockets:
        closed, last = closed_within(sockets, SHORT + 10)
        status, _ = post(
            endpoint.port, f"/mcp?token={endpoint.token}", json.dumps(INITIALIZE).encode()
        )

    assert closed == HALF_OPEN, f"{HALF_OPEN - closed} connections still open"
    # closed by their timeout (not at once), none much after it: measured 1.00-1.04 s
    assert SHORT / 2 < last < SHORT + 2 and status == 200


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_sigterm_shuts_the_team_down_and_records_its_stop(
    tmp_path: Path, stop: signal.Signals
) -> None:
    where = tmp_path / "team.sqlite"
    with socket.socket() as sock:  # a free port; the server takes it a moment later
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    process = subprocess.Popen(
        [*SERVE, str(TEAM), "--http", "--port", str(port), "--store", str(where)],
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        lines = lines_until(process.stderr, f"Uvicorn running on http://127.0.0.1:{port}")
        process.send_signal(stop)
        process.wait(60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(60)

    assert process.returncode == 0
    assert any(endpoint_url(port, None) + "?token=" in line for line in lines)
    with open_store(where, create=False) as store:
        (team,) = store.list_teams()
        last = list(store.read(team.team_id))[-1]
    assert (last.kind, last.sender, json.loads(last.data)["shutdown"]) == (
        "StopMessage",
        "@Orchestrator",
        True,
    )
