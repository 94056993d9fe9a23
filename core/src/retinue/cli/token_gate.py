"""A secret shared by a served team and its clients, in front of every HTTP request.

Every call on a served team acts as its person, and any process of the machine can reach a
loopback port (an agent's own tool included). So a server prints a token at start, and each
request must carry it, as `Authorization: Bearer TOKEN` (or, where a server allows it for
clients that take only a URL, `?token=TOKEN`), compared in constant time; without it the
answer is a 401 with one line and the request reaches nothing. Paths a protocol makes public
(an A2A agent card, which says how to authenticate) pass.
"""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Collection
from typing import TYPE_CHECKING
from urllib.parse import parse_qs

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Receive, Scope, Send


def new_token() -> str:
    """A token for one run of a server."""
    return secrets.token_urlsafe(24)


class TokenGate:
    """ASGI middleware: an HTTP request without `token` is a 401 saying `refusal`."""

    def __init__(
        self,
        app: ASGIApp,
        token: str,
        *,
        refusal: str,
        public: Collection[str] = (),
        in_query: bool = False,
    ) -> None:
        self.app = app
        self.token = token.encode()
        self.refusal = refusal.rstrip("\n").encode() + b"\n"
        self.public = frozenset(public)
        self.in_query = in_query

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("path") in self.public or self._carries(scope):
            await self.app(scope, receive, send)
            return
        headers = [
            (b"content-type", b"text/plain; charset=utf-8"),
            (b"www-authenticate", b"Bearer"),
        ]
        await send({"type": "http.response.start", "status": 401, "headers": headers})
        await send({"type": "http.response.body", "body": self.refusal})

    def _carries(self, scope: Scope) -> bool:
        given = [
            credential.strip()
            for name, value in scope.get("headers", ())
            if name == b"authorization"
            for scheme, _, credential in [value.partition(b" ")]
            if scheme.lower() == b"bearer"
        ]
        if self.in_query:
            query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
            given += [token.encode("latin-1", "replace") for token in query.get("token", [])]
        return any(hmac.compare_digest(credential, self.token) for credential in given)
