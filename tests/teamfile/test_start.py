"""`TeamFile.start()`: a team file's team runs on a real actor system, the person in it."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import ClassVar

import pytest
from retinue import (
    ActorAddress,
    ActorSystem,
    AgentCard,
    AgentConfig,
    AgentMessage,
    FailureNotice,
    HumanProxy,
    ModelConfig,
    ToolCard,
    hookimpl,
)
from retinue.plugins import PluginError, collect_card_classes, get_plugin_manager
from retinue.teamfile import (
    RunningTeam,
    TeamFile,
    TeamFileError,
    load_team_file,
    loads_team_file,
    with_model,
)
from retinue.testing import FOLLOW

TWO_ROLES = f"""
[team]
name = "pair"
person = "Ada"
entry = "Lead"

[roles.Lead]
description = "Talks to Ada and asks the Helper"
prompt = "You lead."
model = "function:{FOLLOW}"
routes_to = ["Helper"]

[roles.Helper]
description = "Helps"
model = {{ provider = "function", model = "{FOLLOW}", temperature = 0.3 }}
"""


def agent_config(card: AgentCard) -> AgentConfig:
    """The card's config, an `AgentConfig` (a card's field is typed as any `BaseConfig`)."""
    assert isinstance(card.config, AgentConfig)
    return card.config


class Seat(HumanProxy):
    """The person's seat of a test: keeps what reaches the person."""

    received: ClassVar[list[AgentMessage]] = []
    lock: ClassVar[threading.Lock] = threading.Lock()

    def on_agent_message(self, message: AgentMessage, sender: ActorAddress | None) -> None:
        with self.lock:
            self.received.append(message)


@pytest.fixture
def seat() -> type[Seat]:
    Seat.received = []
    return Seat


def test_a_file_starts_its_team_and_the_person_talks_to_the_entry_role(
    tmp_path: Path, seat: type[Seat]
) -> None:
    file = tmp_path / "pair.toml"
    file.write_text(TWO_ROLES)
    spec = load_team_file(file)
    with spec.start(human_class=seat) as running:
        assert isinstance(running, RunningTeam)
        assert running.human.name == "@Ada"
        assert running.entry.name == "@Lead"
        assert running.started == {"Lead": running.entry}
        running.send("send @Ada response: hello from the lead")
        running.wait_idle(30)
        assert [m.content for m in seat.received] == ["hello from the lead"]
        assert [m.name for m in running.members()] == ["@Ada", "@Lead"]
    assert running.system.shutting_down


def test_a_role_named_in_routes_to_is_hired_from_its_card(seat: type[Seat]) -> None:
    if "team" not in collect_card_classes(get_plugin_manager()):
        pytest.skip("hiring needs retinue-team")
    spec = loads_team_file(TWO_ROLES)
    with spec.start(human_class=seat) as running:
        running.send("send Helper request: send @Ada response: the helper answers")
        running.wait_idle(30)
        assert [m.content for m in seat.received] == ["the helper answers"]
        assert [m.name for m in running.members()] == ["@Ada", "@Lead", "@Helper"]


def test_team_start_starts_more_roles_at_launch() -> None:
    spec = loads_team_file(
        TWO_ROLES.replace('entry = "Lead"', 'entry = "Lead"\nstart = ["Helper"]')
    )
    with spec.start() as running:
        assert sorted(running.started) == ["Helper", "Lead"]
        assert running.started["Helper"].name == "@Helper"


def test_model_replaces_every_roles_model_but_keeps_its_sampling() -> None:
    spec = loads_team_file(TWO_ROLES)
    override = ModelConfig.from_string("test")
    lead, helper = spec.cards(override)
    assert agent_config(lead).model_cfg == ModelConfig(provider="test", model="test")
    assert agent_config(helper).model_cfg == ModelConfig(
        provider="test", model="test", temperature=0.3
    )
    hot = ModelConfig.from_string("openai:gpt-4.1", temperature=0.9)
    assert agent_config(with_model(spec.roles["Helper"], hot)).model_cfg.temperature == 0.9
    # the spec is untouched
    assert agent_config(spec.roles["Helper"]).model_cfg.provider == "function"


