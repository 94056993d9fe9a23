"""A team as an MCP server: `retinue mcp serve TEAM.toml`.

Any MCP client (a desktop assistant, an IDE, another agent framework) gets three tools:

- `ask(request)`: the request goes to the team's entry agent as the person's message; the
  tool answers with the first message the team sends back to the person in that request's
  task chain (a response, a question, or the news that a member failed). While the team
  works, every message between its members in that chain is a progress notification.
  Several requests may wait at once: each starts a chain of its own, so an answer is never
  taken for another request's, however late it comes.
- `team()`: the roster (who, which role, busy or not) and what each member has spent.
- `stop(member="")`: `/stop` to every busy member (or to the one named); a waiting `ask`
  ends at once, saying so.

A member's call that waits for the person's approval in a waiting request's chain is asked
of the client (`approvals`): an elicitation, or the `ask`'s result when it cannot elicit.

Built on the MCP SDK's server (`MCPServer`; the tools' annotations are read at run time, so
the SDK's names are imported at the top). The team runs in its own actor threads, and
messages cross to the server's event loop through `call_soon_threadsafe`.
"""

from __future__ import annotations

import asyncio
import logging
import re
import threading
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ElicitResult
from retinue import (
    ActorAddress,
    AgentMessage,
    EventMessage,
    EventSubscriber,
    FailureNotice,
    HumanProxy,
    LlmEvent,
    LlmUsageEvent,
    Message,
    RunStartedEvent,
    SentMessage,
    TeamMember,
    ToolApprovalAskedEvent,
    ToolCallEvent,
    aggregate_usage,
)

from retinue_mcp import approvals
from retinue_mcp.approvals import Elicit, Parked

if TYPE_CHECKING:
    from retinue import ActorSystem
    from retinue.teamfile import RunningTeam, TeamFile

logger = logging.getLogger("retinue_mcp.serve")

ANSWERS = frozenset({"response", "request", "instruction"})
"""The intents of a message to the person that answer an `ask` (a notification is progress)."""
SHOWN_CHARS = 200
"""How much of a message a progress notification shows."""
COMMAND = re.compile(r"(@\S+)\s+(/\S.*)\Z", re.DOTALL)
"""A request that is a command to one member: `@Writer /approve 1`."""


@dataclass(frozen=True)
class Heard:
    """Something the waiting `ask` hears: a message to the person, or news for progress."""

    text: str
    final: bool
    for_person: bool = False
    """A message to the person (kept for `team` if its request has ended unread)."""
    parked: Parked | None = None
    """A member's calls that wait for the person."""


def _shorten(text: str, limit: int = SHOWN_CHARS) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _is_answer(message: AgentMessage) -> bool:
    return isinstance(message, FailureNotice) or message.type in ANSWERS


