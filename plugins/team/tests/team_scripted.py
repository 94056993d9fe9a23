"""Scripted models and a recording person for the team plugin's tests: no real model.

Agents in these tests run real pydantic-ai loops on `FunctionModel`s named by path
(`ModelConfig(provider="function", model="team_scripted:follow")`), so this module must be
importable: `conftest.py` puts this directory on `sys.path`.

`follow` obeys directives written in the message it is handling, one per line:

    call <tool> <json arguments>      call a tool first (several lines: one after another)
    send <recipient> <intent>: <text> put this request in the turn's output

so a test scripts a whole exchange from the first message, e.g.
`send Developer request: send @Manager response: done`.
"""

from __future__ import annotations

import json
import re
import threading
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

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
    AgentCard,
    AgentConfig,
    AgentMessage,
    BaseConfig,
    EventSubscriber,
    HumanProxy,
    Message,
    ModelConfig,
    Orchestrator,
    PromptTemplate,
    StopMessage,
)

_lock = threading.Lock()
#: Every message each person received, by the person's name.
INBOXES: dict[str, list[AgentMessage]] = defaultdict(list)
#: What each agent's model was shown, one entry per model request, by agent name.
REQUESTS: dict[str, list[list[ModelMessage]]] = defaultdict(list)
#: What each agent's tools returned, in order, by agent name.
TOOL_RESULTS: dict[str, list[str]] = defaultdict(list)

_NAME = re.compile(r"You are (@\S+), whose role is")
_SEND = re.compile(r"^send (?P<recipient>\S+) (?P<intent>\w+): (?P<text>.*)$")
_CALL = re.compile(r"^call (?P<tool>\w+) (?P<args>\{.*\})$")


def reset() -> None:
    """Forget what earlier tests recorded."""
    with _lock:
        INBOXES.clear()
        REQUESTS.clear()
        TOOL_RESULTS.clear()


class RecordingHuman(HumanProxy):
    """A person's seat that keeps every message it receives."""

    def on_agent_message(self, message: AgentMessage, sender: ActorAddress | None) -> None:
        with _lock:
            INBOXES[self.myAddress.name].append(message)


def inbox(name: str = "@Human") -> list[str]:
    """The contents a person received so far, oldest first."""
    with _lock:
        return [m.content for m in INBOXES[name]]


# -- reading what the model is shown ------------------------------------------------------


def agent_name(info: AgentInfo) -> str:
    """The agent a request is for, read from its system block."""
    match = _NAME.search(info.instructions or "")
    assert match is not None, "the system block names the agent"
    return match.group(1)


def user_texts(messages: list[ModelMessage]) -> list[str]:
    """Every user-role text in `messages`, oldest first."""
    texts: list[str] = []
    for message in messages:
        if isinstance(message, ModelRequest):
            for part in message.parts:
                if isinstance(part, UserPromptPart) and isinstance(part.content, str):
                    texts.append(part.content)
    return texts


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


def run_prompt(messages: list[ModelMessage]) -> str:
    """The text of the prompt this run answers."""
    request = messages[_prompt_index(messages)]
    assert isinstance(request, ModelRequest)
    return "\n".join(
        p.content
        for p in request.parts
        if isinstance(p, UserPromptPart) and isinstance(p.content, str)
    )


def _tool_returns_since_prompt(messages: list[ModelMessage], output_tools: set[str]) -> list[str]:
    returns = []
    for message in messages[_prompt_index(messages) :]:
        if isinstance(message, ModelRequest):
            for part in message.parts:
                if isinstance(part, ToolReturnPart) and part.tool_name not in output_tools:
                    returns.append(str(part.content))
    return returns


def output(info: AgentInfo, sends: list[dict[str, str]]) -> ModelResponse:
    """The final answer: a `StructuredOutput` holding `sends`."""
    return ModelResponse(
        parts=[ToolCallPart(info.output_tools[0].name, {"messages": sends})],
    )


def send(recipient: str, text: str, intent: str = "request") -> dict[str, str]:
    """One outbound request, as the model writes it."""
    return {"recipient": recipient, "message_type": intent, "message": text}


def _record(messages: list[ModelMessage], info: AgentInfo) -> str:
    name = agent_name(info)
    with _lock:
        REQUESTS[name].append(list(messages))
    return name


# -- the scripted models ------------------------------------------------------------------


