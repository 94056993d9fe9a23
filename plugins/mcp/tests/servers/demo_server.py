"""A small MCP server for the tests, written with the SDK's server (`MCPServer`, once FastMCP).

    python demo_server.py stdio           serve over stdin and stdout
    python demo_server.py http FD         serve streamable HTTP on the listening socket FD
    python demo_server.py sse FD          serve SSE on the listening socket FD

The HTTP modes take a socket the test bound and put to listening on 127.0.0.1, so there is
no port to race for and no readiness to wait for: connections queue until the server
accepts them.
"""

from __future__ import annotations

import os
import socket
import sys

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations

server = MCPServer("demo", instructions="The demo server: arithmetic and diagnostics.")


@server.tool(annotations=ToolAnnotations(readOnlyHint=True))
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@server.tool()
def read_env(name: str) -> str:
    """The value of an environment variable of the server process."""
    return os.environ.get(name, "<unset>")


@server.tool()
def authorization(ctx: Context) -> str:
    """The Authorization header of this request (HTTP only)."""
    headers = ctx.headers or {}
    return headers.get("authorization", "<none>")


@server.tool()
def divide(a: float, b: float) -> float:
    """Divide a by b."""
    if b == 0:
        raise ToolError("division by zero")
    return a / b


@server.tool()
def big(chars: int) -> str:
    """A text of `chars` characters (a server that answers far more than a model should read)."""
    return "x" * chars


@server.tool(annotations=ToolAnnotations(idempotentHint=True))
def rows(count: int) -> list[dict[str, int]]:
    """`count` rows of structured content."""
    return [{"row": n} for n in range(count)]


@server.tool()
def pid() -> int:
    """The server's process id."""
    return os.getpid()


@server.tool()
def crash() -> str:
    """End the server process at once, in the middle of this call."""
    os._exit(3)


def main() -> None:
    mode = sys.argv[1]
    if mode == "stdio":
        server.run("stdio")
        return
    import uvicorn

    sock = socket.socket(fileno=int(sys.argv[2]))
    app = server.sse_app() if mode == "sse" else server.streamable_http_app()
    uvicorn.Server(uvicorn.Config(app, log_level="warning")).run(sockets=[sock])


if __name__ == "__main__":
    main()
