"""`retinue mcp serve --http`: the team's MCP endpoint on 127.0.0.1, behind a token.

Every call on the endpoint acts on the team as its person, and any process of the machine
can reach a loopback port (an agent's own tool included). So each request needs the token
printed at start, as `Authorization: Bearer TOKEN` or in the URL (`/mcp?token=TOKEN`, for
a client that takes only a URL), compared in constant time; without it the answer is a 401
with one line. `--no-token` opts out on a trusted machine. (The SDK's own auth is an OAuth
resource server, with an issuer, metadata and scopes: more than a secret shared by two
local processes needs.)

The SDK bounds a request's body (its size, and its nesting in pydantic's parser: a 400 with
a one-line JSON-RPC parse error) and refuses foreign Host and Origin headers (DNS
rebinding); uvicorn gets retinue's request timeout (`retinue.cli.serving`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from retinue.kit import REQUEST_TIMEOUT, TokenGate, uvicorn_server

if TYPE_CHECKING:
    import uvicorn
    from mcp.server.mcpserver import MCPServer

HOST = "127.0.0.1"
PATH = "/mcp"
REFUSAL = "this endpoint needs the token `retinue mcp serve` printed (?token= or a Bearer header)"


def endpoint_url(port: int, token: str | None) -> str:
    """The URL a client connects to (with the token, when one is needed)."""
    return f"http://{HOST}:{port}{PATH}" + (f"?token={token}" if token else "")


def http_server(
    server: MCPServer,
    *,
    port: int,
    token: str | None,
    request_timeout: float = REQUEST_TIMEOUT,
    log_level: str = "info",
) -> uvicorn.Server:
    """The uvicorn server of `server`'s endpoint on 127.0.0.1:`port` (`run()` it)."""
    app: Any = server.streamable_http_app(streamable_http_path=PATH, host=HOST)
    if token is not None:
        app = TokenGate(app, token, refusal=REFUSAL, in_query=True)
    return uvicorn_server(
        app,
        request_timeout=request_timeout,
        host=HOST,
        port=port,
        log_level=log_level,
        timeout_graceful_shutdown=2,
    )
