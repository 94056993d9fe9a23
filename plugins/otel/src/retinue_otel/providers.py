"""Where spans go: the application's tracer provider, or one built from the `OTEL_*` variables.

The plugin is a library, so an application that configured OpenTelemetry itself (Logfire's
`logfire.configure()`, `opentelemetry-instrument`, its own SDK set up as the global provider)
gets retinue's spans in its own pipeline, and the plugin builds nothing. Otherwise the plugin
exports only when the environment asks it to, with the standard variables:

- `OTEL_TRACES_EXPORTER`: `otlp`, `console` (JSON on stderr) or `none` (a comma-separated
  list); unset, `otlp` when an OTLP endpoint is set (`OTEL_EXPORTER_OTLP_ENDPOINT` or
  `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`), else nothing: with no destination, no spans are made.
- the OTLP exporter's own variables (endpoint, headers, timeout, compression, protocol:
  `http/protobuf` by default; `grpc` needs `opentelemetry-exporter-otlp-proto-grpc`);
- `OTEL_SERVICE_NAME`, `OTEL_RESOURCE_ATTRIBUTES` (the service is `retinue` unless named);
- `OTEL_TRACES_SAMPLER`, `OTEL_TRACES_SAMPLER_ARG`; `OTEL_BSP_*` for the batch processor;
- `OTEL_SDK_DISABLED=true`: no spans at all, whoever configured what.

That provider is built once per process, when the first agent that would be traced starts,
and flushed when the process exits.
"""

from __future__ import annotations

import importlib
import os
import sys
import threading
from collections.abc import Mapping
from typing import TYPE_CHECKING

from opentelemetry import trace

if TYPE_CHECKING:
    from opentelemetry.sdk.trace import TracerProvider as SdkTracerProvider
    from opentelemetry.sdk.trace.export import SpanExporter

KNOWN_EXPORTERS = ("otlp", "console", "none")
DEFAULT_SERVICE_NAME = "retinue"
_ENDPOINTS = ("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_ENDPOINT")


class TracingConfigError(ValueError):
    """An `OTEL_*` variable asks for something the plugin cannot do; the message says what."""


def sdk_disabled(environ: Mapping[str, str] = os.environ) -> bool:
    """`OTEL_SDK_DISABLED=true`: OpenTelemetry is switched off for the process."""
    return environ.get("OTEL_SDK_DISABLED", "").strip().lower() == "true"


def application_provider() -> trace.TracerProvider | None:
    """The global tracer provider, if the application set one (None: still the default)."""
    provider = trace.get_tracer_provider()
    if isinstance(provider, trace.ProxyTracerProvider | trace.NoOpTracerProvider):
        return None
    return provider


def exporter_names(environ: Mapping[str, str] = os.environ) -> list[str]:
    """The exporters the environment asks for, checked (empty: export nothing)."""
    raw = environ.get("OTEL_TRACES_EXPORTER", "").strip()
    if not raw:
        return ["otlp"] if any(environ.get(name, "").strip() for name in _ENDPOINTS) else []
    names = [name.strip().lower() for name in raw.split(",") if name.strip()]
    unknown = [name for name in names if name not in KNOWN_EXPORTERS]
    if unknown:
        raise TracingConfigError(
            f"OTEL_TRACES_EXPORTER={raw!r}: retinue-otel exports with "
            f"{', '.join(KNOWN_EXPORTERS)}; not {', '.join(unknown)}"
        )
    return [name for name in names if name != "none"]


def provider_from_env(environ: Mapping[str, str] = os.environ) -> SdkTracerProvider | None:
    """A new SDK tracer provider exporting where `environ` says; None when it says nowhere.

    The resource, the sampler and the exporters' own settings are read by the SDK from the
    process's environment (`os.environ`), as OpenTelemetry does everywhere.
    """
    if sdk_disabled(environ):
        return None
    names = exporter_names(environ)
    if not names:
        return None
    from opentelemetry.sdk.resources import SERVICE_NAME, Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor, SimpleSpanProcessor

    resource = Resource.create()
    if str(resource.attributes.get(SERVICE_NAME, "")).startswith("unknown_service"):
        resource = resource.merge(Resource({SERVICE_NAME: DEFAULT_SERVICE_NAME}))
    provider = TracerProvider(resource=resource)
    for name in names:
        if name == "console":  # on stderr: a program's stdout is its output (`retinue run -m`)
            from opentelemetry.sdk.trace.export import ConsoleSpanExporter

            console = ConsoleSpanExporter(out=sys.stderr)
            provider.add_span_processor(SimpleSpanProcessor(console))
        else:
            from retinue_otel.outage import OutageLoggedExporter

            exporter = OutageLoggedExporter(_otlp_exporter(environ), _endpoint(environ))
            provider.add_span_processor(BatchSpanProcessor(exporter))
    return provider


def _endpoint(environ: Mapping[str, str]) -> str:
    """Where OTLP spans go, for log lines: the endpoint the environment names, if any."""
    for name in _ENDPOINTS:
        if environ.get(name, "").strip():
            return environ[name].strip()
    return "the default OTLP endpoint"


def _otlp_exporter(environ: Mapping[str, str]) -> SpanExporter:
    protocol = (
        environ.get("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")
        or environ.get("OTEL_EXPORTER_OTLP_PROTOCOL")
        or "http/protobuf"
    ).strip()
    if protocol == "http/protobuf":
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

        return OTLPSpanExporter()
    if protocol == "grpc":  # an optional package: looked up, not imported by name
        try:
            grpc = importlib.import_module("opentelemetry.exporter.otlp.proto.grpc.trace_exporter")
        except ImportError:
            raise TracingConfigError(
                "OTLP over grpc needs `pip install opentelemetry-exporter-otlp-proto-grpc` "
                "(or set OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf)"
            ) from None
        exporter: SpanExporter = grpc.OTLPSpanExporter()
        return exporter
    raise TracingConfigError(
        f"OTEL_EXPORTER_OTLP_PROTOCOL={protocol!r}: retinue-otel exports OTLP over "
        "http/protobuf or grpc"
    )


class _FromEnv:
    """The process's provider built from `os.environ`, made once, on first need."""

    lock = threading.Lock()
    built = False
    provider: SdkTracerProvider | None = None


def env_provider() -> SdkTracerProvider | None:
    """The provider `provider_from_env()` built for this process, building it the first time."""
    with _FromEnv.lock:
        if not _FromEnv.built:
            _FromEnv.provider = provider_from_env()
            _FromEnv.built = True
        return _FromEnv.provider


def default_provider() -> trace.TracerProvider | None:
    """Where spans go when the plugin was given no provider: the application's, else the
    environment's, else nowhere (None: nothing is traced and nothing costs)."""
    if sdk_disabled():
        return None
    return application_provider() or env_provider()
