"""Scripted models, a recording person and a test agent for the mailbox plugin's tests.

Agents run real pydantic-ai loops on `FunctionModel`s named by path
(`ModelConfig(provider="function", model="mailbox_scripted:follow")`), so this module must
be importable: `conftest.py` puts this directory on `sys.path`.

`follow` obeys directives written in the message it is handling, one per line:

    call <tool> <json arguments>      call a tool first (several lines: one after another)
    send <recipient> <intent>: <text> put this request in the turn's output
"""

from __future__ import annotations

import json
import re
import threading
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo
from retinue import (
    ActorAddress,
    ActorSystem,
    AgentConfig,
    AgentMessage,
    BaseAgent,
    BaseConfig,
    HumanProxy,
    Message,
    ModelConfig,
    Orchestrator,
    is_cancel,
)

_lock = threading.Lock()
#: Every message each person received, by the person's name.
INBOXES: dict[str, list[AgentMessage]] = defaultdict(list)
#: What each agent's model was shown, one entry per model request, by agent name.
REQUESTS: dict[str, list[list[ModelMessage]]] = defaultdict(list)
#: What each agent's tools returned, in order, by agent name.
TOOL_RESULTS: dict[str, list[str]] = defaultdict(list)
#: Run once, while the named agent's model handles its first request (mail "arrives").
DURING_FIRST_REQUEST: dict[str, Callable[[], None]] = {}

_NAME = re.compile(r"You are (@\S+), whose role is")
_SEND = re.compile(r"^send (?P<recipient>\S+) (?P<intent>\w+): (?P<text>.*)$")
_CALL = re.compile(r"^call (?P<tool>\w+) (?P<args>\{.*\})$")


def reset() -> None:
    """Forget what earlier tests recorded."""
    with _lock:
        INBOXES.clear()
        REQUESTS.clear()
        TOOL_RESULTS.clear()
        DURING_FIRST_REQUEST.clear()
    MailArrivesDuringRead.reset()


class RecordingHuman(HumanProxy):
    """A person's seat that keeps every message it receives."""

    def on_agent_message(self, message: AgentMessage, sender: ActorAddress | None) -> None:
        with _lock:
            INBOXES[self.myAddress.name].append(message)


def inbox(name: str = "@Human") -> list[str]:
    """The contents a person received so far, oldest first."""
    with _lock:
        return [m.content for m in INBOXES[name]]


def _prompt_index(messages: list[ModelMessage]) -> int:
    """Index of the request holding this run's prompt (it carries the reply protocol)."""
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if isinstance(message, ModelRequest) and any(
            isinstance(p, UserPromptPart)
            and isinstance(p.content, str)
            and "Incoming " in p.content
            for p in message.parts
        ):
            return index
    raise AssertionError("no prompt in the run")


def follow(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Carry out the `call` and `send` directives of the message being handled."""
    match = _NAME.search(info.instructions or "")
    assert match is not None, "the system block names the agent"
    name = match.group(1)
    with _lock:
        REQUESTS[name].append(list(messages))
        hook = DURING_FIRST_REQUEST.pop(name, None)
    if hook is not None:
        hook()

    start = _prompt_index(messages)
    request = messages[start]
    assert isinstance(request, ModelRequest)
    prompt = "\n".join(
        p.content
        for p in request.parts
        if isinstance(p, UserPromptPart) and isinstance(p.content, str)
    )
    calls: list[tuple[str, dict[str, Any]]] = []
    sends: list[dict[str, str]] = []
    for raw in prompt.splitlines():
        line = raw.strip()
        if (found := _CALL.match(line)) is not None:
            calls.append((found["tool"], json.loads(found["args"])))
        elif (found := _SEND.match(line)) is not None:
            sends.append(
                {
                    "recipient": found["recipient"],
                    "message_type": found["intent"],
                    "message": found["text"],
                }
            )

    output_tools = {t.name for t in info.output_tools}
    returns = [
        str(part.content)
        for message in messages[start:]
        if isinstance(message, ModelRequest)
        for part in message.parts
        if isinstance(part, ToolReturnPart) and part.tool_name not in output_tools
    ]
    if returns:
        with _lock:
            TOOL_RESULTS[name].append(returns[-1])
    if len(returns) < len(calls):
        tool, args = calls[len(returns)]
        return ModelResponse(parts=[ToolCallPart(tool, args)])
    return ModelResponse(parts=[ToolCallPart(info.output_tools[0].name, {"messages": sends})])


class MailArrivesDuringRead(BaseAgent):
    """A `BaseAgent` whose mail (`ARRIVALS`) lands exactly while `read_mailbox` runs.

    A cancel sent while a run is in flight ends that run at once, so the only moment a read
    can meet a cancel is when the cancel lands while the tool is already running; this agent
    makes that moment happen every time. Its cancel purge also waits for the read to finish,
    so the read always looks at the mailbox before the purge does.
    """

    #: (sender, message) pairs delivered to this agent at the start of its first read.
    ARRIVALS: ClassVar[list[tuple[ActorAddress | None, Message]]] = []
    #: What the read took.
    TAKEN: ClassVar[list[Message]] = []
    READ_DONE: ClassVar[threading.Event] = threading.Event()

    @classmethod
    def reset(cls) -> None:
        cls.ARRIVALS = []
        cls.TAKEN = []
        cls.READ_DONE = threading.Event()

    def consume_mailbox(self, predicate: Callable[[Message], bool]) -> list[Message]:
        if predicate is is_cancel:  # the kernel's purge: let the read go first
            assert type(self).READ_DONE.wait(10), "the read never ran"
            return super().consume_mailbox(predicate)
        if type(self).READ_DONE.is_set():
            return super().consume_mailbox(predicate)
        for sender, message in type(self).ARRIVALS:
            self.system.post_from_outside(sender, self.myAddress, message)
        try:
            taken = super().consume_mailbox(predicate)
            type(self).TAKEN.extend(taken)
            return taken
        finally:
            type(self).READ_DONE.set()


@dataclass
class Team:
    """An orchestrator, a recording person, and agents on the scripted model."""

    system: ActorSystem
    orchestrator: ActorAddress
    human: ActorAddress

    @classmethod
    def start(cls, system: ActorSystem) -> Team:
        orchestrator = system.createActor(
            Orchestrator, config=BaseConfig(name="@Orchestrator", role="Orchestrator")
        )
        human = system.proxy_ask(orchestrator, Orchestrator).createActor(
            RecordingHuman, config=BaseConfig(name="@Human", role="Human")
        )
        return cls(system=system, orchestrator=orchestrator, human=human)

    @property
    def orchestrator_proxy(self) -> Any:
        return self.system.proxy_ask(self.orchestrator, Orchestrator)

    def agent(self, name: str, agent_class: type[BaseAgent] = BaseAgent) -> ActorAddress:
        """Start an agent on the scripted model `follow`."""
        config = AgentConfig(
            name=name,
            role=name.lstrip("@"),
            model_cfg=ModelConfig(provider="function", model="mailbox_scripted:follow"),
        )
        address: ActorAddress = self.orchestrator_proxy.createActor(agent_class, config)
        return address

    def say(self, recipient: ActorAddress, text: str) -> None:
        """The person sends `text` to `recipient`."""
        self.system.proxy_tell(self.human, HumanProxy).send(recipient, AgentMessage(content=text))

    def recorded(self) -> list[Message]:
        """The messages the orchestrator recorded, oldest first."""
        return list(self.orchestrator_proxy.get_messages())
