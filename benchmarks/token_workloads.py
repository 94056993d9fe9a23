"""The `tokens` case's workloads: the same scripted work on retinue and on bare pydantic-ai.

Each scripted model records the request it is handed (`token_count.Ledger`) and decides
what to send from the messages it was shown. The same functions drive both frameworks: a
`Framework` says how to read who sent what from a prompt, and whose request it is.

The bare baseline is what a user would write with pydantic-ai alone behind a small router:
one `Agent` per member with the role's instructions and a plain output model of the same
fields, each with its own history; the router delivers each message as one run whose
prompt is `@Sender (intent): content`, hires a member the first time a role is named, and
handles queued messages one run each, in order.
"""

from __future__ import annotations

import asyncio
import contextvars
import re
from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse
from pydantic_ai.models.function import AgentInfo, FunctionModel

try:
    from retinue.agent.incoming import find_fences
except ImportError:  # a revision before 2026-12-03, measured for before/after figures
    from retinue.llm.framing import find_fences  # type: ignore[attr-defined,no-redef]
from retinue.testing import agent_name, send, user_texts
from retinue.testing.scripted import run_messages

from benchmarks import token_count
from benchmarks.token_count import Ledger, Segment

# -- reading a prompt -------------------------------------------------------------------------


@dataclass(frozen=True)
class Delivered:
    sender: str
    intent: str
    content: str


@dataclass
class Framework:
    """How the scripts read one framework's prompts."""

    name: str
    read: Callable[[str], list[Delivered]]
    """The messages delivered in one user-prompt text."""
    agent: Callable[[AgentInfo], str]
    classify: token_count.Classifier


def _read_retinue(text: str) -> list[Delivered]:
    return [Delivered(f.sender, f.intent, f.body) for f in find_fences(text)]


def _classify_retinue(text: str) -> list[Segment]:
    fences = find_fences(text)
    if not fences:
        kind = "context updates" if text.lstrip().startswith("**Context update") else "notices"
        return [Segment(kind, text)]
    segments: list[Segment] = []
    position = 0
    for fence in fences:  # in order: the framing before each body, the body, ...
        start = text.index(fence.body, position)
        segments += [Segment("framing", text[position:start]), Segment("payload", fence.body)]
        position = start + len(fence.body)
    segments.append(Segment("framing", text[position:]))
    return segments


_BARE_HEADER = re.compile(r"^(@\w+) \((\w+)\): ", re.DOTALL)


def _read_bare(text: str) -> list[Delivered]:
    match = _BARE_HEADER.match(text)
    if match is None:
        return []
    return [Delivered(match[1], match[2], text[match.end() :])]


def _classify_bare(text: str) -> list[Segment]:
    match = _BARE_HEADER.match(text)
    if match is None:
        return [Segment("notices", text)]
    return [Segment("framing", match[0]), Segment("payload", text[match.end() :])]


_BARE_AGENT: contextvars.ContextVar[str] = contextvars.ContextVar("bare_agent", default="?")

RETINUE = Framework("retinue", _read_retinue, agent_name, _classify_retinue)
BARE = Framework("bare", _read_bare, lambda info: _BARE_AGENT.get(), _classify_bare)


class Recording:
    """What the scripts read and write during one workload (one at a time)."""

    framework: Framework = RETINUE
    ledger: Ledger = Ledger()
    backstories: dict[str, str] = {}  # noqa: RUF012 - reset per workload
    #: Awaited by the fan-out manager on its first answer: the others queue meanwhile.
    queued: Callable[[], Awaitable[None]] | None = None


def start(framework: Framework, backstories: dict[str, str]) -> Ledger:
    Recording.framework = framework
    Recording.ledger = Ledger()
    Recording.backstories = backstories
    Recording.queued = None
    return Recording.ledger


def _record(messages: Sequence[ModelMessage], info: AgentInfo) -> tuple[str, list[Delivered]]:
    """Note the request; return who is asked and the messages this run was given."""
    framework = Recording.framework
    agent = framework.agent(info)
    instructions = info.instructions or ""
    backstory = max(
        (b for b in Recording.backstories.values() if b in instructions), key=len, default=""
    )
    segments = token_count.segments_of(
        messages, info, classify=framework.classify, backstory=backstory
    )
    last = messages[-1]
    run_id = getattr(last, "run_id", None)
    first = not any(
        isinstance(m, ModelResponse) and getattr(m, "run_id", None) == run_id for m in messages
    )
    Recording.ledger.add(agent, segments, first_of_run=first)
    this_run = [m for m in run_messages(messages) if isinstance(m, ModelRequest)]
    return agent, _delivered(this_run)


def _delivered(messages: Sequence[ModelMessage]) -> list[Delivered]:
    read = Recording.framework.read
    return [d for text in user_texts(messages) for d in read(text)]


# -- the scripted members ---------------------------------------------------------------------

PLAN = "1. parse the arguments  2. do the work in a pure function  3. test both"
RISKS = "risks: bad input paths; unclear errors"
HOP = re.compile(r"hop (\d+)/(\d+)")
FAN_OUT = re.compile(r"fan out to (\d+)")
LEADS = ("@Lead",)