def test_start_with_a_model_runs_every_role_on_it(seat: type[Seat]) -> None:
    echo = ModelConfig.from_string(f"function:{FOLLOW}")
    spec = loads_team_file(TWO_ROLES.replace(f"function:{FOLLOW}", "test", 1))
    with spec.start(model=echo, human_class=seat) as running:
        running.send("send @Ada response: played on the override")
        running.wait_idle(30)
    assert [m.content for m in seat.received] == ["played on the override"]


def test_the_team_table_sets_the_budget_the_loop_limits_and_the_metadata() -> None:
    settings = """
[team.budget]
request_limit = 7
cost_limit_usd = 1.5

[team.loops]
max_repeats = 2

[team.metadata]
values = { company = "Acme" }
template = "You work at $company."
"""
    spec = loads_team_file(TWO_ROLES.replace('entry = "Lead"\n', 'entry = "Lead"\n' + settings))
    assert TeamFile.model_validate(spec.model_dump()) == spec
    with spec.start() as running:
        status = running.team.get_budget_status()
        assert (status.limits.request_limit, status.limits.cost_limit_usd) == (7, 1.5)
        assert running.team.get_loop_limits().max_repeats == 2
        assert running.team.get_metadata().values == {"company": "Acme"}


def test_a_metadata_template_naming_a_missing_value_is_a_problem_of_the_file() -> None:
    text = TWO_ROLES.replace(
        'entry = "Lead"\n',
        'entry = "Lead"\n\n[team.metadata]\nvalues = { a = "1" }\ntemplate = "$b"\n',
    )
    with pytest.raises(TeamFileError) as caught:
        loads_team_file(text)
    (line,) = caught.value.problems
    assert line.startswith("team.metadata") and "$b" in line


def test_a_system_handed_in_keeps_running_after_the_team_stops() -> None:
    system = ActorSystem()
    try:
        running = loads_team_file(TWO_ROLES).start(system=system)
        assert not running.owns_system
        assert running.shutdown()
        assert not system.shutting_down
        assert running.entry not in system.actors()
    finally:
        system.shutdown()


class StampCard(ToolCard):
    """A card from a plugin registered in code, with a setting."""

    name: ClassVar[str] = "stamp"
    label: str = "none"


class StampPlugin:
    @hookimpl
    def retinue_tool_cards(self) -> list[type[ToolCard]]:
        return [StampCard]


def test_cards_by_name_and_with_settings_come_from_the_plugin_manager() -> None:
    pm = get_plugin_manager(autoload=False, plugins=[StampPlugin()])
    text = TWO_ROLES.replace(
        'routes_to = ["Helper"]',
        'routes_to = ["Helper"]\ntools = ["stamp"]',
    ).replace(
        "temperature = 0.3 }", 'temperature = 0.3 }\ntools = [{ card = "stamp", label = "x" }]'
    )
    spec = loads_team_file(text, plugin_manager=pm)
    assert agent_config(spec.roles["Lead"]).tools == ["stamp"]
    assert agent_config(spec.roles["Helper"]).tools == [StampCard(label="x")]
    with spec.start(plugin_manager=pm) as running:
        assert running.system.plugin_manager is pm
    assert TeamFile.model_validate(spec.model_dump()) == spec
    assert TeamFile.model_validate_json(spec.model_dump_json()) == spec


class LicensedPlugin:
    """Gives the Helper role a capability, from a server that is down."""

    @hookimpl
    def retinue_capabilities(self, config: AgentConfig) -> list[object]:
        if config.role == "Helper":
            raise RuntimeError("licence server unreachable")
        return []


def test_a_plugin_failing_at_start_stops_the_team_and_tells_the_person(
    seat: type[Seat],
) -> None:
    pm = get_plugin_manager(autoload=False, plugins=[LicensedPlugin()])
    spec = loads_team_file(
        TWO_ROLES.replace('entry = "Lead"', 'entry = "Lead"\nstart = ["Helper"]')
    )

    with pytest.raises(PluginError) as caught:
        spec.start(plugin_manager=pm, human_class=seat)

    assert "licence server unreachable" in str(caught.value)
    (notice,) = seat.received
    assert isinstance(notice, FailureNotice) and notice.failure == "start"
    assert notice.content.startswith("@Helper could not start: PluginError: plugin ")
    assert "retinue_capabilities" in notice.content
    assert "licence server unreachable" in notice.content
