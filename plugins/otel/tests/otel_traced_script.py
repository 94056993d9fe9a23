"""The quick-start team run as a script with the installed plugins, configured by `OTEL_*`.

The otel tests run it in a fresh interpreter with the variables set, as a user would, so the
entry point, the provider built from the environment and its flush at exit are all real.
With `--app-provider` the script first sets a global tracer provider of its own, printing to
the console, as `logfire.configure()` or any application set up for OpenTelemetry does.
"""

from __future__ import annotations

import sys

from otel_hiring import hiring_plugins
from otel_quickstart import REQUEST, start_quickstart
from retinue import get_plugin_manager
from retinue.testing import TeamHarness


def set_app_provider() -> None:
    from opentelemetry import trace
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import ConsoleSpanExporter, SimpleSpanProcessor

    provider = TracerProvider(resource=Resource({"service.name": "the-app"}))
    provider.add_span_processor(SimpleSpanProcessor(ConsoleSpanExporter()))
    trace.set_tracer_provider(provider)


def main() -> None:
    if "--app-provider" in sys.argv:
        set_app_provider()
    team = TeamHarness(plugin_manager=get_plugin_manager(plugins=hiring_plugins()))
    try:
        manager = start_quickstart(team)
        team.say(manager, REQUEST)
        team.wait_idle()
    finally:
        team.shutdown()
    print("transcript:", [to for _, to, *_ in team.transcript()])


if __name__ == "__main__":
    main()
