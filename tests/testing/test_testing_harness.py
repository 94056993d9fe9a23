"""`TeamHarness` beyond the basics: starting roles, commands, the roster, and what each
agent's model was shown, read back from the events the agents published."""

from __future__ import annotations

import pytest
from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models.function import AgentInfo
from retinue import AgentConfig, AgentMessage, Message
from retinue.testing import (
    PingTool,
    Recorder,
    TeamHarness,
    call_directive,
    follow,
    scripted_card,
    send_directive,
    user_texts,
)


class Keeper:
    """`follow`, keeping a copy of what the model function was handed: the reference."""

    def __init__(self) -> None:
        self.shown: list[list[ModelMessage]] = []

    def follow(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        self.shown.append(list(messages))
        return follow(messages, info)


def _parts(messages: list[ModelMessage]) -> list[tuple[str, str]]:
    """The parts in order, as (kind, text): the model is shown consecutive requests merged."""
    return [
        (type(part).__name__, str(getattr(part, "content", getattr(part, "args", ""))))
        for message in messages
        for part in message.parts
    ]


def _to_human(team: TeamHarness) -> list[str]:
    return [m.content for m in team.received_by("@Human")]


def test_model_requests_are_what_the_model_was_shown(retinue_team: TeamHarness) -> None:
    team = retinue_team
    keeper = Keeper()
    ada = team.add(scripted_card("Scribe", tools=[PingTool()]), model=keeper.follow)

    team.say(ada, f"{call_directive('ping')}\n{send_directive('@Human', 'response', 'one')}")
    team.wait_idle()
    team.command(ada, "/compact")  # an operator action between runs
    team.say(ada, send_directive("@Human", "response", "two"))
    team.wait_idle()
    assert team.command(ada, "/clear") == "Context cleared."  # the history is replaced
    team.say(ada, send_directive("@Human", "response", "three"))
    team.wait_idle()

    shown = keeper.shown
    requests = team.model_requests("@Scribe")
    assert len(shown) == 4  # a tool step, then an answer in each run
    assert [_parts(r) for r in requests] == [_parts(s) for s in shown]
    shown_after_clear = "\n".join(user_texts(requests[3]))
    assert "Context cleared." in shown_after_clear and "one" not in shown_after_clear
    assert team.tool_results("@Scribe") == ["pong"]  # the output tool's returns are not listed
    assert _to_human(team)[-1] == "three"


def test_each_agent_is_read_on_its_own(retinue_team: TeamHarness) -> None:
    team = retinue_team
    ada = team.add(scripted_card("Ada", tools=[PingTool()]))
    bob = team.add(scripted_card("Bob"))

    team.say(ada, call_directive("ping"))
    team.say(bob, "Hello.")
    team.wait_idle()

    assert len(team.model_requests("@Ada")) == 2
    assert len(team.model_requests("@Bob")) == 1
    assert team.tool_results("@Ada") == ["pong"]
    assert team.tool_results("@Bob") == []
    assert team.model_requests("@Nobody") == []


def test_a_stopped_agent_can_still_be_read(retinue_team: TeamHarness) -> None:
    team = retinue_team
    ada = team.add(scripted_card("Ada", tools=[PingTool()]))
    team.say(ada, call_directive("ping"))
    team.wait_idle()

    assert team.system.stop_actor(ada)
    team.wait_idle()

    assert not ada.is_alive()
    assert "@Ada" not in team.roster()
    assert team.tool_results("@Ada") == ["pong"]
    assert len(team.model_requests("@Ada")) == 2


def test_start_runs_a_member_from_a_registered_role(retinue_team: TeamHarness) -> None:
    team = retinue_team
    team.register(scripted_card("Scribe"))

    first = team.start("Scribe")
    second = team.start("Scribe")

    assert (first.name, second.name) == ("@Scribe", "@Scribe2")
    assert team.roster() == {"@Human": "Human", "@Scribe": "Scribe", "@Scribe2": "Scribe"}
    with pytest.raises(ValueError, match="'Astronaut'"):
        team.start("Astronaut")


def test_command_returns_the_one_answer_and_refuses_silence(retinue_team: TeamHarness) -> None:
    team = retinue_team
    ada = team.add(scripted_card("Scribe"))

    assert team.command(ada, "/clear") == "Context cleared."
    with pytest.raises(AssertionError, match=r"expected one answer to 'Nothing to say\.'"):
        team.command(ada, "Nothing to say.")  # not a command: the model answers no one
    with pytest.raises(AssertionError, match=r"got \['a', 'b'\]"):
        team.command(ada, "\n".join(send_directive("@Human", "response", t) for t in "ab"))


def test_the_recorder_hands_out_copies() -> None:
    recorder = Recorder()
    recorder.on_message(AgentMessage(content="one"))

    seen = recorder.messages
    seen.append(Message())

    assert [type(m) for m in recorder.messages] == [AgentMessage]


def test_scripted_card_fills_in_a_plain_role() -> None:
    card = scripted_card("QA", routes_to=["Developer"], skills=["pytest"], tools=["ping"])
    assert isinstance(card.config, AgentConfig)

    assert card.role == "QA"
    assert card.config.name == "@QA"
    assert card.description == "Does the work of a QA"
    assert card.config.model_cfg.model == "retinue.testing.directives:follow"
    assert card.config.model_cfg.provider == "function"
    assert (card.routes_to, card.skills, card.config.tools) == (["Developer"], ["pytest"], ["ping"])
