"""Model objects handed in from code, used in place of the model an agent's config names.

A `ModelConfig` is plain data, so it cannot hold a model object; yet a test wants to give an
agent a `FunctionModel` over a closure, or a `TestModel` it configured, without a module-level
function to name by path. An override says which agents get such an object: one member by
name, every member of a role, the members of one team, or every agent built while it is
active. Agents run on their own threads and hired agents are built on the orchestrator's, so
the registry is process-wide and locked rather than a context variable.

An agent asks once, when it is built (`retinue.llm.models.resolve_model`); an agent keeps the
model it got after the override ends.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pydantic_ai.models import Model


@dataclass(frozen=True, eq=False)
class ModelOverride:
    """`model` for the agents that match every filter given (None matches anything).

    `agent` is a member's name (`@Dev`), `role` a role (`Developer`), `team` the `team_id`
    of an orchestrator's team. Compared by identity: the same filters may be active twice.
    """

    model: Model
    agent: str | None = None
    role: str | None = None
    team: str | None = None

    def __post_init__(self) -> None:
        for label in ("agent", "role", "team"):
            value = getattr(self, label)
            if value is not None and (not isinstance(value, str) or not value.strip()):
                raise ValueError(f"a model override's {label} is a non-empty string, got {value!r}")

    def matches(self, agent: str | None, role: str | None, team: str | None) -> bool:
        """Whether an agent with this name, role and team gets `model`."""
        return (
            (self.agent is None or self.agent == agent)
            and (self.role is None or self.role == role)
            and (self.team is None or self.team == team)
        )

    def specificity(self) -> tuple[bool, bool, bool]:
        """How narrowly it aims: a name beats a role, which beats a team, which beats none."""
        return (self.agent is not None, self.role is not None, self.team is not None)


_lock = threading.Lock()
_active: list[ModelOverride] = []  # oldest first


def add_model_override(
    model: Model, *, agent: str | None = None, role: str | None = None, team: str | None = None
) -> ModelOverride:
    """Make agents built from now on that match get `model`; undo with `remove_model_override`."""
    override = ModelOverride(model, agent=agent, role=role, team=team)
    with _lock:
        _active.append(override)
    return override


def remove_model_override(override: ModelOverride) -> None:
    """End one override; the agents already built keep their model. Ending it twice is a no-op."""
    with _lock:
        for index, active in enumerate(_active):
            if active is override:
                del _active[index]
                return


def overriding_model(
    *, agent: str | None = None, role: str | None = None, team: str | None = None
) -> Model | None:
    """The model an override gives this agent, or None when none applies.

    The most specific matching override wins; of equally specific ones, the latest.
    """
    if not _active:  # the usual case outside tests: no lock taken
        return None
    with _lock:
        found = [(n, o) for n, o in enumerate(_active) if o.matches(agent, role, team)]
    if not found:
        return None
    _, best = max(found, key=lambda entry: (entry[1].specificity(), entry[0]))
    return best.model
