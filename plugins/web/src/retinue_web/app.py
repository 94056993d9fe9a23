"""The Starlette application: the page, its files, the JSON reads, the stream, the actions.

| route | what |
|---|---|
| `GET /` | the page (`static/index.html`); its script and style under `/static/` |
| `GET /api/teams` | the live team and the store's recorded teams |
| `GET .../snapshot` | the whole state once, with the latest flow lines and its position |
| `GET .../events` | Server-Sent Events: a delta per record after `Last-Event-ID` (`?after=`) |
| `GET .../flow?before=N` | the flow lines before position N (scrolling back) |
| `GET .../turns/{message}` | the turn that handled a message: runs, model messages, tokens |
| `GET .../panels/{name}` | a plugin's panel, as a table of text |
| `POST .../say` | `{"to": "@Name", "text": "..."}`: said as the person (a `/command` too) |
| `POST .../stop` | `{"member": "@Name"}` or `{"chain": "..."}`: `/stop`; what it stopped |
| `GET .../approvals` | the calls waiting for the person, as the page's cards |
| `POST .../approvals/{verb}` | `{"member", "call", "text"}`: `/approve` (`/deny`, `/answer`) |
| `POST .../ag-ui`, `/ag-ui` | an AG-UI run: its input said as the person, its events streamed |

(`...` is `/api/teams/{id}`.) A read the store cannot answer (a file gone bad, a store
closed under the view) is a 503 naming the store and why, never a traceback. The stream is
`stream`'s, an action's body is read by `body`, whom a stop reaches and its report `stops`',
the waiting calls and the commands that answer them `approvals`', a command's reply `replies`',
an AG-UI run `agui`'s (`/ag-ui` is the live team's).
"""

from __future__ import annotations

import asyncio
import logging
from importlib.resources import files
from typing import TYPE_CHECKING, Any

from retinue.store import StoreError
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from retinue_web import agui, approvals
from retinue_web.actions import STOP, ActionError, Said, TeamStoppedError, check_text
from retinue_web.actions import say as say_as_person
from retinue_web.body import MAX_BODY, MAX_DEPTH, read_body, text_field
from retinue_web.feed import TeamFeed
from retinue_web.replies import reply_to, wait_in_record
from retinue_web.security import GateMiddleware
from retinue_web.stops import stop_report, stop_targets
from retinue_web.stream import stream
from retinue_web.turns import read_turn

if TYPE_CHECKING:
    from retinue.store import TeamInfo

    from retinue_web.view import WebView

STATIC = {
    "app.js": "text/javascript; charset=utf-8",
    "approvals.js": "text/javascript; charset=utf-8",
    "app.css": "text/css; charset=utf-8",
}
#: `MAX_BODY` and `MAX_DEPTH` are named here too, where they were before `body` held them.
__all__ = ["MAX_BODY", "MAX_DEPTH", "build_app"]


def _static(name: str) -> bytes:
    return files("retinue_web").joinpath("static", name).read_bytes()


logger = logging.getLogger(__name__)


def _error(status: int, text: str) -> JSONResponse:
    return JSONResponse({"error": text}, status_code=status)


class _RefusedError(Exception):
    """A request the view answers with `status` and one line, before doing anything."""

    def __init__(self, status: int, text: str) -> None:
        super().__init__(text)
        self.status = status


async def _refused_request(request: Request, exc: Exception) -> Response:
    status = exc.status if isinstance(exc, _RefusedError) else 500
    return _error(status, str(exc))


async def _store_failed(request: Request, exc: Exception) -> Response:
    logger.warning("the web view could not read its store for %s: %s", request.url.path, exc)
    return _error(503, f"the record could not be read: {exc}")


def build_app(view: WebView) -> Any:
    """The page and its API over `view`, behind the view's gate."""
    api = _Api(view)
    routes = [
        Route("/", api.page),
        Route("/static/{name}", api.static),
        Route("/api/teams", api.teams),
        Route("/api/teams/{team}/snapshot", api.snapshot),
        Route("/api/teams/{team}/events", api.events),
        Route("/api/teams/{team}/flow", api.flow),
        Route("/api/teams/{team}/turns/{message}", api.turn),
        Route("/api/teams/{team}/panels/{name}", api.panel),
        Route("/api/teams/{team}/say", api.say, methods=["POST"]),
        Route("/api/teams/{team}/stop", api.stop, methods=["POST"]),
        Route("/api/teams/{team}/approvals", api.pending),
        Route("/api/teams/{team}/approvals/{verb}", api.answer, methods=["POST"]),
        Route("/api/teams/{team}/ag-ui", api.ag_ui, methods=["POST"]),
        Route("/ag-ui", api.ag_ui, methods=["POST"]),
    ]
    assert view.gate is not None, "bind() the view before building its app"
    handlers = {StoreError: _store_failed, _RefusedError: _refused_request}
    app = Starlette(routes=routes, exception_handlers=handlers)
    return GateMiddleware(app, view.gate)


