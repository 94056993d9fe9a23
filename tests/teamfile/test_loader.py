"""Reading team files: every key, and a broken file told as one line per problem."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

import pytest
from retinue import (
    AgentCard,
    AgentConfig,
    BaseAgent,
    CompactionConfig,
    ModelConfig,
    PromptTemplate,
    RuntimeConfig,
    RunUsageLimits,
    ToolCard,
    hookimpl,
)
from retinue.llm import AgentUsageLimits
from retinue.plugins import get_plugin_manager
from retinue.teamfile import TeamFile, TeamFileError, load_team_file, loads_team_file
from retinue.teamfile.locate import KeyLocator
from retinue.testing import FOLLOW


class NoteCard(ToolCard):
    name: ClassVar[str] = "notes"
    limit: int = 3


class PlanCard(ToolCard):
    name: ClassVar[str] = "planning"


class Cards:
    @hookimpl
    def retinue_tool_cards(self) -> list[type[ToolCard]]:
        return [NoteCard, PlanCard]


def agent_config(card: AgentCard) -> AgentConfig:
    """The card's config, an `AgentConfig` (a card's field is typed as any `BaseConfig`)."""
    assert isinstance(card.config, AgentConfig)
    return card.config


@pytest.fixture
def pm() -> object:
    return get_plugin_manager(autoload=False, plugins=[Cards()])


FULL = f"""
[team]
name = "full"
description = "every key"
person = "@Ada"
entry = "Lead"
start = ["Aide"]
model = "function:{FOLLOW}"

[roles.Lead]
description = "Leads"
skills = ["planning"]
name = "Boss"
prompt = {{ template = "You lead {{project}}.", params = {{ project = "retinue" }} }}
model = {{ provider = "openai", model = "gpt-4.1", temperature = 0.2, api_key_env = "MY_KEY" }}
tools = ["planning", {{ card = "notes", limit = 5 }}]
routes_to = ["Aide"]
metadata = {{ icon = "crown" }}

[roles.Lead.run_usage_limits]
run_request_limit = 9

[roles.Lead.agent_usage_limits]
agent_request_limit = 90

[roles.Lead.runtime]
retries = 2
run_timeout = 60

[roles.Lead.compaction]
strategy = "summarize"
keep_last = 8

[roles.Aide]
prompt = "You help."
agent_class = "retinue.BaseAgent"
"""


def test_every_key_lands_in_the_card_it_names(pm: object) -> None:
    spec = loads_team_file(FULL, plugin_manager=pm)
    assert spec.team.name == "full"
    assert spec.team.person_name == "@Ada"
    assert spec.started_roles() == ["Lead", "Aide"]
    assert spec.roles["Lead"] == AgentCard(
        description="Leads",
        skills=["planning"],
        agent_class=BaseAgent,
        config=AgentConfig(
            name="@Boss",
            role="Lead",
            prompt=PromptTemplate(template="You lead {project}.", params={"project": "retinue"}),
            model_cfg=ModelConfig(
                provider="openai", model="gpt-4.1", temperature=0.2, api_key_env="MY_KEY"
            ),
            tools=["planning", NoteCard(limit=5)],
            run_usage_limits=RunUsageLimits(run_request_limit=9),
            agent_usage_limits=AgentUsageLimits(agent_request_limit=90),
            runtime_cfg=RuntimeConfig(retries=2, run_timeout=60),
            compaction_cfg=CompactionConfig(strategy="summarize", keep_last=8),
        ),
        routes_to=["Aide"],
        metadata={"icon": "crown"},
    )
    aide = agent_config(spec.roles["Aide"])
    assert aide.name == "@Aide"
    assert aide.model_cfg == ModelConfig.from_string(f"function:{FOLLOW}")  # the team's model


def test_a_spec_round_trips(pm: object) -> None:
    spec = loads_team_file(FULL, plugin_manager=pm)
    assert TeamFile.model_validate(spec.model_dump()) == spec
    assert TeamFile.model_validate_json(spec.model_dump_json()) == spec
    assert spec.model_dump(mode="json")["roles"]["Lead"]["config"]["tools"][1] == {
        "card": "notes",
        "card_class": f"{__name__}.NoteCard",
        "limit": 5,
    }


def test_a_roles_table_may_be_the_cards_own_dump() -> None:
    flat = loads_team_file('[roles.Aide]\nprompt = "You help."\nmodel = "test"\n')
    dumped = loads_team_file(
        '[roles.Aide]\nagent_class = "retinue.BaseAgent"\n'
        '[roles.Aide.config]\nname = "@Aide"\nrole = "Aide"\n'
        '[roles.Aide.config.prompt]\ntemplate = "You help."\n'
        '[roles.Aide.config.model_cfg]\nprovider = "test"\n'
    )
    assert dumped == flat


def test_one_role_needs_no_entry() -> None:
    spec = loads_team_file('[roles.Solo]\nmodel = "test"\n')
    assert spec.entry_role == "Solo"
    assert spec.team.person_name == "@Human"


def test_a_model_string_may_take_its_base_url_from_its_own_key() -> None:
    spec = loads_team_file(
        '[roles.Solo.model]\nmodel = "openai-chat:llama"\nbase_url = "http://127.0.0.1:8000/v1"\n'
    )
    assert agent_config(spec.roles["Solo"]).model_cfg == ModelConfig(
        provider="openai-chat", model="llama", base_url="http://127.0.0.1:8000/v1"
    )


# ------------------------------------------------------------------ broken files

BROKEN = """[team]
entry = "Boss"

