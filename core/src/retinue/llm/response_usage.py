"""What one model response used: as the team's budget charges it, and as an event reports it.

One function for both, so what the budget counted while the run was in flight and what the
record replays later (`LlmUsageEvent`) are the same figures.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import TYPE_CHECKING

from retinue.llm.events import LlmUsageEvent
from retinue.llm.pricing import price_response
from retinue.team.tally import Charge

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelResponse

#: The `system` of pydantic-ai's scripted models (`FunctionModel`, `TestModel`), which starts
#: the `model_id` of their responses.
SCRIPTED_SYSTEMS = frozenset({"function", "test"})


def response_charge(response: ModelResponse, *, priced: bool = True) -> Charge:
    """One model response's usage as the team's budget counts it (its cost when `priced` and
    `genai-prices` knows it)."""
    usage = response.usage
    return Charge(
        model_name=response.model_name,
        requests=usage.requests,
        input_tokens=usage.input_tokens,
        output_tokens=usage.output_tokens,
        total_tokens=usage.total_tokens,
        cost_usd=price_response(response) if priced else None,
        scripted=(response.model_id or "").partition(":")[0] in SCRIPTED_SYSTEMS,
    )


def usage_event(agent_name: str, response: ModelResponse, run_id: str | None) -> LlmUsageEvent:
    """The usage of one model response, as an event (its cost when `genai-prices` knows it)."""
    return LlmUsageEvent(agent_name=agent_name, run_id=run_id, **asdict(response_charge(response)))
