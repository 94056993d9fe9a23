"""Messages to the record's JSON and back: every class kept, unknown types tolerated."""

from __future__ import annotations

import json

import pytest
from pydantic import BaseModel
from retinue import (
    ActorAddress,
    AgentMessage,
    EventMessage,
    SentMessage,
    StartMessage,
    StateChangedMessage,
)
from retinue.agent.config import AgentConfig, AgentState
from retinue.llm.events import LlmUsageEvent
from retinue.team.record_codec import (
    TAG,
    RecordDecodeError,
    UnknownMessage,
    UnknownPayload,
    decode,
    encode,
    registry,
)

ME = ActorAddress(name="@Dev", role="Dev", agent_id="a1", team_id="t1")


class PluginEvent(BaseModel):
    """Stands for a plugin's event."""

    board: str
    count: int = 0


def test_messages_read_back_equal_with_their_nested_classes() -> None:
    messages = [
        SentMessage(message=AgentMessage(content="hi", sender=ME), sender=ME, chain_id="c"),
        EventMessage(event=LlmUsageEvent(agent_name="@Dev", input_tokens=3), sender=ME),
        EventMessage(event={"plain": ["json", 1]}, sender=ME),
        StateChangedMessage(state=AgentState(backstory="kept"), sender=ME),
        StartMessage(config=AgentConfig(name="@Dev", role="Dev"), actor_class="x.Y", parent=ME),
    ]
    for message in messages:
        back = decode(encode(message))
        assert back == message and type(back) is type(message)
    event = decode(encode(messages[1]))
    assert isinstance(event, EventMessage) and isinstance(event.event, LlmUsageEvent)


def test_a_type_this_process_does_not_know_is_kept_and_written_back_unchanged() -> None:
    text = encode(EventMessage(event=PluginEvent(board="b", count=2), sender=ME))
    foreign = text.replace(registry.name_of(PluginEvent), "not_imported_plugin.events:Moved")
    back = decode(foreign)
    assert isinstance(back, EventMessage) and isinstance(
        back.event, UnknownPayload | UnknownMessage
    )
    assert back.event.type_name == "not_imported_plugin.events:Moved"
    assert json.loads(encode(back)) == json.loads(foreign)
    whole = json.loads(text)
    whole[TAG] = "not_imported_plugin.messages:Ping"
    message = decode(json.dumps(whole))
    assert isinstance(message, UnknownMessage) and message.sender == ME
    assert json.loads(encode(message)) == whole


def test_a_moved_class_is_found_under_its_old_name_once_registered() -> None:
    text = encode(EventMessage(event=PluginEvent(board="b"), sender=ME))
    old = text.replace(registry.name_of(PluginEvent), "old_home:PluginEvent")
    registry.register(PluginEvent, "old_home:PluginEvent")
    back = decode(old)
    assert isinstance(back, EventMessage) and back.event == PluginEvent(board="b")


def test_a_record_made_before_the_team_layer_moved_reads_as_today() -> None:
    """Records made when the team's modules lived in `retinue.actors` name their classes by
    those paths; they decode to the same classes, and a team they name resumes from them."""
    from retinue import Orchestrator, TeamConfig, TeamUsageLimits
    from retinue.actors.system import resolve_actor_class
    from retinue.team.budget import BudgetLimitsChangedEvent

    start = StartMessage(
        config=TeamConfig(name="@Orchestrator", budget=TeamUsageLimits(request_limit=3)),
        actor_class="retinue.actors.orchestrator.Orchestrator",
        sender=ME,
    )
    raised = EventMessage(
        event=BudgetLimitsChangedEvent(limits=TeamUsageLimits(request_limit=9)), sender=ME
    )
    for message, old, new in [
        (start, "retinue.actors.config:TeamConfig", "retinue.team.config:TeamConfig"),
        (raised, "retinue.actors.budget:", "retinue.team.budget:"),
    ]:
        text = encode(message)
        assert new in text
        back = decode(text.replace(new, old))
        assert back == message and type(back) is type(message)
    assert resolve_actor_class(start.actor_class) is Orchestrator


@pytest.mark.parametrize("data", ["not json", "[1, 2]", json.dumps({TAG: "builtins:object"})])
def test_data_that_is_no_message_is_one_error(data: str) -> None:
    with pytest.raises(RecordDecodeError):
        decode(data)


def test_a_type_name_is_never_imported_or_called() -> None:
    whole = json.loads(encode(SentMessage(message=AgentMessage(content="x"), sender=ME)))
    whole[TAG] = "os:system"  # a module already imported, but no model class
    message = decode(json.dumps(whole))
    assert isinstance(message, UnknownMessage) and message.type_name == "os:system"
    whole[TAG] = "retinue_never_installed.evil:Payload"
    assert isinstance(decode(json.dumps(whole)), UnknownMessage)
    import sys

    assert "retinue_never_installed" not in sys.modules


def test_a_message_that_no_longer_validates_is_one_error_naming_its_type() -> None:
    whole = json.loads(encode(SentMessage(message=AgentMessage(content="x"), sender=ME)))
    whole["timestamp"] = "not a time"
    with pytest.raises(RecordDecodeError, match="SentMessage no longer validates"):
        decode(json.dumps(whole))


#: Run in a process of its own, so no earlier test can have imported `this` already.
_READ_HOSTILE_RECORD = """
import re
import sys
from retinue import AgentCard, AgentConfig, BaseAgent, ModelConfig
from retinue.actors.messages import ProfilesRegisteredMessage, StartMessage
from retinue.team.record_codec import decode, encode
from retinue.testing import PingTool

config = AgentConfig(name="@Dev", role="Dev", model_cfg=ModelConfig(provider="test"),
                     tools=[PingTool()])
card = AgentCard(agent_class=BaseAgent, config=config)
cards = encode(ProfilesRegisteredMessage(cards=[card]))
start = encode(StartMessage(config=config, actor_class="retinue.BaseAgent"))
assert "this" not in sys.modules
profiles = decode(re.sub(r'"agent_class":"[^"]*"', '"agent_class":"this.Agent"', cards))
started = decode(re.sub(r'"card_class":"[^"]*"', '"card_class":"this.PingTool"', start))
print(profiles.cards[0].agent_class, started.config.tools, "this" in sys.modules)
"""


def test_reading_a_record_that_names_a_module_imports_nothing() -> None:
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", _READ_HOSTILE_RECORD],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    # the card keeps the path it names, the tool card its name; `this` was never imported
    # (it would have printed the Zen of Python)
    assert done.stdout == "this.Agent ['ping'] False\n"