[roles.Lead]
model = "gpt-4.1"
tools = ["notes", "planing"]
routes_to = ["Tester"]
modle = "test"

[roles.Aide]
description = 5
model = "function:no_such_module:fn"

[roles.Aide.runtime]
retries = "many"
"""


def problems_of(text: str, pm: object = None) -> list[str]:
    with pytest.raises(TeamFileError) as caught:
        loads_team_file(text, source="team.toml", plugin_manager=pm)
    error = caught.value
    assert str(error).splitlines() == [f"team.toml: {line}" for line in error.problems]
    return error.problems


def test_a_broken_file_is_one_line_per_problem_naming_key_and_line(pm: object) -> None:
    assert problems_of(BROKEN, pm) == [
        "team.entry (line 2): no role 'Boss'; roles: Lead, Aide",
        "roles.Lead.model (line 5): model string 'gpt-4.1': expected 'provider:model' "
        "(openai:gpt-4.1, anthropic:claude-sonnet-4-5, ollama:llama3.2), "
        "'openai-chat:model@http://host:port/v1', 'function:package.module:function' or "
        "'test'; did you mean 'openai:gpt-4.1'?",
        "roles.Lead.tools[1] (line 6): unknown card 'planing'; did you mean 'planning'? "
        "installed cards: notes, planning",
        "roles.Lead.routes_to[0] (line 7): no role 'Tester' in this team; roles: Lead, Aide",
        "roles.Lead.modle (line 8): unknown key; did you mean 'model'?",
        "roles.Aide.description (line 11): input should be a valid string (got 5)",
        "roles.Aide.model (line 12): cannot import module 'no_such_module' for "
        "'no_such_module:fn': No module named 'no_such_module'",
        "roles.Aide.runtime.retries (line 15): input should be a valid integer, unable to parse "
        "string as an integer (got 'many')",
    ]


def test_an_unknown_card_lists_the_installed_ones(pm: object) -> None:
    (line,) = problems_of('[roles.Solo]\ntools = ["wiki"]\n', pm)
    assert (
        line
        == "roles.Solo.tools[0] (line 2): unknown card 'wiki'; installed cards: notes, planning"
    )


def test_a_card_setting_of_the_wrong_type_names_the_setting(pm: object) -> None:
    (line,) = problems_of('[roles.Solo]\ntools = [{ card = "notes", limit = "x" }]\n', pm)
    assert line.startswith("roles.Solo.tools[0].limit (line 2): input should be a valid integer")


def test_a_missing_entry_role_is_named() -> None:
    (line,) = problems_of('[roles.A]\nmodel = "test"\n[roles.B]\nmodel = "test"\n')
    assert line == (
        "team.entry: required with more than one role: the role the person talks to; roles: A, B"
    )


def test_no_roles_at_all() -> None:
    assert problems_of('[team]\nname = "empty"\n') == [
        "roles: a team needs at least one role: a [roles.NAME] table"
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('[team]\nname = "x\n', "TOML syntax: Illegal character '\\n' (at line 2, column 10)"),
        ("[roles.A]\nmodel = test\n", "TOML syntax: Invalid value (at line 2, column 9)"),
        ("[roles.A]\n[roles.A]\n", "TOML syntax: Cannot declare ('roles', 'A') twice"),
    ],
)
def test_a_toml_syntax_error_gives_the_line_toml_reports(text: str, expected: str) -> None:
    (line,) = problems_of(text)
    assert line.startswith(expected)


def test_the_wrong_type_of_table(pm: object) -> None:
    assert problems_of('roles = "Lead"\n', pm) == [
        "roles (line 1): input should be a valid dictionary (got 'Lead')"
    ]
    assert problems_of('[team]\nstart = "Aide"\n[roles.A]\n', pm)[0].startswith(
        "team.start (line 2): input should be a valid list"
    )


def test_the_person_may_not_share_a_roles_name() -> None:
    (line,) = problems_of('[team]\nperson = "Lead"\n[roles.Lead]\nmodel = "test"\n')
    assert line == (
        "roles.Lead.name (line 3): @Lead is the person's name (team.person); give the role another"
    )


def test_role_is_the_tables_name() -> None:
    (line,) = problems_of('[roles.Lead]\nrole = "Boss"\n')
    assert line == "roles.Lead.role (line 2): the role is the table's name; drop this key"


def test_an_unreadable_file_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(TeamFileError) as caught:
        load_team_file(tmp_path / "missing.toml")
    assert caught.value.problems == ["cannot read the file: No such file or directory"]


def test_the_files_directory_holds_its_scripts(tmp_path: Path) -> None:
    (tmp_path / "my_team_script.py").write_text(
        f"from {FOLLOW.split(':')[0]} import follow as lead\n"
    )
    (tmp_path / "team.toml").write_text('[roles.Solo]\nmodel = "function:my_team_script:lead"\n')
    spec = load_team_file(tmp_path / "team.toml")
    assert agent_config(spec.roles["Solo"]).model_cfg.model == "my_team_script:lead"


# ------------------------------------------------------------------ the locator


def test_the_locator_finds_tables_keys_and_array_tables() -> None:
    text = '''# a comment
[team]
name = "x"  # trailing
notes = """
[roles.Fake]
model = 1
"""
tools = [
  "a",
  "b",
]

[roles."Lead"]
model.provider = "test"

[[roles.Lead.tools]]
card = "a"
[[roles.Lead.tools]]
card = "b"
'''
    locate = KeyLocator(text)
    assert locate.line_of(("team", "name")) == 3
    assert locate.line_of(("roles", "Fake")) is None  # inside a string
    assert locate.line_of(("team", "tools", 1)) == 8  # inside a value: its key's line
    assert locate.line_of(("roles", "Lead")) == 13
    assert locate.line_of(("roles", "Lead", "model", "provider")) == 14
    assert locate.line_of(("roles", "Lead", "model", "temperature")) == 14
    assert locate.line_of(("roles", "Lead", "tools", 1, "card")) == 19
    assert locate.line_of(("nothing",)) is None


def test_a_name_no_member_may_carry_is_refused_at_load() -> None:
    (line,) = problems_of('[team]\nperson = "A\u202eB"\n[roles.Solo]\n')
    assert line.startswith("team.person (line 2): a member name may not hold control")
    (line,) = problems_of('[roles.Solo]\nname = "X\u200bY"\n')
    assert line.startswith("roles.Solo.name (line 2): a member name may not hold control")


def test_a_dumped_role_takes_the_team_model_and_keeps_its_own_paths() -> None:
    text = '[team]\nmodel = "test"\n[roles.A.config]\nrole = "A"\nname = "@A"\n'
    config = agent_config(loads_team_file(text).roles["A"])
    assert config.model_cfg == ModelConfig.from_string("test")
    (line,) = problems_of('[roles.A.config]\nrole = "A"\nmodle_cfg = 1\n')
    assert line == "roles.A.config.modle_cfg (line 3): unknown key; did you mean 'model_cfg'?"


def test_a_role_that_is_not_a_table_is_named_by_its_key() -> None:
    """A role's key is not mistaken for the name of a class pydantic tried."""
    (line,) = problems_of('[roles]\nDeveloper = "x"\n')
    assert line == (
        "roles.Developer (line 2): input should be a valid dictionary or instance of AgentCard "
        "(got 'x')"
    )
