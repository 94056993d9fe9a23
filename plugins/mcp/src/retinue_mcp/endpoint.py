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

import hmac
import secrets
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs

from retinue.kit import REQUEST_TIMEOUT, uvicorn_server

if TYPE_CHECKING:
    import uvicorn
    from mcp.server.mcpserver import MCPServer
    from starlette.types import ASGIApp, Receive, Scope, Send

HOST = "127.0.0.1"
PATH = "/mcp"
REFUSAL = (
    b"this endpoint needs the token `retinue mcp serve` printed (?token= or a Bearer header)\n"
)


def new_token() -> str:
    """A token for one run of the server."""
    return secrets.token_urlsafe(24)


def endpoint_url(port: int, token: str | None) -> str:
    """The URL a client connects to (with the token, when one is needed)."""
    return f"http://{HOST}:{port}{PATH}" + (f"?token={token}" if token else "")


class TokenGate:
    """ASGI middleware: an HTTP request without `token` is a 401 and reaches nothing."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self.token = token

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or self._carries_token(scope):
            await self.app(scope, receive, send)
            return
        headers = [
            (b"content-type", b"text/plain; charset=utf-8"),
            (b"www-authenticate", b"Bearer"),
        ]
        await send({"type": "http.response.start", "status": 401, "headers": headers})
        await send({"type": "http.response.body", "body": REFUSAL})

    def _carries_token(self, scope: Scope) -> bool:
        given = [
            credential.strip()
            for name, value in scope.get("headers", ())
            if name == b"authorization"
            for scheme, _, credential in [value.decode("latin-1").partition(" ")]
            if scheme.lower() == "bearer"
        ]
        given += parse_qs(scope.get("query_string", b"").decode("latin-1")).get("token", [])
        wanted = self.token.encode()
        return any(hmac.compare_digest(t.encode(), wanted) for t in given)


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
        app = TokenGate(app, token)
    return uvicorn_server(
        app,
        request_timeout=request_timeout,
        host=HOST,
        port=port,
        log_level=log_level,
        timeout_graceful_shutdown=2,
    )
