"""Turn observers and the trace context: the kernel's seam for tracing plugins.

A message's `trace_context` is opaque to the kernel and travels like the chain id: what an
agent sends while handling a message carries that message's, or what the agent's turn
observers gave for the turn. An observer (from `retinue_turn_observers`) wraps each turn, is
told what the turn reports, hires and fires, and is exited with the exception that failed
the turn; one that breaks is logged and skipped, never fails the turn.
"""

from __future__ import annotations

import ast
import logging
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import retinue
from retinue import (
    ActorAddress,
    AgentConfig,
    AgentMessage,
    BaseAgent,
    Message,
    PluginError,
    RunStartedEvent,
    StartMessage,
    StopMessage,
    get_plugin_manager,
    hookimpl,
)
from retinue.team.record_codec import decode, encode
from retinue.testing import FOLLOW, TeamHarness, scripted_card


class Recording:
    """A turn observer that keeps what it saw and names each turn's trace context."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.turns: list[Message] = []
        self.reports: list[Message] = []
        self.failures: list[BaseException] = []

    @contextmanager
    def turn(self, message: Message) -> Iterator[Mapping[str, str] | None]:
        self.turns.append(message)
        try:
            yield {"traceparent": f"{self.name} turn {len(self.turns)}"}
        except BaseException as exc:
            self.failures.append(exc)
            raise

    def report(self, message: Message) -> None:
        self.reports.append(message)


def observing_plugin(observers: dict[str, Any], make: Any = Recording) -> ModuleType:
    """A plugin in code giving every agent one observer, kept by the agent's name."""

    @hookimpl
    def retinue_turn_observers(config: AgentConfig) -> list[Any]:
        observer = make(config.name)
        observers[config.name] = observer
        return [observer]

    module = ModuleType("observing_plugin")
    module.retinue_turn_observers = retinue_turn_observers  # type: ignore[attr-defined]
    return module


@pytest.fixture
def plain() -> Iterator[TeamHarness]:
    team = TeamHarness(plugin_manager=get_plugin_manager(autoload=False))
    yield team
    assert team.shutdown(timeout=10)


@pytest.fixture
def observers() -> dict[str, Recording]:
    return {}


@pytest.fixture
def observed(observers: dict[str, Recording]) -> Iterator[TeamHarness]:
    pm = get_plugin_manager(autoload=False, plugins=[observing_plugin(observers)])
    team = TeamHarness(plugin_manager=pm)
    yield team
    assert team.shutdown(timeout=10)


def relay(team: TeamHarness) -> tuple[ActorAddress, ActorAddress]:
    """@A and @B, both following the directives in what they are sent."""
    return team.add(scripted_card("A", FOLLOW)), team.add(scripted_card("B", FOLLOW))


def test_without_observers_the_trace_context_travels_like_the_chain_id(plain: TeamHarness) -> None:
    a, _ = relay(plain)
    origin = {"traceparent": "00-from-the-caller"}
    plain.system.send(
        a,
        AgentMessage(content="send @B request: send @A response: done", trace_context=origin),
        plain.human,
    )
    plain.wait_idle()

    sent = plain.sent()
    assert [(m.sender.name, m.recipient.name) for m in sent if m.sender and m.recipient] == [
        ("@Human", "@A"),
        ("@A", "@B"),
        ("@B", "@A"),
    ]
    assert all(m.trace_context == origin for m in sent)
    assert len({m.chain_id for m in sent}) == 1
    assert all(decode(encode(m)) == m for m in sent)  # the record keeps it, equal by value


def test_an_untraced_message_leaves_no_trace_in_the_record(plain: TeamHarness) -> None:
    a, _ = relay(plain)
    plain.say(a, "send @B request: hello")
    plain.wait_idle()

    for message in plain.sent():
        assert message.trace_context is None
        assert "trace_context" not in encode(message)


def test_an_observer_wraps_each_turn_and_its_context_goes_out_with_the_turn(
    observed: TeamHarness, observers: dict[str, Recording]
) -> None:
    a, _ = relay(observed)
    observed.say(a, "send @B request: send @A response: done")
    observed.wait_idle()

    to_b, to_a = observed.sent()[1:]
    assert to_b.trace_context == {"traceparent": "@A turn 1"}
    assert to_a.trace_context == {"traceparent": "@B turn 1"}
    assert [m.id for m in observers["@B"].turns] == [to_b.id]
    assert [m.id for m in observers["@A"].turns][1] == to_a.id
    # What the turn reported, as it reported it: the run's events, then the turn's close.
    reports = observers["@B"].reports
    assert any(isinstance(getattr(r, "event", None), RunStartedEvent) for r in reports)
    assert reports[-1].message_id == to_b.id  # type: ignore[attr-defined]  # HandledMessage
    assert not observers["@A"].failures and not observers["@B"].failures