class _Api:
    """The route handlers (see the module docstring), over one view."""

    def __init__(self, view: WebView) -> None:
        self.view = view

    def feed_of(self, request: Request) -> TeamFeed | None:
        team = request.path_params.get("team", self.view.live_id)  # `/ag-ui`: the live team
        return self.view.feed(team) if team is not None else None

    def live_feed_of(self, request: Request) -> TeamFeed | None:
        """The feed of the request's team if it is the live one: only it can be acted on."""
        feed = self.feed_of(request)
        return feed if feed is not None and feed.team_id == self.view.live_id else None

    async def team_feed(self, request: Request) -> TeamFeed:
        """The feed of the request's team; a 404 when the view knows no such team."""
        feed = await run_in_threadpool(self.feed_of, request)
        if feed is None:
            raise _RefusedError(404, "no such team")
        return feed

    async def live_feed(self, request: Request, action: str) -> TeamFeed:
        """The feed of the request's team, for an `action` only the live team takes; a 409
        for a recorded one."""
        feed = await run_in_threadpool(self.live_feed_of, request)
        if feed is None:
            raise _RefusedError(409, f"only a live team can be {action}; this one is a record")
        return feed

    async def page(self, request: Request) -> Response:
        return Response(_static("index.html"), media_type="text/html; charset=utf-8")

    async def static(self, request: Request) -> Response:
        name = request.path_params["name"]
        if name not in STATIC:
            return _error(404, "no such file")
        return Response(_static(name), media_type=STATIC[name])

    async def teams(self, request: Request) -> Response:
        found = await run_in_threadpool(self.view.teams)
        return JSONResponse(
            {
                "live": self.view.live_id,
                "teams": [
                    {
                        "id": info.team_id,
                        "name": _team_name(self.view, info),
                        "live": info.team_id == self.view.live_id,
                        "created": info.created,
                        "last_activity": info.last_activity,
                        "members": list(info.members),
                        "requests": info.requests,
                        "tokens": info.input_tokens + info.output_tokens,
                        "cost_usd": info.cost_usd,
                        "forked_from": _forked_from(info),
                    }
                    for info in found
                ],
            }
        )

    async def snapshot(self, request: Request) -> Response:
        feed = await self.team_feed(request)
        try:  # fold what is committed now, not only what the feed's thread has come to
            await run_in_threadpool(feed.pull)
        except StoreError:  # the snapshot as far as the record could be read
            logger.exception("the web view could not read team %s", feed.team_id)
        shot = feed.snapshot()
        shot["activity"] = self.view.activity(feed.team_id)
        return JSONResponse(shot)

    async def flow(self, request: Request) -> Response:
        feed = await self.team_feed(request)
        try:
            before = int(request.query_params.get("before", "0"))
        except ValueError:
            return _error(400, "before is a position (a whole number)")
        return JSONResponse(feed.flow_before(before))

    async def events(self, request: Request) -> Response:
        feed = await self.team_feed(request)
        given = request.headers.get("last-event-id") or request.query_params.get("after") or "0"
        try:
            after = int(given)
        except ValueError:
            return _error(400, "Last-Event-ID is a position (a whole number)")
        bounded = request.query_params.get("replay") != "1"
        return StreamingResponse(
            stream(self.view, feed, after, bounded),
            media_type="text/event-stream",
            headers={"x-accel-buffering": "no"},
        )

    async def turn(self, request: Request) -> Response:
        feed = await self.team_feed(request)
        message_id = request.path_params["message"]
        span = feed.turn_span(message_id)
        if span is None:
            return _error(404, "no turn of any member handled that message (yet)")
        found = await run_in_threadpool(read_turn, self.view.store, feed.team_id, message_id, span)
        return JSONResponse(found)

    async def panel(self, request: Request) -> Response:
        feed = await self.team_feed(request)
        name = request.path_params["name"]

        def look() -> Any:
            with feed.locked():
                shown = feed.fold.panels.get(name)
                return shown.view().model_dump() if shown is not None else None

        try:
            shown = await run_in_threadpool(look)
        except Exception as exc:  # noqa: BLE001 - a plugin's panel failed: say so, the page goes on
            return _error(500, f"panel {name} failed: {type(exc).__name__}: {exc}")
        if shown is None:
            return _error(404, "no such panel")
        return JSONResponse(shown)

    async def say_to(self, feed: TeamFeed, name: str, text: str) -> Said:
        """Say `text` to the member `name` as the person (a `/command` only if it has it)."""
        member = await run_in_threadpool(self.view.member, feed.team_id, name)
        if member is None:
            raise ActionError(f"no member of this team is called {name or '(nobody)'}")
        with feed.locked():
            commands = feed.fold.commands_json().get(member.name, [])
            position = feed.fold.position
        text = check_text(text, member.name, commands)
        assert self.view.team is not None
        return await run_in_threadpool(say_as_person, self.view.team, member, text, position)

    async def say(self, request: Request) -> Response:
        feed = await self.live_feed(request, "spoken to")
        try:
            body = await read_body(request)
            sent = await self.say_to(feed, text_field(body, "to"), text_field(body, "text"))
        except ActionError as exc:
            return _refused(exc)
        return JSONResponse({"id": sent.id, "to": sent.to})

    async def pending(self, request: Request) -> Response:
        feed = await self.team_feed(request)
        await run_in_threadpool(feed.pull)  # what is committed now
        with feed.locked():
            cards, position = feed.fold.pending.json(), feed.fold.position
        return JSONResponse({"pending": cards, "position": position})

    async def answer(self, request: Request) -> Response:
        """Answer a waiting call with the person's command; the kernel's reply to it."""
        feed = await self.live_feed(request, "answered")
        verb = request.path_params["verb"]
        try:
            body = await read_body(request)
            text = approvals.command(verb, text_field(body, "call"), text_field(body, "text"))
            sent = await self.say_to(feed, text_field(body, "member"), text)
        except ActionError as exc:
            return _refused(exc)
        reply = await wait_in_record(feed, lambda: reply_to(feed, sent))
        said = {"to": sent.to, "id": sent.id, "command": text}
        if reply is None:
            return JSONResponse({**said, "text": None, "refused": False}, status_code=202)
        if approvals.refused(verb, reply["text"]):
            return JSONResponse({**said, "error": reply["text"], "refused": True}, status_code=409)
        return JSONResponse({**said, "text": reply["text"], "refused": False})

    async def ag_ui(self, request: Request) -> Response:
        """An AG-UI run: the input's last message (or its answers) said as the person, the
        run streamed."""
        feed = await self.live_feed(request, "run")
        try:
            run = await agui.read_run(request)
            sent = []
            for order in agui.orders(self.view, feed, run):
                sent.append((await self.say_to(feed, order.member, order.command), order))
        except ActionError as exc:
            return _refused(exc)
        return StreamingResponse(
            agui.encode(agui.run_events(self.view, feed, run, sent)),
            media_type="text/event-stream",
            headers={"x-accel-buffering": "no"},
        )

    async def stop(self, request: Request) -> Response:
        feed = await self.live_feed(request, "stopped")
        try:
            targets = stop_targets(feed, await read_body(request))
            sent: list[Said] = []
            for name in targets:
                member = await run_in_threadpool(self.view.member, feed.team_id, name)
                if member is not None:
                    with feed.locked():
                        position = feed.fold.position
                    assert self.view.team is not None
                    sent.append(
                        await run_in_threadpool(
                            say_as_person, self.view.team, member, STOP, position
                        )
                    )
        except ActionError as exc:
            return _refused(exc)
        reports = await asyncio.gather(*(stop_report(feed, s) for s in sent))
        return JSONResponse({"sent_to": [s.to for s in sent], "reports": reports})


def _refused(exc: ActionError) -> Response:
    """An action the view refused: 409 once the team has stopped, 400 for a bad request."""
    return _error(409 if isinstance(exc, TeamStoppedError) else 400, str(exc))


def _forked_from(info: TeamInfo) -> dict[str, Any] | None:
    """Where a fork began (`{"team_id", "position"}`, from its metadata); None otherwise."""
    origin = info.metadata.get("forked_from")
    if isinstance(origin, dict) and isinstance(origin.get("team_id"), str):
        return {"team_id": origin["team_id"], "position": origin.get("position")}
    return None


def _team_name(view: WebView, info: TeamInfo) -> str:
    """A team file's name for the live team, else its orchestrator's own name, else who is in it."""
    if info.team_id == view.live_id and view.title:
        return view.title
    name = str(info.metadata.get("name") or "")
    if name and name != "@Orchestrator":
        return name
    members = info.members
    return ", ".join(members[:3]) + (" …" if len(members) > 3 else "") or "a team"