class TeamService:
    """The team behind the MCP tools: requests in, the person's messages and progress out.

    Thread-safe where it must be: the seat and the subscriber call in from actor threads,
    the tools run on the server's event loop.
    """

    def __init__(self, *, timeout: float) -> None:
        self.timeout = timeout
        self.running: RunningTeam | None = None
        self._lock = threading.Lock()
        #: The waiting requests, by the id of the task chain each started.
        self._listeners: dict[str, tuple[asyncio.AbstractEventLoop, asyncio.Queue[Heard]]] = {}
        self._usage: dict[str, list[LlmEvent]] = {}
        self._unclaimed: list[str] = []

    # -- the team's side (actor threads) -------------------------------------------------------

    def seat_class(self) -> type[HumanProxy]:
        """The person's seat: what reaches the person goes to the waiting `ask`."""
        service = self

        class McpSeat(HumanProxy):
            """The MCP client's seat in the team."""

            def on_agent_message(self, message: AgentMessage, sender: ActorAddress | None) -> None:
                service.to_person(message, sender)

        return McpSeat

    def to_person(self, message: AgentMessage, sender: ActorAddress | None) -> None:
        who = sender.name if sender is not None else "outside"
        text = f"{who} ({message.type}): {message.content}"
        heard = Heard(text, final=_is_answer(message), for_person=True)
        if not self._hear(message.chain_id, heard):
            self._keep_unclaimed(text)

    def _keep_unclaimed(self, text: str) -> None:
        logger.info("a message for the person arrived with no request waiting: %s", text)
        with self._lock:
            self._unclaimed = [*self._unclaimed, text][-20:]

    def on_record(self, message: Message) -> None:
        """Every message the orchestrator records: usage is kept, traffic is progress, calls
        that wait for the person are asked of the client."""
        event = message.event if isinstance(message, EventMessage) else None
        if isinstance(event, ToolApprovalAskedEvent):
            parked = Parked(event.agent, list(event.calls))
            self._hear(event.message.chain_id or "", Heard("", final=False, parked=parked))
        elif isinstance(message, EventMessage) and isinstance(
            message.event, LlmUsageEvent | RunStartedEvent | ToolCallEvent
        ):
            event = message.event
            with self._lock:
                self._usage.setdefault(event.agent_name, []).append(event)
        elif isinstance(message, SentMessage) and isinstance(message.message, AgentMessage):
            sent = message.message
            recipient = sent.recipient or message.recipient
            if recipient is None or recipient.is_user_proxy or sent.sender is None:
                return  # the person's own words, and what reaches them, are not progress
            if sent.sender.is_user_proxy:
                return
            line = f"{sent.sender.name} -> {recipient.name} ({sent.type}): {sent.content}"
            self._hear(sent.chain_id, Heard(_shorten(line), final=False))

    def _hear(self, chain_id: str | None, heard: Heard) -> bool:
        """Pass `heard` to the request waiting on `chain_id` (None: to every waiting one)."""
        with self._lock:
            if chain_id is None:
                listeners = list(self._listeners.values())
            else:
                found = self._listeners.get(chain_id)
                listeners = [] if found is None else [found]
        told = False
        for loop, queue in listeners:
            try:
                loop.call_soon_threadsafe(queue.put_nowait, heard)
                told = True
            except RuntimeError:  # the server's loop has closed
                pass
        return told

    # -- the client's side (the server's event loop) -------------------------------------------

    async def ask(
        self,
        request: str,
        progress: Callable[[float, str], Awaitable[None]],
        elicit: Elicit | None = None,
    ) -> str:
        """Send `request` to the entry agent; the team's answer, reporting progress meanwhile.

        `@Member /command ...` is that command to that member, answered by its reply. A call
        that parks in the request's chain is asked of the person through `elicit`, or is the
        answer when there is none.
        """
        running = self._require()
        if not request.strip():
            raise ValueError("the request is empty")
        addressed = COMMAND.match(request.strip())
        to = self._member(addressed.group(1)).address if addressed else None
        text = addressed.group(2) if addressed else request
        chain_id = uuid.uuid4().hex  # the request starts this chain; its answer comes back in it
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[Heard] = asyncio.Queue()
        with self._lock:
            self._listeners[chain_id] = (loop, queue)
        try:
            await asyncio.to_thread(running.send, text, to=to, chain_id=chain_id)
            return await self._answer(queue, progress, elicit, command=to is not None)
        finally:
            with self._lock:
                del self._listeners[chain_id]
            # After whatever was already on its way to the queue: what the person was told
            # in this chain and nobody read is kept for `team`.
            loop.call_soon(self._drain, queue)

    def _drain(self, queue: asyncio.Queue[Heard]) -> None:
        while not queue.empty():
            heard = queue.get_nowait()
            if heard.for_person:
                self._keep_unclaimed(heard.text)

    async def _answer(
        self,
        queue: asyncio.Queue[Heard],
        progress: Callable[[float, str], Awaitable[None]],
        elicit: Elicit | None,
        *,
        command: bool,
    ) -> str:
        """The answer: a final message (for a command, its reply), or what parked unasked."""
        steps = 0
        clock = asyncio.get_running_loop().time
        deadline = clock() + self.timeout
        while True:
            left = deadline - clock()
            try:
                heard = await asyncio.wait_for(queue.get(), max(left, 0))
            except TimeoutError:
                raise TimeoutError(
                    f"the team has not answered within {self.timeout:g} seconds; it may still "
                    "be working: call stop to end its work"
                ) from None
            if heard.final or (command and heard.for_person):
                return heard.text
            if heard.parked is not None:
                if elicit is None:
                    return approvals.notice(heard.parked)
                asked = clock()  # the person's time is not the team's
                unasked = await approvals.answer(heard.parked, elicit, self._answerer(heard.parked))
                if unasked is not None:
                    return approvals.notice(unasked)
                deadline += clock() - asked
                continue
            steps += 1
            await progress(steps, heard.text)

    def _answerer(self, parked: Parked) -> Callable[[str], Awaitable[None]]:
        """Send a command to the parked member as the person, in the parked turn's chain."""
        running = self._require()
        chain_id = parked.calls[0].chain_id

        async def send(command: str) -> None:
            await asyncio.to_thread(running.send, command, to=parked.agent, chain_id=chain_id)

        return send

    def _agents(self) -> list[TeamMember]:
        return [m for m in self._require().team.get_team() if not m.address.is_user_proxy]

    def _member(self, name: str) -> TeamMember:
        """The member called `name` (with or without its @); `ValueError` naming the team."""
        agents = self._agents()
        for found in agents:
            if found.name in (name, f"@{name.lstrip('@')}"):
                return found
        names = ", ".join(m.name for m in agents) or "nobody"
        raise ValueError(f"no member is called {name!r}; the team: {names}")

    def stop(self, member: str = "") -> str:
        """`/stop` to the busy members (or to `member`); ends a waiting `ask`."""
        running = self._require()
        agents = self._agents()
        if member:
            chosen = [self._member(member)]
        else:
            chosen = [m for m in agents if m.busy]
            with self._lock:
                waiting = bool(self._listeners)
            if not chosen and waiting:  # work in flight between turns: the entry's stop
                entry = running.entry  # cascades to everything handed on in its chains
                chosen = [m for m in agents if m.address == entry]
        for target in chosen:
            running.send("/stop", to=target.address)
        stopped = ", ".join(m.name for m in chosen)
        text = f"Sent /stop to {stopped}." if chosen else "Nobody was working; nothing to stop."
        self._hear(None, Heard(f"Stopped by the client. {text}", final=True))
        return text

    def describe(self) -> str:
        """The roster with each member's role, whether busy, and usage so far."""
        running = self._require()
        with self._lock:
            usage = {name: list(events) for name, events in self._usage.items()}
            unclaimed = list(self._unclaimed)
        lines = [f"Team {running.spec.team.name!r}; requests go to {running.entry.name}."]
        for member in running.team.get_team():
            if member.address.is_user_proxy:
                lines.append(f"- {member.name} (the person: you)")
                continue
            spent = aggregate_usage(usage.get(member.name, []))
            cost = "" if spent.cost_usd is None else f", ${spent.cost_usd:.4f}"
            lines.append(
                f"- {member.name}, {member.role}, {'busy' if member.busy else 'idle'}: "
                f"{spent.runs} runs, {spent.requests} model requests, {spent.tool_calls} tool "
                f"calls, {spent.total_tokens} tokens{cost}"
            )
        if unclaimed:
            lines.append("Messages to you that arrived after their request had ended:")
            lines.extend(f"- {text}" for text in unclaimed)
        return "\n".join(lines)

    def _require(self) -> RunningTeam:
        if self.running is None:
            raise RuntimeError("the team has not started")
        return self.running


