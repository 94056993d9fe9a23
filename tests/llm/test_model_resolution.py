"""`resolve_model`: what an agent is built with, the shared model unless an override applies."""

from __future__ import annotations

from pydantic_ai.models.test import TestModel
from retinue.llm import ModelConfig
from retinue.llm.model_overrides import add_model_override, remove_model_override
from retinue.llm.models import get_model, resolve_model


def test_resolve_model_is_the_shared_model_unless_an_override_applies() -> None:
    config = ModelConfig(model="resolved")
    assert resolve_model(config, agent="@A", role="R", team="t") is get_model(config)
    given = TestModel()
    override = add_model_override(given, role="R")
    try:
        assert resolve_model(config, agent="@A", role="R", team="t") is given
        assert resolve_model(config, agent="@A", role="Other", team="t") is get_model(config)
    finally:
        remove_model_override(override)
    assert resolve_model(config, agent="@A", role="R", team="t") is get_model(config)
