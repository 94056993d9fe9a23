"""`override_model` and `TeamHarness.add(..., model=...)`: a test's own model object for an agent.

The configs here name a real provider whose key is never set (and whose SDK may not even be
installed), so an agent that did not get the override would fail to start with a
`ConfigError`: every passing test shows the config's model was never built. The scripts are
closures over the test's own state.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

import pytest
from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models import Model
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.test import TestModel
from retinue import AgentCard, AgentConfig, BaseAgent, ConfigError, ModelConfig
from retinue.llm.model_overrides import overriding_model
from retinue.testing import TeamHarness, incoming, override_model, send
from retinue.testing.override import as_model

Script = Callable[[list[ModelMessage], AgentInfo], ModelResponse]

NO_KEY = "RETINUE_TEST_KEY_THAT_IS_NEVER_SET"
UNBUILDABLE = "provider 'openai' needs"  # an API key, or the SDK when it is not installed


def real_card(role: str, name: str | None = None) -> AgentCard:
    """A role written for a real provider, as a team file would have it."""
    model = ModelConfig(provider="openai", model="gpt-4o", api_key_env=NO_KEY)
    return AgentCard(
        description=f"The team's {role}",
        agent_class=BaseAgent,
        config=AgentConfig(name=name or f"@{role}", role=role, model_cfg=model),
    )


def answers(text: str, log: list[str] | None = None) -> Script:
    """A script answering the sender with `text`, noting each content it handles in `log`."""

    def script(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        got = incoming(messages)
        if log is not None:
            log.append(got.content)
        return send(info, (got.sender, "response", text))

    return script


def replies(team: TeamHarness) -> list[str]:
    return [m.content for m in team.received_by("@Human")]


def test_without_an_override_the_config_is_built_and_fails(retinue_team: TeamHarness) -> None:
    with pytest.raises(ConfigError, match=UNBUILDABLE):
        retinue_team.add(real_card("Writer"))


def test_an_agent_built_inside_the_block_plays_on_the_closure(retinue_team: TeamHarness) -> None:
    team = retinue_team
    handled: list[str] = []
    with override_model(answers("drafted", handled), agent="@Writer") as model:
        writer = team.add(real_card("Writer"))
    assert isinstance(model, FunctionModel)  # a plain function is wrapped in one
    team.say(writer, "draft the intro")  # after the block: the agent keeps its model
    team.wait_idle()
    assert handled == ["draft the intro"]
    assert replies(team) == ["drafted"]


def test_after_the_block_new_agents_build_their_config_again(retinue_team: TeamHarness) -> None:
    with override_model(answers("x"), role="Writer"):
        retinue_team.add(real_card("Writer"))
    with pytest.raises(ConfigError, match=UNBUILDABLE):
        retinue_team.add(real_card("Writer", name="@Writer2"))


def test_a_model_object_is_used_as_given(retinue_team: TeamHarness) -> None:
    team = retinue_team
    model = TestModel(call_tools=[], custom_output_args={"messages": []})
    with override_model(model, role="Writer") as given:
        writer = team.add(real_card("Writer"))
    assert given is model
    team.say(writer, "anything")
    team.wait_idle()
    assert model.last_model_request_parameters is not None  # this very object answered
    assert replies(team) == []


def test_a_name_beats_a_role_beats_a_team_beats_everyone(retinue_team: TeamHarness) -> None:
    team = retinue_team
    with (
        override_model(answers("by name"), agent="@Ann"),
        override_model(answers("by role"), role="Writer"),
        override_model(answers("by team"), team=team.team_id),
        override_model(answers("for everyone")),
    ):
        ann = team.add(real_card("Writer", name="@Ann"))
        bob = team.add(real_card("Writer", name="@Bob"))
        cy = team.add(real_card("Editor", name="@Cy"))
        other = TeamHarness(plugin_manager=team.system.plugin_manager)
        try:
            dee = other.add(real_card("Editor", name="@Dee"))
            other.say(dee, "hi")
            other.wait_idle()
            assert replies(other) == ["for everyone"]
        finally:
            assert other.shutdown()
    for member in (ann, bob, cy):
        team.say(member, "hi")
        team.wait_idle()
    assert replies(team) == ["by name", "by role", "by team"]


def test_of_equally_specific_overrides_the_latest_wins(retinue_team: TeamHarness) -> None:
    team = retinue_team
    with override_model(answers("outer"), role="Writer"):
        with override_model(answers("inner"), role="Writer"):
            first = team.add(real_card("Writer"))
        second = team.add(real_card("Writer", name="@Writer2"))
    team.say(first, "hi")
    team.wait_idle()
    team.say(second, "hi")
    team.wait_idle()
    assert replies(team) == ["inner", "outer"]


def test_the_harness_hands_a_model_to_its_own_team_only(retinue_team: TeamHarness) -> None:
    team = retinue_team
    other = TeamHarness(plugin_manager=team.system.plugin_manager)
    try:
        mine = team.add(real_card("Writer"), model=answers("mine"))
        theirs = other.add(real_card("Writer"), model=answers("theirs"))
        team.say(mine, "hi")
        other.say(theirs, "hi")
        team.wait_idle()
        other.wait_idle()
        assert (replies(team), replies(other)) == (["mine"], ["theirs"])
    finally:
        assert other.shutdown()


def test_a_registered_role_plays_on_its_model_when_started(retinue_team: TeamHarness) -> None:
    team = retinue_team
    team.register(real_card("Writer"), model=answers("started"))
    writer = team.start("Writer")
    team.say(writer, "hi")
    team.wait_idle()
    assert replies(team) == ["started"]


def test_shutdown_ends_the_models_a_harness_was_handed(retinue_team: TeamHarness) -> None:
    team = TeamHarness(plugin_manager=retinue_team.system.plugin_manager)
    team.add(real_card("Writer"), model=answers("x"))
    assert overriding_model(agent="@Writer", role="Writer", team=team.team_id) is not None
    assert team.shutdown()
    assert overriding_model(agent="@Writer", role="Writer", team=team.team_id) is None


def test_overrides_from_many_threads_each_find_their_own() -> None:
    """The registry is process-wide: entering and leaving overrides races with lookups."""
    threads, rounds = 8, 200
    mistakes: list[str] = []
    start = threading.Barrier(threads)

    def worker(n: int) -> None:
        mine = TestModel()
        start.wait(10)
        for _ in range(rounds):
            with override_model(mine, agent=f"@Agent{n}"):
                if overriding_model(agent=f"@Agent{n}") is not mine:
                    mistakes.append(f"@Agent{n} got another model")
            if overriding_model(agent=f"@Agent{n}") is not None:
                mistakes.append(f"@Agent{n} kept its model after the block")

    pool = [threading.Thread(target=worker, args=(n,)) for n in range(threads)]
    for thread in pool:
        thread.start()
    for thread in pool:
        thread.join(30)
    assert not any(thread.is_alive() for thread in pool)
    assert mistakes == []
    assert overriding_model(agent="@Agent0") is None


@pytest.mark.parametrize(
    ("model", "filters", "error", "match"),
    [
        ("gpt-4o", {}, TypeError, "expected a pydantic-ai Model or a FunctionModel function"),
        (TestModel, {}, TypeError, "got the class TestModel: instantiate it"),
        (TestModel(), {"agent": ""}, ValueError, "agent is a non-empty string"),
        (TestModel(), {"role": "  "}, ValueError, "role is a non-empty string"),
    ],
)
def test_bad_input_is_one_clear_line(
    model: object, filters: dict[str, str], error: type[Exception], match: str
) -> None:
    with pytest.raises(error, match=match) as caught, override_model(model, **filters):  # type: ignore[arg-type]
        pass
    assert "\n" not in str(caught.value)


def test_as_model_leaves_a_model_alone_and_wraps_a_function() -> None:
    model: Model = TestModel()
    assert as_model(model) is model
    assert isinstance(as_model(answers("x")), FunctionModel)
