"""retinue-models: a roster of models an agent may run on, switched by the agent or its person."""

from retinue_models.card import SECTION, ModelError, ModelTool, RosterModel

__all__ = ["SECTION", "ModelError", "ModelTool", "RosterModel"]
