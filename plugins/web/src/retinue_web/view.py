"""`WebView`: a team (or a store of recorded teams) served as one page, from code or the CLI.

    view = WebView(running)                 # a live team: RunningTeam, ResumedTeam, ...
    view = WebView(store=open_store(path))  # recorded teams, read-only, with replay
    url = view.start()                      # serves on 127.0.0.1, a free port, in a thread
    ...
    view.stop()

The page replays from the team's record by position, so a reload or a reconnect misses
nothing and shows nothing twice. A live team that records to a store (`ActorSystem(store=
...)`) is read from it; one that records nowhere has its record copied into a store of the
view's own, from what its orchestrator still holds (its window, the last 1,000 records by
default) when the view is made.
"""

from __future__ import annotations

import logging
import socket
import threading
from typing import Any

from retinue import ActorAddress, ActorNotFoundError, Panel, get_plugin_manager
from retinue.kit import REQUEST_TIMEOUT, collect_panel_classes
from retinue.store import MemoryStore, Store, TeamInfo

from retinue_web.actions import LiveTeam, TeamStoppedError
from retinue_web.activity import BOARD
from retinue_web.feed import Copier, Doorbell, TeamFeed
from retinue_web.security import Gate

logger = logging.getLogger(__name__)

DEFAULT_HOST = "127.0.0.1"