def follow(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Carry out the `call` and `send` directives of the message being handled."""
    name = _record(messages, info)
    prompt = run_prompt(messages)
    calls: list[tuple[str, dict[str, Any]]] = []
    sends: list[dict[str, str]] = []
    for raw in prompt.splitlines():
        line = raw.strip()
        if (match := _CALL.match(line)) is not None:
            calls.append((match["tool"], json.loads(match["args"])))
        elif (match := _SEND.match(line)) is not None:
            sends.append(send(match["recipient"], match["text"], match["intent"]))
    returns = _tool_returns_since_prompt(messages, {t.name for t in info.output_tools})
    if returns:
        with _lock:
            TOOL_RESULTS[name].append(returns[-1])
    if len(returns) < len(calls):
        tool, args = calls[len(returns)]
        return ModelResponse(parts=[ToolCallPart(tool, args)])
    return output(info, sends)


def manager(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """The Quick Start's manager: delegate to a Developer, then report to the person."""
    _record(messages, info)
    prompt = run_prompt(messages)
    if "from @Human" in prompt:
        return output(info, [send("Developer", "Implement the sprint plan.")])
    if "from @Developer" in prompt:
        answer = prompt.rsplit("\n\n", 1)[-1]
        return output(info, [send("@Human", f"Sprint planned. {answer}", "response")])
    return output(info, [])


def developer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """The Quick Start's developer: answer whoever asked."""
    _record(messages, info)
    return output(info, [send("@Manager", "Implemented the sprint plan.", "response")])


class StopWatcher(EventSubscriber):
    """Lets a test wait, without sleeping, until a member's stop reaches the orchestrator.

    Needed where an agent stops *itself*: that stop is queued behind the message being
    handled and the runtime's idle tracking does not count it, so `wait_idle` alone may
    return just before the member leaves the roster.
    """

    def __init__(self) -> None:
        self._stopped: set[str] = set()
        self._changed = threading.Condition()

    def on_message(self, message: Message) -> None:
        if isinstance(message, StopMessage) and message.sender is not None:
            with self._changed:
                self._stopped.add(message.sender.name)
                self._changed.notify_all()

    def wait_for(self, name: str, timeout: float = 10.0) -> None:
        with self._changed:
            assert self._changed.wait_for(lambda: name in self._stopped, timeout), (
                f"{name} did not stop within {timeout:g}s"
            )


# -- a team to test in -------------------------------------------------------------------


def role_card(
    role: str,
    *,
    model: str = "team_scripted:follow",
    routes_to: list[str] | None = None,
    description: str = "",
    skills: list[str] | None = None,
    tools: list[Any] | None = None,
) -> AgentCard:
    """An `AgentCard` for a `BaseAgent` playing `role` on a scripted model."""
    return AgentCard(
        description=description or f"Does the work of a {role}",
        skills=skills or [],
        agent_class="retinue.agent.agent.BaseAgent",
        config=AgentConfig(
            name=f"@{role}",
            role=role,
            prompt=PromptTemplate(template=f"You are the team's {role}."),
            model_cfg=ModelConfig(provider="function", model=model),
            tools=tools or [],
        ),
        routes_to=routes_to or [],
    )


@dataclass
class Team:
    """An orchestrator, a recording person and helpers to drive them."""

    system: ActorSystem
    orchestrator: ActorAddress
    human: ActorAddress
    cards: dict[str, AgentCard] = field(default_factory=dict)

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

    def register(self, *cards: AgentCard) -> None:
        self.orchestrator_proxy.register_agent_profiles(list(cards))
        self.cards.update({card.role: card for card in cards})

    def start_agent(self, role: str) -> ActorAddress:
        """Start a member from its registered card, directly under the orchestrator."""
        config = self.cards[role].get_config_copy()
        address: ActorAddress = self.orchestrator_proxy.createActor(
            "retinue.agent.agent.BaseAgent", config
        )
        return address

    def say(self, recipient: ActorAddress, text: str) -> None:
        """The person sends `text` to `recipient`."""
        self.system.proxy_tell(self.human, HumanProxy).send(recipient, AgentMessage(content=text))

    def command(self, recipient: ActorAddress, text: str, timeout: float = 20.0) -> str:
        """Send a slash command as the person and return the answer it got."""
        before = len(inbox(self.human.name))
        self.say(recipient, text)
        self.system.wait_idle(timeout)
        answers = inbox(self.human.name)[before:]
        assert len(answers) == 1, f"expected one answer to {text}, got {answers}"
        return answers[0]

    def watch_stops(self) -> StopWatcher:
        """A subscriber that records which members stopped, to wait on."""
        watcher = StopWatcher()
        self.orchestrator_proxy.subscribe(watcher)
        return watcher

    def roster(self) -> dict[str, str]:
        """The orchestrator's roster: name → role."""
        return {m.name: m.role for m in self.orchestrator_proxy.get_team_members()}