async def manager(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Delegation: the person's task goes to a Developer and a QA; both answers, to @Human."""
    _, got = _record(messages, info)
    task = next((d.content for d in got if d.sender == "@Human"), None)
    if task is not None:
        return send(
            info,
            ("Developer", "request", f"Draft an implementation plan for: {task}"),
            ("QA", "request", f"List the main risks of: {task}"),
        )
    answers = {d.sender: d.content for d in _delivered(messages) if d.intent == "response"}
    if {"@Developer", "@QA"} <= answers.keys():
        summary = f"Plan: {answers['@Developer']} / {answers['@QA']}"
        return send(info, ("@Human", "response", summary))
    return send(info)


async def specialist(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Answers its request; QA only once the manager has taken the developer's answer in, so
    the two answers arrive one at a time, as models that take their time make them."""
    agent, got = _record(messages, info)
    if agent == "@QA" and Recording.framework is RETINUE:
        await _until(lambda: sum(r.agent == "@Manager" for r in Recording.ledger.requests) >= 2)
    answer = PLAN if agent == "@Developer" else RISKS
    return send(info, *((d.sender, "response", answer) for d in got if d.intent == "request"))


async def _until(condition: Callable[[], bool], timeout: float = 30.0) -> None:
    """Wait on the model loop, without blocking it, until `condition` holds (or give up)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition() and loop.time() < deadline:
        await asyncio.sleep(0.002)


async def player(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Ping-pong: `hop n/N` goes back to its sender as `hop n+1/N` (to @Pong from @Human)."""
    _, got = _record(messages, info)
    for delivered in got:
        hop = HOP.search(delivered.content)
        if hop is None:
            continue
        n, limit = int(hop[1]), int(hop[2])
        if n >= limit:
            return send(info)
        target = "@Pong" if delivered.sender == "@Human" else delivered.sender
        return send(info, (target, "request", f"hop {n + 1}/{limit}"))
    return send(info)


async def fan_out_manager(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """`fan out to N` from @Human: N requests to the Worker role; all N answers to @Human."""
    _, got = _record(messages, info)
    asked = next((m for d in got if (m := FAN_OUT.search(d.content))), None)
    if asked is not None:
        count = int(asked[1])
        return send(info, *(("Worker", "request", f"work item {i}") for i in range(1, count + 1)))
    wanted = next((int(m[1]) for d in _delivered(messages) if (m := FAN_OUT.search(d.content))), 0)
    answers = sum(d.intent == "response" for d in _delivered(messages))
    if answers == 1 and Recording.queued is not None:
        await Recording.queued()  # busy with the first answer while the rest arrive
    if wanted and answers >= wanted:
        return send(info, ("@Human", "response", f"all {answers} answers are in"))
    return send(info)


async def worker(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Answers its work item; on retinue, every worker but the first only once the lead is
    busy with that first answer, so the others queue behind it the same way every run."""
    agent, got = _record(messages, info)
    if agent != "@Worker" and Recording.framework is RETINUE:
        await _until(lambda: sum(r.agent in LEADS for r in Recording.ledger.requests) >= 2)
    return send(
        info, *((d.sender, "response", f"done: {d.content}") for d in got if d.intent == "request")
    )


# -- the bare baseline ------------------------------------------------------------------------

Intent = Literal["request", "instruction", "response", "notification", "acknowledgment"]


class Message(BaseModel):
    recipient: str
    message_type: Intent
    message: str


class Outbound(BaseModel):
    messages: list[Message] = []


@dataclass
class BareMember:
    agent: Agent[None, Outbound]
    history: list[ModelMessage]


def run_bare(
    scripts: dict[str, Callable[..., Any]],
    backstories: dict[str, str],
    first: tuple[str, str],
    *,
    names: dict[str, str] | None = None,
    fixed: Sequence[tuple[str, str]] = (),
) -> None:
    """Route messages among bare agents until none is left; `first` = (member, content).

    `scripts` maps a role to its model function; a member is `@Role`, `@Role2`, ... (or the
    name `names` gives a role's first member), made the first time its role is named;
    `fixed` = (role, name) members made up front.
    """
    members: dict[str, BareMember] = {}
    counts: dict[str, int] = {}

    def hire(role: str, chosen: str | None = None) -> str:
        counts[role] = counts.get(role, 0) + 1
        name = chosen or ((names or {}).get(role) if counts[role] == 1 else None)
        name = name or (f"@{role}" if counts[role] == 1 else f"@{role}{counts[role]}")
        agent = Agent(
            FunctionModel(scripts[role]), output_type=Outbound, instructions=backstories[role]
        )
        members[name] = BareMember(agent, [])
        return name

    def resolve(recipient: str) -> str | None:
        if recipient.startswith("@"):
            return recipient if recipient in members or recipient == "@Human" else None
        return hire(recipient) if recipient in scripts else None

    for role, name in fixed:
        hire(role, name)

    async def play() -> None:
        start_role, content = first
        queue: deque[tuple[str, str, str, str]] = deque(
            [(resolve(start_role) or start_role, "@Human", "request", content)]
        )
        while queue:
            to, sender, intent, text = queue.popleft()
            member = members[to]
            _BARE_AGENT.set(to)
            result = await member.agent.run(
                f"{sender} ({intent}): {text}", message_history=member.history
            )
            member.history = result.all_messages()
            for out in result.output.messages:
                target = resolve(out.recipient)
                if target is not None and target != "@Human":
                    queue.append((target, to, out.message_type, out.message))

    asyncio.run(play())