class Staffing(Message):
    """Asks a `Staffer` to hire a member for `role` and fire it again."""

    role: str


class Staffer(BaseAgent):
    """Hires and fires through its typed team view, as a card's tool would."""

    def receiveMsg_Staffing(self, message: Staffing, sender: ActorAddress | None) -> None:
        team = self.team
        assert team is not None
        member = team.hire(message.role)
        team.fire(member)


def test_the_hires_and_fires_of_a_turn_are_reported_to_it(
    observed: TeamHarness, observers: dict[str, Recording]
) -> None:
    observed.register(scripted_card("Worker"))
    staffer = observed.add(scripted_card("Staffer", agent_class=Staffer))
    observed.system.send(staffer, Staffing(role="Worker"), observed.human)
    observed.wait_idle()

    reports = observers["@Staffer"].reports
    (hired,) = [r for r in reports if isinstance(r, StartMessage)]
    (fired,) = [r for r in reports if isinstance(r, StopMessage)]
    assert hired.sender is not None and hired.sender.name == "@Worker"
    assert hired.parent is not None and hired.parent.name == "@Staffer"
    assert fired.sender == hired.sender
    assert "@Worker" not in observed.roster()


class Failing(BaseAgent):
    def receiveMsg_Staffing(self, message: Staffing, sender: ActorAddress | None) -> None:
        raise LookupError(f"no such role: {message.role}")


def test_an_observer_is_exited_with_what_failed_the_turn(
    observed: TeamHarness, observers: dict[str, Recording]
) -> None:
    agent = observed.add(scripted_card("Failing", agent_class=Failing))
    observed.system.send(agent, Staffing(role="Astronaut"), observed.human)
    observed.wait_idle()

    (failure,) = observers["@Failing"].failures
    assert isinstance(failure, LookupError) and str(failure) == "no such role: Astronaut"
    kinds = [type(r).__name__ for r in observers["@Failing"].reports]
    assert kinds.index("ErrorMessage") < kinds.index("HandledMessage")


class Broken(Recording):
    """Raises wherever it is called."""

    @contextmanager
    def turn(self, message: Message) -> Iterator[Mapping[str, str] | None]:
        raise RuntimeError("tracer down")
        yield None  # type: ignore[unreachable]  # never reached: it makes this a generator

    def report(self, message: Message) -> None:
        raise RuntimeError("tracer down")


def test_a_broken_observer_is_logged_once_and_the_turn_goes_on(
    caplog: pytest.LogCaptureFixture,
) -> None:
    pm = get_plugin_manager(autoload=False, plugins=[observing_plugin({}, make=Broken)])
    team = TeamHarness(plugin_manager=pm)
    try:
        a, _ = relay(team)
        with caplog.at_level(logging.WARNING, logger="retinue.actors.turns"):
            team.say(a, "send @B request: send @A response: done")
            team.wait_idle()
            team.say(a, "send @B request: again")
            team.wait_idle()
    finally:
        assert team.shutdown(timeout=10)

    assert [m.content for m in team.sent()][-1] == "again"
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1
    assert "Broken" in warnings[0] and "tracer down" in warnings[0]


def test_a_plugin_giving_something_else_fails_the_agent_start_naming_it() -> None:
    pm = get_plugin_manager(autoload=False, plugins=[observing_plugin({}, make=lambda _: "no")])
    team = TeamHarness(plugin_manager=pm)
    try:
        with pytest.raises(PluginError, match=r"observing_plugin.*retinue_turn_observers"):
            team.add(scripted_card("A"))
    finally:
        assert team.shutdown(timeout=10)


def test_the_kernel_names_no_tracer() -> None:
    """Tracing is a plugin's: no kernel module imports OpenTelemetry (or anything of it)."""
    kernel = Path(retinue.__file__).parent
    importing = []
    for source in sorted(kernel.rglob("*.py")):
        for node in ast.walk(ast.parse(source.read_text())):
            names = (
                [alias.name for alias in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            if any(name.split(".")[0] in ("opentelemetry", "logfire") for name in names):
                importing.append(str(source.relative_to(kernel)))
    assert importing == []


def test_a_persons_answer_stays_in_the_trace_of_the_question(
    observed: TeamHarness, observers: dict[str, Recording]
) -> None:
    a = observed.add(scripted_card("A", FOLLOW))
    observed.say(a, "send @Human request: which file?")
    observed.wait_idle()
    (question,) = observed.received_by("@Human")
    observed.proxy(observed.human).process_human_input("this one", question)
    observed.wait_idle()

    answer = observers["@A"].turns[-1]
    assert answer.content == "this one"  # type: ignore[attr-defined]
    assert answer.trace_context == question.trace_context == {"traceparent": "@A turn 1"}
