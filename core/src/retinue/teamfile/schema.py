"""`TeamFile` and `TeamSettings`: a team as plain data, checked as a whole.

A `TeamFile` is what a team file means once read: the team-wide settings and one
`AgentCard` per role. It is the dump form: `TeamFile.model_validate(spec.model_dump())`
gives back an equal spec, so a spec can be stored, compared and resumed like any card. The
friendlier TOML shape (`model = "openai:gpt-4.1"` at the role's top level) is turned into
this form by `retinue.teamfile.loader`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from pydantic import ConfigDict, Field, field_validator, model_validator

from retinue.agent.approval_policy import RuleItem, check_rules
from retinue.agent.output_checks import check_path
from retinue.llm.config import ModelConfig
from retinue.team.budget import TeamUsageLimits
from retinue.team.card import AgentCard
from retinue.team.chains import LoopLimits
from retinue.team.config import TeamConfig
from retinue.team.metadata import TeamMetadata
from retinue.team.names import check_member_name
from retinue.validation import ConfigError, ConfigModel, ConfigProblem, shown

if TYPE_CHECKING:
    from retinue.teamfile.running import RunningTeam

DEFAULT_PERSON = "Human"


def member_name(name: str) -> str:
    """`@Name` from `Name` or `@Name`, as the kernel names members."""
    name = name.strip()
    return name if name.startswith("@") else f"@{name}"


class TeamSettings(ConfigModel):
    """The `[team]` table: what the team is called, who the person is, who they talk to.

    `entry` is the role the person's messages go to (needed when the file has more than
    one role); `start` names further roles to start at launch (every other role is only
    hired when a member asks for it). `model` is the default of every role that names none.
    `approve` names the tool calls that wait for the person's yes in every role (each
    role's config gets them, after its own); `checks` the functions every role's messages
    pass before they are delivered (after the role's own). `budget`, `loops` and `metadata` are the
    orchestrator's `TeamConfig` settings (what the whole team may spend, when a chain counts
    as a loop, the business context every system prompt gets). A new team-wide setting is
    one field here.
    """

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)

    name: str = "team"
    description: str = ""
    person: str = DEFAULT_PERSON
    entry: str | None = None
    start: list[str] = Field(default_factory=list)
    model: ModelConfig | None = None
    budget: TeamUsageLimits = Field(default_factory=TeamUsageLimits)
    loops: LoopLimits = Field(default_factory=LoopLimits)
    metadata: TeamMetadata | None = None
    approve: list[RuleItem] = Field(default_factory=list)
    """Tool calls that wait for the person's yes in every role (`card.tool` globs)."""
    checks: list[str] = Field(default_factory=list)
    """`package.module:function` checks every role's outgoing messages must pass."""

    @field_validator("approve", mode="before")
    @classmethod
    def _approval_rules(cls, rules: Any) -> list[RuleItem]:
        return check_rules(rules)

    @field_validator("checks")
    @classmethod
    def _check_paths(cls, paths: list[str]) -> list[str]:
        return [check_path(path) for path in paths]

    def team_config(self, name: str, import_path: list[str] | None = None) -> TeamConfig:
        """The orchestrator's config: its name, these team-wide settings, where the team's
        code is imported from."""
        return TeamConfig(
            name=name,
            role="Orchestrator",
            budget=self.budget,
            loops=self.loops,
            metadata=self.metadata,
            import_path=import_path or [],
        )

    @field_validator("person")
    @classmethod
    def _a_name(cls, value: str) -> str:
        if not value.strip().lstrip("@").strip():
            raise ValueError("the person's name must not be empty")
        check_member_name(member_name(value))
        return value.strip()

    @property
    def person_name(self) -> str:
        """The person's member name (`@Human`)."""
        return member_name(self.person)


