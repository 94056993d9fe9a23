"""The token in front of a served team: every call but the agent card's needs it.

Every call acts on the team as its person, and any process of the machine can reach a
loopback port (an agent's own tool included). So each request needs the token printed at
start, as `Authorization: Bearer TOKEN` (the card declares that scheme), compared in
constant time; without it the answer is a 401 with one line. The card itself is public, as
the spec has it: it says how to authenticate. `--no-token` opts out on a trusted machine.
"""

from __future__ import annotations

import hmac
import secrets
from typing import TYPE_CHECKING

from a2a.utils.constants import AGENT_CARD_WELL_KNOWN_PATH

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Receive, Scope, Send

REFUSAL = b"this agent needs the bearer token `retinue a2a serve` printed\n"
PUBLIC = frozenset({AGENT_CARD_WELL_KNOWN_PATH})


def new_token() -> str:
    """A token for one run of the server."""
    return secrets.token_urlsafe(24)


class BearerGate:
    """ASGI middleware: an HTTP request without the token is a 401 and reaches nothing."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self.token = token.encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("path") in PUBLIC or self._carries(scope):
            await self.app(scope, receive, send)
            return
        headers = [
            (b"content-type", b"text/plain; charset=utf-8"),
            (b"www-authenticate", b"Bearer"),
        ]
        await send({"type": "http.response.start", "status": 401, "headers": headers})
        await send({"type": "http.response.body", "body": REFUSAL})

    def _carries(self, scope: Scope) -> bool:
        for name, value in scope.get("headers", ()):
            if name != b"authorization":
                continue
            scheme, _, credential = value.partition(b" ")
            if scheme.lower() == b"bearer" and hmac.compare_digest(credential.strip(), self.token):
                return True
        return False