class WebView:
    """One page over a live team and/or a store's recorded teams (see the module docstring).

    `host`/`port`: where to listen (port 0: a free one). Acting on the team needs a one-time
    login URL (`login_url()`, printed by the CLI); bound to anything but a loopback address,
    reading does too. `allowed_hosts`: more Host header values to answer (a name of this
    machine on the LAN). `panels`: panel classes to show (default: every installed plugin's,
    `retinue_panels`). `token`: require the login for reads on a loopback address too
    (True), or for nothing (False: a trusted machine). `title`: the live team's name in the
    page (`retinue web` gives the team file's). `request_timeout`: seconds a connection may
    take to send a whole request before it is closed.
    """

    def __init__(
        self,
        team: LiveTeam | None = None,
        *,
        store: Store | None = None,
        host: str = DEFAULT_HOST,
        port: int = 0,
        allowed_hosts: tuple[str, ...] = (),
        panels: list[type[Panel]] | None = None,
        poll: float = 0.5,
        token: bool | None = None,
        title: str | None = None,
        request_timeout: float = REQUEST_TIMEOUT,
    ) -> None:
        self.team = team
        self.live_id: str | None = None
        #: The live team records nowhere: the view copies its record into a store of its own.
        self.copying = False
        if team is not None:
            # The in-process runtime (`ActorSystem`) carries the store it records to; a runtime
            # without one, or a team that records nowhere, is shown from a copy.
            live_store: Store | None = getattr(team.system, "store", None)
            if live_store is None:
                if store is not None:
                    raise ValueError(
                        "this team records to no store: give its actor system the store "
                        "(ActorSystem(store=...)), or give the view none"
                    )
                live_store, self.copying = MemoryStore(), True
            if store is not None and store is not live_store:
                raise ValueError("a live team is shown from its own store; give no other")
            store = live_store
            self.live_id = team.orchestrator.team_id or team.orchestrator.agent_id
        if store is None:
            raise ValueError("give a live team, a store of recorded teams, or both")
        self.store = store
        self.host = host
        self.port = port
        self.allowed_hosts = allowed_hosts
        self.poll = poll
        self.token = token
        self.request_timeout = request_timeout
        #: What the live team is called in the page (a team file's name), else its members.
        self.title = title
        self._panel_classes = panels
        self._feeds: dict[str, TeamFeed] = {}
        self._lock = threading.Lock()
        self._server: Any = None
        self._thread: threading.Thread | None = None
        self.gate: Gate | None = None
        self.closing = threading.Event()
        self._doorbell: Doorbell | None = None

    # ------------------------------------------------------------------ teams
    def teams(self) -> list[TeamInfo]:
        """The live team first, then every other team in the store, the newest first."""
        found = sorted(self.store.list_teams(), key=lambda t: t.created, reverse=True)
        return sorted(found, key=lambda t: t.team_id != self.live_id)

    def feed(self, team_id: str) -> TeamFeed | None:
        """The feed of a team of this view (made when first asked for); None if unknown."""
        with self._lock:
            feed = self._feeds.get(team_id)
            if feed is not None:
                return feed
            live = team_id == self.live_id
            if not live and self.store.team(team_id) is None:
                return None
            feed = TeamFeed(
                self.store,
                team_id,
                self._make_panels(),
                poll=None if live else self.poll,
                live=live,
            )
            self._feeds[team_id] = feed
        if live and self.team is not None:
            ring = feed.ring
            self._doorbell = Copier(self.store, team_id, ring) if self.copying else Doorbell(ring)
            # a copy starts from what the orchestrator still holds (its window)
            orchestrator: Any = self.team.system.proxy_ask(self.team.orchestrator)
            orchestrator.subscribe(self._doorbell, replay=self.copying)
        feed.start()
        return feed

    def _make_panels(self) -> list[Panel]:
        classes = self._panel_classes
        if classes is None:
            try:
                classes = list(collect_panel_classes(get_plugin_manager()).values())
            except Exception:
                logger.exception("the installed panels could not be collected")
                classes = []
            self._panel_classes = classes  # collected once per view
        panels = []
        for cls in classes:
            try:
                panels.append(cls())
            except Exception:
                logger.exception("panel %s could not be made", getattr(cls, "name", cls))
        return panels

    def member(self, team_id: str, name: str) -> ActorAddress | None:
        """A member of the live team, by `@name`."""
        if self.team is None or team_id != self.live_id:
            return None
        try:
            found: ActorAddress | None = self.team.system.proxy_ask(
                self.team.orchestrator
            ).get_team_member(name)
        except ActorNotFoundError:  # the team was shut down under the page
            raise TeamStoppedError() from None
        return found

    def activity(self, team_id: str) -> dict[str, dict[str, str]]:
        """What the live team's members are doing inside their runs now."""
        return BOARD.of_team(team_id) if team_id == self.live_id else {}

    # ------------------------------------------------------------------ serving
    def bind(self) -> socket.socket:
        """Take the address (port 0: a free port); the gate then knows the hosts to answer."""
        family = socket.AF_INET6 if ":" in self.host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind((self.host, self.port))
            sock.listen(128)  # from now on connections wait until the server takes them
        except OSError as exc:
            sock.close()
            raise OSError(f"the web view cannot listen on {self.host}:{self.port}: {exc}") from exc
        self.port = sock.getsockname()[1]
        if self.live_id is not None:
            self.feed(self.live_id)  # follow the live team from now on (a copy starts now)
        self.gate = Gate(
            host=self.host, port=self.port, allowed_hosts=self.allowed_hosts, token=self.token
        )
        return sock

    def _uvicorn(self) -> Any:
        from retinue.kit import uvicorn_server

        from retinue_web.app import build_app

        self._server = uvicorn_server(
            build_app(self),
            request_timeout=self.request_timeout,
            log_level="warning",
            timeout_graceful_shutdown=2,
            lifespan="off",
        )
        return self._server

    def start(self) -> str:
        """Serve in a thread of its own; the page's URL once it listens."""
        sock = self.bind()
        server = self._uvicorn()
        self._thread = threading.Thread(
            target=server.run, kwargs={"sockets": [sock]}, name="retinue-web", daemon=True
        )
        self._thread.start()
        while not server.started:
            if not self._thread.is_alive():
                raise OSError(f"the web view could not start serving on {self.url}")
            self._thread.join(0.02)
        return self.url

    def serve_forever(self, sock: socket.socket) -> None:
        """Serve in this thread (Ctrl-C ends it), on a socket from `bind()`."""
        try:
            self._uvicorn().run(sockets=[sock])
        finally:
            self.close_feeds()

    @property
    def url(self) -> str:
        """Where the page is (a loopback URL; with a token required, see `login_url`)."""
        shown = "127.0.0.1" if self.host in ("0.0.0.0", "::", "") else self.host
        if ":" in shown and not shown.startswith("["):
            shown = f"[{shown}]"
        return f"http://{shown}:{self.port}/"

    def login_url(self) -> str:
        """The URL to open: with a fresh one-time token when the page needs one."""
        gate = self.gate
        if gate is None:
            raise RuntimeError("the web view has no address yet: start() or bind() it first")
        return f"{self.url}?token={gate.new_token()}" if gate.token_required else self.url

    def stop(self) -> None:
        """Stop serving and following (the team itself is left as it is)."""
        self.closing.set()
        with self._lock:
            feeds = list(self._feeds.values())
        for feed in feeds:
            feed.wake_listeners()  # each open stream sees `closing` and ends
        server = self._server
        if server is not None:
            server.should_exit = True
        if self._thread is not None:
            self._thread.join(10)
        self.close_feeds()

    def close_feeds(self) -> None:
        if self._doorbell is not None and self.team is not None:
            try:
                self.team.system.proxy_ask(self.team.orchestrator).unsubscribe(self._doorbell)
            except Exception:  # the team is gone already
                logger.debug("the doorbell could not be taken off the team", exc_info=True)
            self._doorbell = None
        with self._lock:
            feeds, self._feeds = list(self._feeds.values()), {}
        for feed in feeds:
            feed.close()

    def __enter__(self) -> WebView:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()