class _Relay(EventSubscriber):
    def __init__(self, service: TeamService) -> None:
        self._service = service

    def on_message(self, message: Message) -> None:
        self._service.on_record(message)


def start(
    spec: TeamFile, service: TeamService, *, model: Any = None, system: ActorSystem | None = None
) -> RunningTeam:
    """Start the team with the service's seat for the person, and watch it."""
    running = spec.start(model=model, human_class=service.seat_class(), system=system)
    service.running = running
    running.team.subscribe(_Relay(service))
    return running


def build_server(service: TeamService, *, name: str, log_level: str = "WARNING") -> MCPServer:
    """The MCP server whose tools drive `service`'s team."""
    server = MCPServer(
        f"retinue team {name}",
        log_level=log_level,  # type: ignore[arg-type]
        instructions=(
            f"The retinue team {name!r}. Call ask with a request for the team and wait for its "
            "answer; team shows who is on it and what they spent; stop ends their work."
        ),
    )

    @server.tool()
    async def ask(request: str, ctx: Context) -> str:
        """Send a request to the team and wait for its answer (progress while it works).
        "@Member /command" sends a command to that member."""

        async def progress(step: float, text: str) -> None:
            await ctx.report_progress(step, None, text)

        async def elicit(message: str, schema: dict[str, Any]) -> ElicitResult:
            result: ElicitResult = await ctx.session.elicit_form(message, schema, ctx.request_id)
            return result

        can = approvals.can_elicit(ctx.session.client_capabilities)
        try:
            return await service.ask(request, progress, elicit if can else None)
        except (ValueError, TimeoutError, RuntimeError) as exc:
            raise ToolError(str(exc)) from exc

    @server.tool()
    async def team() -> str:
        """The team's members, their roles, whether each is busy, and what each has spent."""
        return await asyncio.to_thread(service.describe)

    @server.tool()
    async def stop(member: str = "") -> str:
        """Stop the team's work: /stop to every busy member, or to the member named."""
        try:
            return await asyncio.to_thread(service.stop, member)
        except (ValueError, RuntimeError) as exc:
            raise ToolError(str(exc)) from exc

    return server
