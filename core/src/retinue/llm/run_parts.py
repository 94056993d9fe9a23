"""The pieces a run is made of: its system block, its state, its outcome, its report.

Kept apart from `ReactAgent` so that module holds the runner's control flow only.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from pydantic_ai import CancellationToken, RunContext
from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.messages import ModelMessage, ModelResponse, UserContent
from pydantic_ai.tools import ToolDefinition

from retinue.actors.address import new_id
from retinue.llm.errors import ConfigError, RunInterruptedError, RunUsageLimitError
from retinue.llm.events import LlmUsageEvent
from retinue.llm.pricing import price_response
from retinue.team.budget import Charge

SystemPrompt = str | Callable[[], str]
"""A piece of the system block: text, or a function returning it (called once)."""

UserPrompt = str | Sequence[UserContent]
"""What a run is asked: text, or pydantic-ai's parts (text, images, documents)."""

RUN_TIMEOUT_GRACE = 10.0
"""Extra seconds the caller waits past pydantic-ai's own run timeout before giving up."""

RunKind = Literal["run", "conclusion"]


def new_run_id() -> str:
    """A fresh run id."""
    return new_id()


def render_system_block(prompts: Sequence[SystemPrompt]) -> str:
    """The frozen system block: every piece rendered once, blank ones left out.

    It is sent unchanged with every request, so the provider's prompt cache keeps its prefix;
    anything volatile belongs in a context-update block instead.
    """
    pieces: list[str] = []
    for prompt in prompts:
        text = prompt() if callable(prompt) else prompt
        if not isinstance(text, str):
            raise ConfigError(f"a system prompt must be text, got {type(text).__name__}")
        if text.strip():
            pieces.append(text.strip())
    return "\n\n".join(pieces)


@dataclass
class RunState:
    """What the runner knows about the run in flight; shared with the loop thread."""

    run_id: str
    kind: RunKind
    token: CancellationToken = field(default_factory=CancellationToken)
    #: Set when the run's future is done or the run is interrupted; the caller waits on it.
    wake: threading.Event = field(default_factory=threading.Event)
    interrupted: bool = False
    compacted: bool = False
    dropped: list[ModelMessage] = field(default_factory=list)
    output_tools: set[str] = field(default_factory=set)
    messages: list[ModelMessage] | None = None
    #: What the runner's owner notes about this run (`RunHooks`), by the owner's key.
    notes: dict[str, Any] = field(default_factory=dict)
    #: The team's remaining requests when they cap this run more tightly than its own tier.
    team_request_cap: int | None = None


@dataclass
class Outcome:
    messages: list[ModelMessage]
    output: Any = None
    error: BaseException | None = None


@dataclass
class WithoutFunctionTools(AbstractCapability[Any]):
    """Offers the model no function tool at all (a conclusion answers with what it has)."""

    async def prepare_tools(
        self, ctx: RunContext[Any], tool_defs: list[ToolDefinition]
    ) -> list[ToolDefinition]:
        return []


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


def status_of(
    error: BaseException | None,
) -> Literal["completed", "interrupted", "usage_limit", "timeout", "failed"]:
    if error is None:
        return "completed"
    if isinstance(error, RunInterruptedError):
        return "interrupted"
    if isinstance(error, RunUsageLimitError):
        return "usage_limit"
    if isinstance(error, TimeoutError):
        return "timeout"
    return "failed"
