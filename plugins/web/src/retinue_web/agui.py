"""The AG-UI endpoint: a run's input taken as the person's message, the run streamed back.

`POST /ag-ui` (the live team) or `POST /api/teams/{id}/ag-ui` takes AG-UI's `RunAgentInput`.
Its last message, a user message of text, is said as the person to the entry member (or to
`forwardedProps.to`); the team keeps its own history, so the earlier messages a client
sends along are not said again, and the `threadId` is echoed, not looked up: a team is one
conversation. A run with `resume` answers the calls an earlier run left waiting instead
(`agui_interrupts`). The answer is a Server-Sent Events stream of `ag_ui.core` events, encoded by
`ag_ui.encoder.EventEncoder`:

    RUN_STARTED, STATE_SNAPSHOT,
    (the chain's texts, tool calls, custom events, STATE_DELTA) ...,
    RUN_FINISHED or RUN_ERROR

The run's work is the chain the person's message opens, or those its answers resume
(`agui_events` translates it). It is
over when the team is idle again, every mailbox empty and no handler running, as for
`retinue run --message`; an idle team has its whole record committed, so nothing of the run
is left unread. A client that goes away ends its stream, not the team's work.
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import TYPE_CHECKING, Any

from ag_ui.core import (
    PROTOCOL_VERSION,
    BaseEvent,
    RunAgentInput,
    RunStartedEvent,
    StateDeltaEvent,
    StateSnapshotEvent,
    TextPart,
    UserMessage,
)
from ag_ui.encoder import EventEncoder
from pydantic import ValidationError
from retinue import IdleTimeoutError
from starlette.concurrency import run_in_threadpool

from retinue_web.actions import ActionError
from retinue_web.agui_events import TOOL_KINDS, RunTranslator
from retinue_web.agui_interrupts import Order, resume_orders
from retinue_web.agui_state import TeamState, diff
from retinue_web.approvals import bounded
from retinue_web.body import MAX_BODY, read_body
from retinue_web.feed import READ_BATCH

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from retinue.record import Record
    from starlette.requests import Request

    from retinue_web.actions import Said
    from retinue_web.feed import TeamFeed
    from retinue_web.view import WebView

#: The largest run input taken, in bytes: a client sends the thread's messages along.
MAX_INPUT = 1024 * 1024
#: How deep a run input may nest (its state and forwarded props are the client's own).
MAX_INPUT_DEPTH = 32
#: The longest thread or run id echoed back.
MAX_ID = 200
#: Seconds between two looks at whether the team is idle; of silence before a comment line.
TICK = 0.25
KEEP_ALIVE = 15.0


async def read_run(request: Request) -> RunAgentInput:
    """The request's `RunAgentInput`, or `ActionError` naming what is wrong with it."""
    body = await read_body(request, MAX_INPUT, MAX_INPUT_DEPTH)
    try:
        run = RunAgentInput.model_validate(body)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "the body"
        said = f"{where}: {first['msg']}"  # it may quote the client's input: cut to a line
        raise ActionError(f"not an AG-UI run input: {bounded(said, MAX_ID)}") from None
    for name, value in (("threadId", run.thread_id), ("runId", run.run_id)):
        if not value or len(value) > MAX_ID:
            raise ActionError(f"{name} must be 1 to {MAX_ID} characters")
    return run


def person_text(run: RunAgentInput) -> str:
    """What the person says: the text of the input's last message, a user message."""
    if not run.messages or not isinstance(run.messages[-1], UserMessage):
        raise ActionError("the run input's last message must be the person's (role user)")
    content = run.messages[-1].content
    if isinstance(content, str):
        text = content
    else:
        kinds = sorted({part.type for part in content if not isinstance(part, TextPart)})
        if kinds:
            raise ActionError(f"only text reaches the team, not {', '.join(kinds)}")
        text = "\n".join(part.text for part in content if isinstance(part, TextPart))
    if len(text) > MAX_BODY:
        raise ActionError(f"the message is longer than {MAX_BODY} characters")
    try:
        text.encode()
    except UnicodeEncodeError:
        raise ActionError("the message is not valid Unicode (it holds a lone surrogate)") from None
    return text


def recipient(view: WebView, run: RunAgentInput) -> str:
    """Whom the person speaks to: `forwardedProps.to`, else the team's entry member."""
    props = run.forwarded_props
    named = props.get("to") if isinstance(props, dict) else None
    if isinstance(named, str) and named:
        return named
    entry = getattr(view.team, "entry", None)
    name = getattr(entry, "name", None)
    if not isinstance(name, str):
        raise ActionError("this team has no entry member: name one in forwardedProps.to")
    return name


