"""`override_model`: agents built inside a `with` block talk to a model object of the test's.

A config names its model as data (`ModelConfig(provider="function", model="pkg.mod:fn")`),
so a scripted model otherwise has to be a module-level function, and whatever it records
has to live in that module, shared by every test. With an override the script is a closure
over the test's own state, and a team file written for a real provider can be run offline
as it is::

    def test_the_developer_is_hired(retinue_team):
        seen = []

        def developer(messages, info):
            seen.append(incoming(messages))
            return send(info, ("@Manager", "response", "done"))

        with override_model(developer, role="Developer"):
            ...
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TypeAlias

from pydantic_ai.models import Model
from pydantic_ai.models.function import FunctionDef, FunctionModel

from retinue.llm.model_overrides import add_model_override, remove_model_override

ModelLike: TypeAlias = Model | FunctionDef
"""A pydantic-ai model object, or a `FunctionModel` function to wrap in one."""


def as_model(model: ModelLike) -> Model:
    """`model` itself, or a `FunctionModel` over it when it is a plain function."""
    if isinstance(model, Model):
        return model
    if isinstance(model, type):
        raise TypeError(f"expected a model object, got the class {model.__name__}: instantiate it")
    if callable(model):
        return FunctionModel(model)
    raise TypeError(
        f"expected a pydantic-ai Model or a FunctionModel function, got {type(model).__name__}"
    )


@contextmanager
def override_model(
    model: ModelLike,
    *,
    agent: str | None = None,
    role: str | None = None,
    team: str | None = None,
) -> Iterator[Model]:
    """Agents built while this is active, and matching every filter given, use `model`.

    `agent` is a member's name (`"@Dev"`), `role` a role (`"Developer"`), `team` a team's id
    (`TeamHarness.team_id`); with none, every agent. The most specific override wins (a name
    over a role over a team), and the latest of equally specific ones. It holds for agents
    started from any thread (hires happen on the orchestrator's), so it is process-wide:
    two teams running at once in one process share it unless `team` tells them apart. An
    agent keeps its model after the block ends. Yields the model object (a function is
    wrapped in a `FunctionModel` first).
    """
    resolved = as_model(model)
    override = add_model_override(resolved, agent=agent, role=role, team=team)
    try:
        yield resolved
    finally:
        remove_model_override(override)