class TeamFile(ConfigModel):
    """A team: its settings and a card per role, each role named by its table's key.

    Checked as a whole: the entry role, the roles started at launch and every `routes_to`
    name a role of the file; each card's `config.role` is its key. `folder` is the team
    file's folder (set by `load_team_file`): the code the file names is imported from there,
    after the installed packages.
    """

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)

    team: TeamSettings = Field(default_factory=TeamSettings)
    roles: dict[str, AgentCard]
    folder: str | None = None

    @model_validator(mode="after")
    def _consistent(self) -> TeamFile:
        problems = team_problems(
            self.team.entry,
            self.team.start,
            self.team.person_name,
            {
                key: (card.role, card.config.name, card.routes_to)
                for key, card in self.roles.items()
            },
        )
        if problems:
            raise ConfigError(problems=problems)
        return self

    @property
    def entry_role(self) -> str:
        """The role the person talks to: `team.entry`, or the only role."""
        return self.team.entry if self.team.entry is not None else next(iter(self.roles))

    @property
    def entry_card(self) -> AgentCard:
        """The card of the entry role."""
        return self.roles[self.entry_role]

    def started_roles(self) -> list[str]:
        """The roles a launch starts: the entry role first, then `team.start`, once each."""
        return list(dict.fromkeys([self.entry_role, *self.team.start]))

    def cards(self, model: ModelConfig | None = None) -> list[AgentCard]:
        """Every role's card; with `model`, each playing on that model instead of its own."""
        if model is None:
            return list(self.roles.values())
        return [with_model(card, model) for card in self.roles.values()]

    def start(
        self,
        model: ModelConfig | None = None,
        human_class: type[Any] | None = None,
        system: Any = None,
        *,
        plugin_manager: Any = None,
        store: Any = None,
    ) -> RunningTeam:
        """Start the team; see `retinue.teamfile.running.start_team`."""
        from retinue.teamfile.running import start_team

        return start_team(
            self,
            model=model,
            human_class=human_class,
            system=system,
            plugin_manager=plugin_manager,
            store=store,
        )


def team_problems(
    entry: object,
    start: object,
    person: object,
    roles: Mapping[str, tuple[object, object, object]],
) -> list[ConfigProblem]:
    """What is wrong with how a team's roles refer to each other, on values of any type.

    `roles` maps each role's key to its `(config.role, config.name, routes_to)`. Values of
    the wrong type are skipped: their own check reports them. The loader asks this of a file
    whose cards failed too, so every problem is reported at once.
    """
    problems: list[ConfigProblem] = []
    known = ", ".join(roles) or "none"
    if not roles:
        problems.append(
            ConfigProblem(("roles",), "a team needs at least one role: a [roles.NAME] table")
        )
    for key, (role, name, routes_to) in roles.items():
        if isinstance(role, str) and role != key:
            problems.append(
                ConfigProblem(
                    ("roles", key, "config", "role"),
                    f"is {shown(role)}, but the table's key names the role {shown(key)}",
                )
            )
        if isinstance(name, str):
            try:
                check_member_name(name)
            except ValueError as exc:
                problems.append(ConfigProblem(("roles", key, "config", "name"), str(exc)))
        if isinstance(name, str) and isinstance(person, str) and member_name(name) == person:
            problems.append(
                ConfigProblem(
                    ("roles", key, "config", "name"),
                    f"{person} is the person's name (team.person); give the role another",
                )
            )
        for index, target in enumerate(routes_to if isinstance(routes_to, list) else []):
            if isinstance(target, str) and target not in roles:
                problems.append(
                    ConfigProblem(
                        ("roles", key, "routes_to", index),
                        f"no role {shown(target)} in this team; roles: {known}",
                    )
                )
    if entry is None and len(roles) > 1:
        problems.append(
            ConfigProblem(
                ("team", "entry"),
                f"required with more than one role: the role the person talks to; roles: {known}",
            )
        )
    elif isinstance(entry, str) and roles and entry not in roles:
        problems.append(ConfigProblem(("team", "entry"), f"no role {shown(entry)}; roles: {known}"))
    for index, role in enumerate(start if isinstance(start, list) else []):
        if isinstance(role, str) and role not in roles:
            problems.append(
                ConfigProblem(("team", "start", index), f"no role {shown(role)}; roles: {known}")
            )
    return problems


_MODEL_IDENTITY = ("provider", "model", "base_url", "api_key_env", "stream_function")


def with_model(card: AgentCard, model: ModelConfig) -> AgentCard:
    """`card` playing on `model`: which model comes from `model`; sampling settings too when
    `model` sets them, else the card's own (a role's `temperature` survives `--model`)."""
    config = card.config
    own: ModelConfig | None = getattr(config, "model_cfg", None)
    if own is None:
        return card  # an actor without a model (a custom proxy): nothing to override
    merged = {
        **own.model_dump(exclude=set(_MODEL_IDENTITY)),
        **model.model_dump(include=set(_MODEL_IDENTITY) | model.model_fields_set),
    }
    new_config = config.model_copy(update={"model_cfg": ModelConfig.model_validate(merged)})
    return card.model_copy(update={"config": new_config})