def orders(view: WebView, feed: TeamFeed, run: RunAgentInput) -> list[Order]:
    """What the person says for this run: the answers its `resume` gives, else its message."""
    if run.resume:
        with feed.locked():
            pending = dict(feed.fold.pending.cards)
        return resume_orders(pending, run.resume)
    return [Order(recipient(view, run), person_text(run), None)]


def encode(events: AsyncIterator[BaseEvent | None]) -> AsyncIterator[str]:
    """The events as Server-Sent Events, stamped with the time; None is a keep-alive."""
    encoder = EventEncoder()

    async def lines() -> AsyncIterator[str]:
        async for event in events:
            if event is None:
                yield ": still here\n\n"
                continue
            if event.timestamp is None:
                event.timestamp = int(time.time() * 1000)
            yield encoder.encode(event)

    return lines()


def _is_idle(view: WebView) -> bool:
    assert view.team is not None
    try:
        view.team.system.wait_idle(0)
    except IdleTimeoutError:
        return False
    return True


def _tool_records(feed: TeamFeed, after: int, upto: int) -> list[Record]:
    """The records of tool calls and model messages after `after`, up to `upto`."""
    found: list[Record] = []
    while True:
        batch = list(feed.store.read(feed.team_id, after=after, kinds=TOOL_KINDS, limit=READ_BATCH))
        for record in batch:
            if record.position > upto:
                return found
            found.append(record)
        if len(batch) < READ_BATCH:
            return found
        after = batch[-1].position


class _Reader:
    """What a run has read of the record so far, and what it told the client of the state."""

    def __init__(self, feed: TeamFeed, chains: set[str], position: int) -> None:
        self.feed = feed
        self.translator = RunTranslator(chains)
        self.state = TeamState(feed)
        self.shown: dict[str, Any] = {}
        self.after = position

    async def snapshot(self) -> BaseEvent:
        self.shown = await run_in_threadpool(self.state.now)
        return StateSnapshotEvent(snapshot=self.shown)

    async def step(self) -> tuple[list[BaseEvent], bool]:
        """The events of what was folded since the last step, in record order, then the
        state's change; and whether the team has stopped."""
        feed = self.feed
        with feed.locked():
            upto, stopped = feed.fold.position, feed.fold.stopped
        deltas = [d for d in feed.deltas_after(self.after, bounded=False) or [] if d[0] <= upto]
        tools = await run_in_threadpool(_tool_records, feed, self.after, upto)
        self.after = upto
        items: list[tuple[int, Any]] = [(p, json.loads(d)) for p, d in deltas]
        items += [(r.position, r) for r in tools]
        events: list[BaseEvent] = []
        changed: set[str] = set()
        for _, item in sorted(items, key=lambda pair: pair[0]):
            if isinstance(item, dict):  # a delta of the page's: a flow line, panels
                changed.update(item.get("panels", ()))
                if item.get("flow") is not None:
                    events += self.translator.flow(item["flow"])
            else:  # a tool call's record, or a model message with results
                events += self.translator.tool_record(item)
        now = await run_in_threadpool(self.state.now, changed)
        patch = diff(self.shown, now)
        if patch:
            events.append(StateDeltaEvent(delta=patch))
            self.shown = now
        return events, stopped


async def run_events(
    view: WebView, feed: TeamFeed, run: RunAgentInput, sent: list[tuple[Said, Order]]
) -> AsyncIterator[BaseEvent | None]:
    """The events of the run whose person's messages are `sent` (see the module docstring);
    None now and then keeps the stream open."""
    chains = {said.id for said, _ in sent} | {o.chain for _, o in sent if o.chain is not None}
    reader = _Reader(feed, chains, min(said.position for said, _ in sent))
    yield RunStartedEvent(
        thread_id=run.thread_id,
        run_id=run.run_id,
        parent_run_id=run.parent_run_id,
        protocol_version=PROTOCOL_VERSION,
    )
    yield await reader.snapshot()
    loop = asyncio.get_running_loop()
    wake = asyncio.Event()
    key = feed.listen(loop, wake)
    idle, quiet = False, 0.0
    try:
        while True:
            wake.clear()
            if idle:  # what the team committed before it went idle, folded now
                await run_in_threadpool(feed.pull)
            events, stopped = await reader.step()
            for event in events:
                yield event
            if idle or stopped or view.closing.is_set():
                break
            idle = await run_in_threadpool(_is_idle, view)
            if idle:
                continue
            try:
                await asyncio.wait_for(wake.wait(), timeout=TICK)
                quiet = 0.0
            except TimeoutError:
                quiet += TICK
                if quiet >= KEEP_ALIVE:
                    quiet = 0.0
                    yield None
    finally:
        feed.unlisten(key)
    with feed.locked():
        pending = feed.fold.pending.json()
    cut_off = "team stopped" if stopped else "view closed" if view.closing.is_set() else None
    yield reader.translator.end(run.thread_id, run.run_id, cut_off, pending)
