"""The gate in front of the web view: Host, token, forgery, and the headers every answer gets.

- **Host**: only the names the server was bound under (`127.0.0.1:PORT`, `localhost:PORT`,
  `[::1]:PORT`, the bind address, and names given with `allowed_hosts`) are served. Another
  Host header is refused: a page on an attacker's domain that resolves it to 127.0.0.1 (DNS
  rebinding) reads nothing.
- **Token**: an action (a POST) needs the session cookie, on a loopback address too (any
  process of the machine can reach one: an agent's own tool included); bound anywhere else,
  every request does. The server prints a one-time URL (`/?token=...`); opening it sets the
  cookie and forgets the token, so a URL copied from a log or a browser history is worth
  nothing later. `token=False` opts out, on a trusted machine.
- **Forgery**: a POST is refused unless the browser says it comes from this origin
  (`Sec-Fetch-Site: same-origin`, or, from a browser too old to send that, an `Origin` that
  is this server's), and its body is JSON (a cross-site form cannot send that without a
  preflight, which is never answered).
- **Headers**: a Content-Security-Policy that lets the page run only its own script and
  connect only to its own server, no framing, no referrer, no sniffing.
"""

from __future__ import annotations

import hmac
import ipaddress
import logging
import secrets
import threading
from collections import deque
from collections.abc import Iterable
from http.cookies import SimpleCookie
from typing import Any
from urllib.parse import parse_qs

from starlette.types import ASGIApp, Message, Receive, Scope, Send

logger = logging.getLogger(__name__)

COOKIE = "retinue_web"
HEADERS = [
    (
        b"content-security-policy",
        b"default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
        b"img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    ),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
    (b"cache-control", b"no-store"),
]
#: What a browser's `Sec-Fetch-Site` may say for a POST to be taken.
_SAME_SITE = frozenset({"same-origin"})
#: The methods that only read (every other one acts on the team).
_READS = frozenset({"GET", "HEAD"})


def is_loopback(host: str) -> bool:
    """Whether binding `host` keeps the server on this machine."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


class Gate:
    """What the middleware checks against: the hosts served, the token and the sessions."""

    def __init__(
        self, *, host: str, port: int, allowed_hosts: Iterable[str] = (), token: bool | None = None
    ) -> None:
        self.bind_host = host
        self.port = port
        self.extra_hosts = [h.lower() for h in allowed_hosts]
        #: Actions need a session unless `token=False`; reads too off loopback, or `token=True`.
        self.token_required = token is not False
        self.reads_need_session = not is_loopback(host) if token is None else token
        self._lock = threading.Lock()
        self._tokens: set[str] = set()
        self._sessions: set[str] = set()
        #: The latest requests refused, as one line each (also logged at WARNING).
        self.refused: deque[str] = deque(maxlen=100)

    def refuse(self, line: str) -> None:
        self.refused.append(line)
        logger.warning("%s", line)

    # ------------------------------------------------------------------ hosts
    def hosts(self) -> set[str]:
        """The Host header values served (with the port, as browsers send it)."""
        names = {"127.0.0.1", "localhost", "[::1]", *self.extra_hosts}
        bound = self.bind_host.lower()
        if bound not in ("0.0.0.0", "::", ""):
            names.add(f"[{bound}]" if ":" in bound and not bound.startswith("[") else bound)
        return {f"{name}:{self.port}" for name in names} | set(self.extra_hosts)

    def origins(self) -> set[str]:
        return {f"http://{host}" for host in self.hosts()}

    # ------------------------------------------------------------------ tokens
    def new_token(self) -> str:
        """A one-time token for the login URL (`/?token=...`)."""
        token = secrets.token_urlsafe(24)
        with self._lock:
            self._tokens.add(token)
        return token

    def redeem(self, token: str) -> str | None:
        """A session for a token not used before (the token is used up); None otherwise."""
        with self._lock:
            found = next((t for t in self._tokens if hmac.compare_digest(t, token)), None)
            if found is None:
                return None
            self._tokens.discard(found)
            session = secrets.token_urlsafe(32)
            self._sessions.add(session)
            return session

    def has_session(self, session: str | None) -> bool:
        if session is None:
            return False
        with self._lock:
            return any(hmac.compare_digest(s, session) for s in self._sessions)


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key == name:
            return str(value.decode("latin-1"))
    return None


def _cookie(scope: Scope) -> str | None:
    raw = _header(scope, b"cookie")
    if not raw:
        return None
    jar: SimpleCookie = SimpleCookie()
    try:
        jar.load(raw)
    except Exception:  # noqa: BLE001 - a hostile header may break the parser any way: no session
        return None
    morsel = jar.get(COOKIE)
    return morsel.value if morsel is not None else None


class GateMiddleware:
    """Pure ASGI middleware applying a `Gate` to every HTTP request (see the module docstring)."""

    def __init__(self, app: ASGIApp, gate: Gate) -> None:
        self.app = app
        self.gate = gate

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        refusal = self._refusal(scope)
        if refusal is not None:
            status, text, extra = refusal
            if status >= 400:
                self.gate.refuse(
                    f"refused {scope['method']} {scope['path']} ({status}): {text.strip()}"
                )
            await _answer(send, status, text, extra)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message.setdefault("headers", [])
                message["headers"] = [*message["headers"], *HEADERS]
            await send(message)

        await self.app(scope, receive, with_headers)

    def _refusal(self, scope: Scope) -> tuple[int, str, list[tuple[bytes, bytes]]] | None:
        host = (_header(scope, b"host") or "").lower()
        if host not in self.gate.hosts():
            return 421, f"this server does not answer for the host {host!r}\n", []
        if scope["method"] == "POST":
            problem = self._forgery(scope)
            if problem is not None:
                return 403, problem + "\n", []
        if not self.gate.token_required or self.gate.has_session(_cookie(scope)):
            return None
        token = parse_qs(scope.get("query_string", b"").decode("latin-1")).get("token", [""])[0]
        if scope["path"] == "/" and token:
            session = self.gate.redeem(token)
            if session is not None:
                cookie = f"{COOKIE}={session}; Path=/; HttpOnly; SameSite=Strict"
                return 303, "signed in\n", [(b"location", b"/"), (b"set-cookie", cookie.encode())]
        if scope["method"] in _READS and not self.gate.reads_need_session:
            return None
        return 401, "open the one-time URL `retinue web` printed (a used one is spent)\n", []

    def _forgery(self, scope: Scope) -> str | None:
        site = _header(scope, b"sec-fetch-site")
        if site is not None:
            if site not in _SAME_SITE:
                return f"refused: a {site} request may not act on this team"
        else:
            origin = _header(scope, b"origin")
            if origin is not None and origin.lower() not in self.gate.origins():
                return f"refused: a request from {origin} may not act on this team"
        kind = (_header(scope, b"content-type") or "").split(";")[0].strip().lower()
        if kind != "application/json":
            return "refused: actions are JSON (Content-Type: application/json)"
        return None


async def _answer(
    send: Send, status: int, text: str, extra: list[tuple[bytes, bytes]] | None = None
) -> None:
    body = text.encode()
    headers: list[Any] = [
        (b"content-type", b"text/plain; charset=utf-8"),
        (b"content-length", str(len(body)).encode()),
        *HEADERS,
        *(extra or []),
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
