"""The models card in a real team: the roster, `switch_model` and `/model`, on scripted models."""

from __future__ import annotations

import pytest
import retinue_models.hooks
from model_scripts import TERSE
from pydantic_ai.messages import ModelRequest
from retinue import BaseAgent, Channel, ConfigError, ModelSwitchedEvent
from retinue.actors import runtime
from retinue.llm.events import parse_llm_event
from retinue.plugins import get_plugin_manager
from retinue.testing import (
    FOLLOW,
    TeamHarness,
    call_directive,
    check_plugin_card,
    script,
    scripted_card,
)
from retinue_models import ModelTool, RosterModel

FOLLOWER = f"function:{FOLLOW}"
ROSTER = [
    RosterModel(model=FOLLOWER, name="follow", note="does what it is told; free"),
    RosterModel(model=TERSE, name="terse", note="answers in one line; cheap"),
]


def switcher(role: str = "Ada") -> object:
    return scripted_card(role, tools=[ModelTool(roster=ROSTER)])


def test_the_card_is_a_plugin_card_named_models_that_round_trips() -> None:
    check_plugin_card(
        retinue_models.hooks,
        ModelTool(roster=[*ROSTER, "test"]),
        name="models",
        channels={Channel.TOOL_CALL, Channel.SYSTEM_PROMPT, Channel.LLM_CONTEXT, Channel.COMMAND},
    )


def test_a_bad_roster_is_one_line_naming_the_entry() -> None:
    with pytest.raises(ConfigError) as caught:
        ModelTool(roster=["test", "gpt-4.1"])
    assert str(caught.value).startswith("ModelTool: roster[1].model: model string 'gpt-4.1'")
    assert len(str(caught.value).splitlines()) == 1
    with pytest.raises(ConfigError, match="two models in the roster are named 'Terse'"):
        ModelTool(roster=[*ROSTER, RosterModel(model="test", name="Terse")])


def test_the_model_switches_itself_and_its_next_turn_runs_on_the_new_model(
    retinue_team: TeamHarness,
) -> None:
    team = retinue_team
    ada = team.add(switcher())

    team.say(
        ada,
        script(
            call_directive("switch_model", {"name": "terse"}),
            call_directive("switch_model", {"name": "TERSE"}),
            answer="switched",
        ),
    )
    team.wait_idle(20)
    team.say(ada, "How is it going?")
    team.wait_idle(20)

    assert team.tool_results("@Ada") == [
        "Switched to terse; it answers from the next turn on.",
        "Already running on terse.",
    ]
    assert [m.content for m in team.received_by("@Human")] == [
        "switched",
        "terse: How is it going?",
    ]
    # The config is untouched: the switch is the runner's state, in the record.
    agent = runtime.lookup(ada.agent_id)
    assert isinstance(agent, BaseAgent)
    assert agent.config.model_cfg.model == FOLLOW
    assert agent.react_agent.model_in_force.as_string() == TERSE
    switches = [e for e in team.events(ModelSwitchedEvent) if e.agent_name == "@Ada"]
    assert [e.model_cfg.as_string() for e in switches if e.model_cfg] == [TERSE]


def test_the_roster_is_in_the_system_prompt_and_the_model_in_force_in_context(
    retinue_team: TeamHarness,
) -> None:
    team = retinue_team
    ada = team.add(switcher())
    team.say(ada, call_directive("switch_model", {"name": "terse"}))
    team.wait_idle(20)

    [first] = team.model_requests("@Ada")[:1]
    instructions = next(m.instructions for m in first if isinstance(m, ModelRequest))
    assert instructions is not None
    assert (
        f"- follow ({FOLLOWER}): does what it is told; free\n"
        f"- terse ({TERSE}): answers in one line; cheap"
    ) in instructions
    transcript = team.proxy(ada).get_context_transcript()
    assert f"You are running on follow ({FOLLOWER}): does what it is told; free" in transcript
    team.say(ada, "next")
    team.wait_idle(20)
    transcript = team.proxy(ada).get_context_transcript()
    assert "### Model (updated)" in transcript
    assert f"You are running on terse ({TERSE}): answers in one line; cheap" in transcript


def test_a_model_outside_the_roster_is_refused_with_the_roster(
    retinue_team: TeamHarness,
) -> None:
    team = retinue_team
    ada = team.add(switcher())
    wrong = call_directive("switch_model", {"name": "openai:gpt-5"})

    team.say(ada, script(wrong, wrong, answer="stayed"))
    team.wait_idle(20)

    refusal = "'openai:gpt-5' is not in the roster; the roster is follow, terse"
    assert team.tool_results("@Ada") == [refusal, f"Error: {refusal}"]
    assert [m.content for m in team.received_by("@Human")] == ["stayed"]
    assert team.command(ada, "/model gpt-4o").endswith(
        "'gpt-4o' is not in the roster; the roster is follow, terse"
    )


def test_a_roster_model_that_cannot_be_built_here_is_refused_and_nothing_changes(
    retinue_team: TeamHarness, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    team = retinue_team
    ada = team.add(scripted_card("Ada", tools=[ModelTool(roster=[*ROSTER, "openai:gpt-4.1"])]))

    answer = team.command(ada, "/model openai:gpt-4.1")
    assert "openai:gpt-4.1 cannot be used:" in answer
    assert team.command(ada, "/model").startswith(f"Running on follow ({FOLLOWER})")


def test_the_person_switches_with_slash_model_and_the_switch_survives_a_resume(
    retinue_team: TeamHarness,
) -> None:
    team = retinue_team
    ada = team.add(switcher())

    assert team.command(ada, "/model") == (
        f"Running on follow ({FOLLOWER}): does what it is told; free\n"
        "The roster:\n"
        f"- follow ({FOLLOWER}): does what it is told; free\n"
        f"- terse ({TERSE}): answers in one line; cheap"
    )
    assert (
        team.command(ada, "/model terse") == "Switched to terse; it answers from the next turn on."
    )
    team.say(ada, "one")
    team.wait_idle(20)
    assert team.received_by("@Human")[-1].content == "terse: one"

    # A resumed agent replays its record: the switch comes back with it.
    recorded = [e.model_dump(mode="json") for e in team.events(ModelSwitchedEvent)]
    resumed = TeamHarness(
        plugin_manager=get_plugin_manager(autoload=False, plugins=[retinue_models.hooks])
    )
    try:
        again = resumed.add(switcher())
        resumed.proxy(again).react_agent.restore_context(
            [parse_llm_event(data) for data in recorded]
        )
        resumed.say(again, "two")
        resumed.wait_idle(20)
        assert [m.content for m in resumed.received_by("@Human")] == ["terse: two"]
        assert resumed.command(again, "/model follow").startswith("Switched to follow")
        resumed.say(again, script(answer="back on follow"))
        resumed.wait_idle(20)
        assert resumed.received_by("@Human")[-1].content == "back on follow"
    finally:
        assert resumed.shutdown()


def test_an_empty_roster_still_lists_the_configured_model_and_switches_back_to_it(
    retinue_team: TeamHarness,
) -> None:
    team = retinue_team
    ada = team.add(scripted_card("Ada", tools=[ModelTool()]))

    assert team.command(ada, "/model") == (
        f"Running on {FOLLOWER}: the configured model\n"
        f"The roster:\n- {FOLLOWER}: the configured model"
    )
    assert team.command(ada, f"/model {FOLLOWER}") == f"Already running on {FOLLOWER}."
    assert team.command(ada, "/model terse").endswith(
        f"'terse' is not in the roster; the roster is {FOLLOWER}"
    )
