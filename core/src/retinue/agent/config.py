"""`AgentConfig` and `AgentState`: how an agent is set up and what it keeps for a resume."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Annotated, Any

from pydantic import (
    BeforeValidator,
    Field,
    PlainSerializer,
    SerializationInfo,
    SerializeAsAny,
    ValidationError,
    field_validator,
    model_validator,
)

from retinue.actors.config import BaseConfig, BaseState
from retinue.actors.loader import (
    import_object,
    imported_object,
    is_reading_record,
    qualified_name,
)
from retinue.agent.approval_policy import RuleItem, check_rules
from retinue.agent.output_checks import Outgoing, check_path
from retinue.llm.config import CompactionConfig, ModelConfig, RuntimeConfig
from retinue.llm.limits import AgentUsageLimits, RunUsageLimits, fold_request_limit
from retinue.llm.prompt import PromptTemplate
from retinue.tools.card import ToolCard, card_name
from retinue.tools.state import ToolState
from retinue.validation import ConfigError, prefixed, shown, warn_at_caller

CARD_KEY = "card"
"""In a saved config, the name of a configured card."""
CARD_CLASS_KEY = "card_class"
"""In a saved config, the dotted path of a configured card's class."""


def _card_from_data(value: Any) -> Any:
    """A card saved as `{"card": name, "card_class": path, **fields}` becomes that card again.

    Read from a record, a card whose class is not imported stays its name: nothing is
    imported (a resume, which starts the agent, reads the record with imports).
    """
    if not isinstance(value, Mapping) or CARD_CLASS_KEY not in value:
        return value
    fields = dict(value)
    path = fields.pop(CARD_CLASS_KEY)
    name = fields.pop(CARD_KEY, None)
    if isinstance(path, str) and is_reading_record():
        found = imported_object(path)
        if found is None:
            return name if isinstance(name, str) else path
        path = found
    cls = import_object(path) if isinstance(path, str) else path
    if not (isinstance(cls, type) and issubclass(cls, ToolCard)):
        raise ValueError(f"{shown(path)} is not a ToolCard class")
    if name is not None and name != card_name(cls):
        raise ValueError(f"{shown(path)} is the card {card_name(cls)!r}, not {shown(name)}")
    try:
        return cls.model_validate(fields)
    except ValidationError as exc:
        raise ConfigError.from_validation_error(cls.__name__, exc, cls) from None


def _card_to_data(value: ToolCard | str, info: SerializationInfo) -> Any:
    """A configured card as plain data that `_card_from_data` reads back."""
    if isinstance(value, str):
        return value
    return {
        CARD_KEY: card_name(value),
        CARD_CLASS_KEY: qualified_name(type(value)),
        **value.model_dump(mode=info.mode),
    }


CardItem = Annotated[
    SerializeAsAny[ToolCard] | str,
    BeforeValidator(_card_from_data),
    PlainSerializer(_card_to_data),
]
"""One entry of `AgentConfig.tools`: a card instance, or a card name."""

CheckItem = Annotated[str | Callable[[Outgoing], Any], BeforeValidator(check_path)]
"""One entry of `AgentConfig.checks`: a function, kept as its `package.module:function` path."""


