"""`Tracing`: what the plugin gives each agent, with its settings.

The installed plugin (the `otel` entry point) uses one `Tracing()` per process, whose spans
go wherever `default_provider()` says. An application or a test that wants its own settings
registers a `Tracing(...)` object of its own instead:

    pm = get_plugin_manager(blocked=["otel"], plugins=[Tracing(tracer_provider=provider)])
    system = ActorSystem(plugin_manager=pm)

Each agent gets two things, and only when its spans would go somewhere: a turn observer
(`TurnTracer`) and pydantic-ai's own `Instrumentation` capability on the same provider, so the
run, model-request and tool spans nest under the turn. An agent that would not be traced
(no provider, or its role's tracing card says `enabled = false`) gets neither, and its turns
cost what they cost without the plugin.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from retinue import AgentConfig, hookimpl

from retinue_otel.card import TracingTool, tracing_card

if TYPE_CHECKING:
    from opentelemetry.trace import TracerProvider
    from pydantic_ai.capabilities import AbstractCapability
    from pydantic_ai.models.instrumented import InstrumentationSettings

    from retinue_otel.tracer import TurnTracer

CONTENT_ENV = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"
"""The GenAI instrumentations' switch for recording prompts and answers (`true`)."""
SCOPE = "retinue_otel"
"""The instrumentation scope retinue's own spans are made under."""


class Tracing:
    """Traces the turns of every agent of a system, and switches pydantic-ai's spans on.

    `tracer_provider`: where spans go (None: the application's global provider, else one
    built from the `OTEL_*` variables, else nowhere). `include_content`: whether spans carry
    message texts, prompts, answers and tool arguments (None: `true` in
    `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT`, else off); a role's tracing card
    overrides both for its agents. `aggregated_usage`: name a turn's summed usage
    `gen_ai.aggregated_usage.*` (pydantic-ai's choice for its run spans) rather than
    `gen_ai.usage.*`. `instrument_pydantic_ai`: whether pydantic-ai's run, model-request and
    tool spans are made too (most of what tracing costs; see docs/tracing.md).
    """

    def __init__(
        self,
        *,
        tracer_provider: TracerProvider | None = None,
        include_content: bool | None = None,
        aggregated_usage: bool = True,
        instrument_pydantic_ai: bool = True,
    ) -> None:
        self.tracer_provider = tracer_provider
        self.include_content = include_content
        self.aggregated_usage = aggregated_usage
        self.instrument_pydantic_ai = instrument_pydantic_ai
        self._instrumentation: dict[
            tuple[int, bool], tuple[TracerProvider, InstrumentationSettings]
        ] = {}

    # ------------------------------------------------------------------ hooks

    @hookimpl
    def retinue_tool_cards(self) -> Sequence[type[TracingTool]]:
        """The tracing card: a role's settings (not a default card)."""
        return [TracingTool]

    @hookimpl
    def retinue_capabilities(self, config: AgentConfig) -> Sequence[AbstractCapability[Any]]:
        """pydantic-ai's instrumentation, on this plugin's provider, for a traced agent."""
        traced = self._settings_for(config) if self.instrument_pydantic_ai else None
        if traced is None:
            return []
        provider, include_content = traced
        from pydantic_ai.capabilities import Instrumentation

        return [Instrumentation(settings=self._instrumentation_settings(provider, include_content))]

    @hookimpl
    def retinue_turn_observers(self, config: AgentConfig) -> Sequence[TurnTracer]:
        """A `TurnTracer` for a traced agent; nothing for the others."""
        traced = self._settings_for(config)
        if traced is None:
            return []
        provider, include_content = traced
        from retinue_otel import __version__
        from retinue_otel.tracer import TurnTracer

        tracer = provider.get_tracer(SCOPE, __version__)
        return [
            TurnTracer(
                tracer,
                config,
                include_content=include_content,
                aggregated_usage=self.aggregated_usage,
            )
        ]

    # ------------------------------------------------------------------ settings

    def provider(self) -> TracerProvider | None:
        """Where this plugin's spans go now; None: nowhere, so nothing is traced."""
        if self.tracer_provider is not None:
            return self.tracer_provider
        from retinue_otel.providers import default_provider

        return default_provider()

    def _settings_for(self, config: AgentConfig) -> tuple[TracerProvider, bool] | None:
        """The provider and the content switch for an agent, or None: not traced."""
        card = tracing_card(config.tools)
        if card is not None and not card.enabled:
            return None
        provider = self.provider()
        if provider is None:
            return None
        include = card.include_content if card is not None else None
        if include is None:
            include = self.include_content
        if include is None:
            include = os.environ.get(CONTENT_ENV, "").strip().lower() == "true"
        return provider, include

    def _instrumentation_settings(
        self, provider: TracerProvider, include_content: bool
    ) -> InstrumentationSettings:
        """Shared by every agent with the same provider and content switch (they are costly
        to make: each makes a tracer and its meters)."""
        key = (id(provider), include_content)
        made = self._instrumentation.get(key)
        if made is not None and made[0] is provider:
            return made[1]
        from pydantic_ai.models.instrumented import InstrumentationSettings

        settings = InstrumentationSettings(
            tracer_provider=provider,
            include_content=include_content,
            include_binary_content=include_content,
        )
        self._instrumentation[key] = (provider, settings)
        return settings
