"""The MCP plugin's tests: real MCP servers (tests/servers) started by the tests, on 127.0.0.1."""

from __future__ import annotations

import socket
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from mcp_helpers import DEMO_SERVER
from retinue.plugins import get_plugin_manager
from retinue_mcp import hooks


@pytest.fixture
def retinue_plugin_manager() -> Any:
    """Exactly this plugin's cards, whatever else is installed beside it."""
    return get_plugin_manager(autoload=False, plugins=[hooks])


def serve_on_socket(mode: str) -> tuple[subprocess.Popen[bytes], int]:
    """The demo server over HTTP (`http` or `sse`) on a socket bound here, and its port."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    port: int = sock.getsockname()[1]
    process = subprocess.Popen(
        [sys.executable, str(DEMO_SERVER), mode, str(sock.fileno())],
        pass_fds=[sock.fileno()],
    )
    sock.close()  # the server holds its own copy; connections queue until it accepts
    return process, port


def _stop(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    try:
        process.wait(10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(10)


@pytest.fixture(scope="module")
def http_url() -> Iterator[str]:
    """The streamable-HTTP address of a demo server shared by a module's tests."""
    process, port = serve_on_socket("http")
    yield f"http://127.0.0.1:{port}/mcp"
    _stop(process)


@pytest.fixture(scope="module")
def sse_url() -> Iterator[str]:
    """The SSE address of a demo server shared by a module's tests."""
    process, port = serve_on_socket("sse")
    yield f"http://127.0.0.1:{port}/sse"
    _stop(process)