class AgentConfig(BaseConfig):
    """Everything a `BaseAgent` is built from; plain data, so a team can be saved and resumed.

    `tools` takes card instances (code) or card names (team files); the installed default
    cards are added at start without touching this list. A configured card is saved with its
    name and class, so `model_validate(config.model_dump())` gives back an equal config.
    """

    prompt: PromptTemplate = Field(default_factory=PromptTemplate)
    model_cfg: ModelConfig = Field(default_factory=ModelConfig)
    runtime_cfg: RuntimeConfig = Field(default_factory=RuntimeConfig)
    run_usage_limits: RunUsageLimits = Field(default_factory=RunUsageLimits)
    agent_usage_limits: AgentUsageLimits = Field(default_factory=AgentUsageLimits)
    compaction_cfg: CompactionConfig = Field(default_factory=CompactionConfig)
    tools: list[CardItem] = Field(default_factory=list)
    answers_per_turn: int = Field(default=16, ge=1, le=1000)
    """The most answers of one task chain a turn takes in when they wait together: a manager
    whose workers answered while it was busy reads them in one run, not one run each
    (1: one message a turn)."""
    approve: list[RuleItem] = Field(default_factory=list)
    """Tool calls that wait for the person's yes: `card.tool` globs (`workspace.write*`,
    `mcp.*`); see `retinue.agent.approval_policy`."""

    ask_person: bool = False
    """Offer the model `ask_person(question, choices)`: its run waits for the person's answer."""
    checks: list[CheckItem] = Field(default_factory=list)
    """Functions each message the model sends must pass before it is delivered
    (`retinue.agent.output_checks`); stored as `package.module:function` paths."""

    @field_validator("approve", mode="before")
    @classmethod
    def _approval_rules(cls, rules: Any) -> list[RuleItem]:
        return check_rules(rules)

    @model_validator(mode="before")
    @classmethod
    def _old_usage_limits(cls, data: Any) -> Any:
        if not isinstance(data, dict) or "usage_limits" not in data:
            return data
        data = dict(data)
        old = data.pop("usage_limits")
        if "run_usage_limits" in data:
            raise ValueError("pass run_usage_limits or the deprecated usage_limits, not both")
        warn_at_caller(
            "AgentConfig(usage_limits=...) is deprecated; use run_usage_limits=RunUsageLimits(...)"
        )
        try:
            data["run_usage_limits"] = _as_run_limits(old)
        except ConfigError as exc:
            raise ConfigError(problems=prefixed(exc.problems, "usage_limits")) from None
        return data

    @field_validator("run_usage_limits", mode="before")
    @classmethod
    def _plain_run_limits(cls, value: Any) -> Any:
        if isinstance(value, Mapping) and "request_limit" in value:
            warn_at_caller("run_usage_limits: request_limit is deprecated; use run_request_limit")
        return _as_run_limits(value)

    @property
    def usage_limits(self) -> RunUsageLimits:
        """Deprecated name of `run_usage_limits`."""
        warn_at_caller("AgentConfig.usage_limits is deprecated; read run_usage_limits")
        return self.run_usage_limits


_PYDANTIC_AI_LIMITS = {
    "request_limit": "run_request_limit",
    "tool_calls_limit": "tool_calls_limit",
    "input_tokens_limit": "input_tokens_limit",
    "output_tokens_limit": "output_tokens_limit",
    "total_tokens_limit": "total_tokens_limit",
}


def _as_run_limits(old: Any) -> Any:
    """The run tier from any of its spellings, old or new.

    A `RunUsageLimits` (a deprecated `UsageLimits` becomes a plain one, so the config never
    names the old class), a mapping (`request_limit` folded into `run_request_limit`), or a
    pydantic-ai `UsageLimits`, whose caps are copied across.
    """
    if isinstance(old, RunUsageLimits):
        if type(old) is RunUsageLimits:
            return old
        return RunUsageLimits.model_validate(old.model_dump())
    if isinstance(old, Mapping):
        return fold_request_limit(dict(old), "RunUsageLimits")
    if all(hasattr(old, name) for name in _PYDANTIC_AI_LIMITS):
        return RunUsageLimits(
            **{new: getattr(old, name) for name, new in _PYDANTIC_AI_LIMITS.items()}
        )
    return old


class AgentState(BaseState):
    """What an agent keeps between messages and across a resume."""

    backstory: str = ""
    tool_state: ToolState = Field(default_factory=ToolState)
    #: Ids of the messages held because the team's budget was spent, oldest first (the
    #: record has the messages; a resumed agent handles them once the budget allows).
    budget_held: list[str] = Field(default_factory=list)
