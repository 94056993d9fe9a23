"""Team metadata: the business context rendered once into every agent's system prompt."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from pydantic_ai.messages import ModelRequest
from retinue import ConfigError, Orchestrator, TeamConfig, TeamMetadata
from retinue.plugins import get_plugin_manager
from retinue.testing import TeamHarness, scripted_card, send_directive
from retinue_team import hooks

METADATA = TeamMetadata(
    values={
        "company": "Acme $product {company}",  # data: never expanded again
        "product": "a billing API",
        "conventions": 'JSON keys look like {"invoice_id": 1}; {{ no jinja }} here',
    },
    template=("You work for $company on ${product}.\nConventions: $conventions\nPrices are in $$."),
)
RENDERED = (
    "You work for Acme $product {company} on a billing API.\n"
    'Conventions: JSON keys look like {"invoice_id": 1}; {{ no jinja }} here\n'
    "Prices are in $."
)


@pytest.fixture
def team() -> Iterator[TeamHarness]:
    harness = TeamHarness(
        plugin_manager=get_plugin_manager(autoload=False, plugins=[hooks]), metadata=METADATA
    )
    yield harness
    assert harness.shutdown()


def system_prompt(team: TeamHarness, name: str) -> str:
    first = team.model_requests(name)[0]
    found = next(m.instructions for m in first if isinstance(m, ModelRequest) and m.instructions)
    assert found is not None
    return found


def test_every_agent_hired_or_started_gets_the_rendered_context_once(team: TeamHarness) -> None:
    team.register(scripted_card("Developer"))
    lead = team.add(scripted_card("Lead", routes_to=["Developer"]))

    team.say(
        lead, send_directive("Developer", "request", send_directive("@Lead", "response", "ok"))
    )
    team.wait_idle(20)
    team.say(lead, "again")
    team.wait_idle(20)

    for name in ("@Lead", "@Developer"):
        prompt = system_prompt(team, name)
        assert prompt.count(RENDERED) == 1
    # The block is the same on every request: rendered when the agent started, not per turn.
    later = [
        m.instructions for m in team.model_requests("@Lead")[-1] if isinstance(m, ModelRequest)
    ]
    assert all(text == system_prompt(team, "@Lead") for text in later if text)


def test_a_template_naming_a_missing_key_fails_when_the_team_is_made() -> None:
    with pytest.raises(ConfigError) as caught:
        TeamHarness(
            metadata={"values": {"company": "Acme"}, "template": "$company sells $product"}  # type: ignore[arg-type]
        )
    assert str(caught.value) == (
        "TeamConfig: metadata: the metadata template names $product, which the "
        "metadata does not have (it has company)"
    )
    with pytest.raises(ConfigError, match="malformed placeholder"):
        TeamMetadata(values={"a": "1"}, template="cost: $ 5")
    with pytest.raises(ConfigError, match="must be a Python identifier"):
        TeamMetadata(values={"the company": "Acme"})


def test_without_a_template_the_values_are_listed_and_without_metadata_nothing(
    team: TeamHarness,
) -> None:
    assert TeamMetadata(values={"company": "Acme", "product": "billing"}).render() == (
        "About the team's work:\n- company: Acme\n- product: billing"
    )
    assert TeamMetadata().render() == ""

    plain = TeamHarness(plugin_manager=get_plugin_manager(autoload=False, plugins=[hooks]))
    try:
        solo = plain.add(scripted_card("Solo"))
        plain.say(solo, "hello")
        plain.wait_idle(20)
        assert "You work for" not in system_prompt(plain, "@Solo")
    finally:
        assert plain.shutdown()


def test_metadata_set_on_a_running_orchestrator_reaches_agents_started_after(
    team: TeamHarness,
) -> None:
    before = team.add(scripted_card("Before"))
    changed = TeamMetadata(values={"company": "Globex"}, template="You work for $company.")
    team.system.proxy_ask(team.orchestrator, Orchestrator).set_metadata(changed)
    after = team.add(scripted_card("After"))
    for member in (before, after):
        team.say(member, "hello")
    team.wait_idle(20)

    assert RENDERED in system_prompt(team, "@Before")
    assert "You work for Globex." in system_prompt(team, "@After")
    assert RENDERED not in system_prompt(team, "@After")


def test_metadata_and_the_orchestrator_config_round_trip() -> None:
    assert TeamMetadata.model_validate(METADATA.model_dump()) == METADATA
    assert TeamMetadata.model_validate_json(METADATA.model_dump_json()) == METADATA
    config = TeamConfig(name="@Orchestrator", role="Orchestrator", metadata=METADATA)
    assert TeamConfig.model_validate(config.model_dump()) == config
