"""The trace context a message carries: W3C `traceparent`, `tracestate` and `baggage`.

The plugin writes and reads it with W3C's propagators of its own rather than the process's
global one: the carrier goes from one agent to the next inside retinue, never to a foreign
service, so it needs one fixed format, and a global propagator configured for something else
(B3 headers, Logfire's check for unexpected incoming contexts) has no business with it.
"""

from __future__ import annotations

from opentelemetry import context as otel_context
from opentelemetry.baggage.propagation import W3CBaggagePropagator
from opentelemetry.context import Context
from opentelemetry.propagators.composite import CompositePropagator
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

_W3C = CompositePropagator([TraceContextTextMapPropagator(), W3CBaggagePropagator()])


def inject(context: Context) -> dict[str, str]:
    """The carrier for `context`: what a message sent in it carries as its trace context."""
    carrier: dict[str, str] = {}
    _W3C.inject(carrier, context=context)
    return carrier


def extract(carrier: dict[str, str] | None) -> Context:
    """The context a message's trace context names (an empty one when it has none)."""
    return _W3C.extract(carrier or {}, context=Context())


def current_trace_context() -> dict[str, str]:
    """The caller's current span as a message's trace context.

    Give it to a message that starts a task chain, and the team's trace becomes part of
    yours: `AgentMessage(content=..., trace_context=current_trace_context())` sent inside a
    span of a web request puts the whole chain under that span.
    """
    return inject(otel_context.get_current())
