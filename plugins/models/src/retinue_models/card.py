"""`ModelTool`: the models an agent may run on, and switching between them.

* SYSTEM_PROMPT — the roster, one line per model with its note (cost, strength), and how
  to switch; stable, so the prompt cache holds;
* LLM_CONTEXT — the model in force (`Model`), restated only when it changes;
* TOOL_CALL — `switch_model(name)`: a name outside the roster is a retry listing it;
* COMMAND — `/model NAME` for people, `/model` alone for the roster and the one in force.

A switch is the runner's state, not the agent's config: `AgentConfig.model_cfg` stays what
it was, and the switch goes through `ReactAgent.use_model`, which takes effect from the next
run and is recorded as a `ModelSwitchedEvent` that a resume applies again.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Self

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from retinue import AgentConfig, BaseAgent, ConfigError, ModelConfig, ReactAgent, ToolCard

if TYPE_CHECKING:
    from pydantic_ai import Tool

SECTION = "Model"
"""Heading of the model in force in context updates."""
MAX_NOTE = 300


class ModelError(ValueError):
    """A switch that cannot be made; the message says why and lists the roster."""


class RosterModel(BaseModel):
    """One model an agent may run on: its model string, a short name and a note."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    model: str
    """A model string, as `ModelConfig.from_string` reads it: `openai:gpt-4.1`, `test`, ..."""
    note: str = Field(default="", max_length=MAX_NOTE)
    """What it is good for and what it costs: `cheap, fast; weak at long plans`."""
    name: str = ""
    """How the model and people ask for it; the model string when left out."""

    @model_validator(mode="before")
    @classmethod
    def _from_string(cls, data: Any) -> Any:
        return {"model": data} if isinstance(data, str) else data

    @field_validator("model")
    @classmethod
    def _parses(cls, value: str) -> str:
        ModelConfig.from_string(value)  # one line naming the forms, when it does not parse
        return value.strip()

    @field_validator("note")
    @classmethod
    def _one_line(cls, value: str) -> str:
        return " ".join(value.split())

    @property
    def label(self) -> str:
        """The name it is asked for by."""
        return self.name.strip() or self.model

    @property
    def config(self) -> ModelConfig:
        """Its model configuration."""
        return ModelConfig.from_string(self.model)

    def line(self) -> str:
        """`- fast (openai:gpt-4.1-mini): cheap; weak at long plans`."""
        what = self.label if self.label == self.model else f"{self.label} ({self.model})"
        return f"- {what}: {self.note}" if self.note else f"- {what}"


class ModelTool(ToolCard):
    """A roster of models; the agent or its person switches between them."""

    name: ClassVar[str] = "models"

    roster: list[RosterModel] = Field(default_factory=list)
    """The models this agent may run on; its configured model is always allowed too."""

    @model_validator(mode="after")
    def _unique(self) -> Self:
        seen: set[str] = set()
        for entry in self.roster:
            key = entry.label.lower()
            if key in seen:
                raise ValueError(f"two models in the roster are named {entry.label!r}")
            seen.add(key)
        return self

    # -- reading ---------------------------------------------------------------------------

    def find(self, name: str) -> RosterModel:
        """The roster entry called `name` (its name or model string); `ModelError` if none.

        The agent's configured model is found by its model string even when the roster does
        not list it: switching back to it is always allowed.
        """
        wanted = name.strip().lower()
        for entry in self.choices():
            if wanted in (entry.label.lower(), entry.model.lower()):
                return entry
        raise ModelError(f"{name.strip()[:80]!r} is not in the roster; {self._choices()}")

    def choices(self) -> list[RosterModel]:
        """The roster, then the configured model when the roster does not list it."""
        if not self.is_bound:  # a blueprint: its agent's configured model is not known yet
            return list(self.roster)
        configured = self._configured()
        if self._entry_for(configured) is not None:
            return list(self.roster)
        own = RosterModel(model=configured.as_string(), note="the configured model")
        return [*self.roster, own]

    def in_force(self) -> str:
        """The model the agent's next run uses, as its roster line (or its model string)."""
        current = self._runner().model_in_force
        entry = self._entry_for(current)
        if entry is not None:
            return entry.line()[2:]
        return f"{current.as_string()}: the configured model"

    # -- channels --------------------------------------------------------------------------

    def get_system_prompts(self) -> Sequence[str]:
        lines = "\n".join(entry.line() for entry in self.choices())
        return [
            "You can choose the model you run on: switch_model(name) switches from your next "
            "turn on. Pick the one that fits the task (a cheaper one for routine work, a "
            "stronger one for hard reasoning). The models you may use:\n" + lines
        ]

    def get_context_states(self) -> Mapping[str, Callable[[], str]]:
        return {SECTION: lambda: f"You are running on {self.in_force()}"}

    def get_tools(self) -> Sequence[Tool[Any]]:
        from retinue_models.model_tools import build_tools

        return build_tools(self)

    def get_commands(self) -> Sequence[Callable[..., Any]]:
        return [self.model]

    # -- switching -------------------------------------------------------------------------

    def switch(self, name: str) -> str:
        """Switch the agent to the roster model `name` from its next run on."""
        entry = self.find(name)
        runner = self._runner()
        # The configured model is left by None, never by its string (which hides credentials).
        back = entry not in self.roster or _same_model(self._configured(), entry.config)
        wanted = runner.model_cfg if back else entry.config
        if _same_model(runner.model_in_force, wanted):
            return f"Already running on {entry.label}."
        try:
            runner.use_model(None if back else wanted)
        except ConfigError as exc:
            raise ModelError(f"{entry.label} cannot be used: {exc}") from None
        return f"Switched to {entry.label}; it answers from the next turn on."

    def model(self, name: str = "") -> str:
        """Switch this agent's model (/model NAME), or show the roster and the one in force."""
        if name.strip():
            return self.switch(name)
        lines = "\n".join(entry.line() for entry in self.choices())
        return f"Running on {self.in_force()}\nThe roster:\n{lines}"

    # -- helpers ---------------------------------------------------------------------------

    def _configured(self) -> ModelConfig:
        """The agent's configured model (readable before its runner exists)."""
        config = self.host.config
        if not isinstance(config, AgentConfig):
            raise TypeError(f"the models card needs an AgentConfig, not a {type(config).__name__}")
        return config.model_cfg

    def _runner(self) -> ReactAgent:
        host = self.host
        if not isinstance(host, BaseAgent):
            raise TypeError(f"the models card needs a BaseAgent, not a {type(host).__name__}")
        return host.react_agent

    def _entry_for(self, current: ModelConfig) -> RosterModel | None:
        return next((e for e in self.roster if _same_model(e.config, current)), None)

    def _choices(self) -> str:
        return "the roster is " + ", ".join(entry.label for entry in self.choices())


def _same_model(a: ModelConfig, b: ModelConfig) -> bool:
    return a.model_key() == b.model_key()
