"""Where spans go and what they hold: the `OTEL_*` variables, the plugin's and a role's settings."""

from __future__ import annotations

import importlib.metadata
import importlib.util
from typing import Any

import pytest
from opentelemetry.sdk.trace.sampling import ALWAYS_OFF
from otel_helpers import Spans, traced_team
from otel_quickstart import REQUEST, start_quickstart
from retinue import AgentConfig, ModelConfig, describe_plugins, get_plugin_manager
from retinue.teamfile import TeamFileError, loads_team_file
from retinue_otel import Tracing, TracingConfigError, TracingTool, provider_from_env, providers
from retinue_otel.providers import exporter_names


@pytest.fixture(autouse=True)
def no_otel_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    """What the SDK reads from the process's environment, cleared for each test."""
    for name in ("OTEL_SERVICE_NAME", "OTEL_RESOURCE_ATTRIBUTES", "OTEL_TRACES_SAMPLER"):
        monkeypatch.delenv(name, raising=False)


def trace_quickstart(spans: Spans, tools: dict[str, list[Any]]) -> None:
    """The quick-start request, run once in a traced team whose roles carry `tools`."""
    team = traced_team(spans)
    try:
        manager = start_quickstart(team, tools)
        team.say(manager, REQUEST)
        team.wait_idle()
    finally:
        assert team.shutdown(timeout=10)


def test_with_no_destination_the_environment_builds_nothing() -> None:
    assert exporter_names({}) == []
    assert provider_from_env({}) is None
    assert provider_from_env({"OTEL_TRACES_EXPORTER": "none"}) is None
    endpoint = {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"}
    assert provider_from_env({**endpoint, "OTEL_SDK_DISABLED": "true"}) is None


def test_an_endpoint_alone_means_otlp_and_the_exporters_can_be_listed() -> None:
    assert exporter_names({"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://127.0.0.1:4318"}) == [
        "otlp"
    ]
    assert exporter_names({"OTEL_TRACES_EXPORTER": "console, otlp"}) == ["console", "otlp"]


def test_an_exporter_the_plugin_lacks_is_one_error_naming_it() -> None:
    with pytest.raises(TracingConfigError, match=r"'zipkin'.*otlp, console, none; not zipkin"):
        provider_from_env({"OTEL_TRACES_EXPORTER": "zipkin"})


def test_otlp_over_grpc_without_its_exporter_says_what_to_install() -> None:
    if importlib.util.find_spec("opentelemetry.exporter.otlp.proto.grpc") is not None:
        pytest.fail("this environment has the grpc exporter; the test needs it absent")
    env = {"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}
    with pytest.raises(TracingConfigError, match="opentelemetry-exporter-otlp-proto-grpc"):
        provider_from_env(env)


def test_the_service_is_retinue_unless_the_environment_names_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    console = {"OTEL_TRACES_EXPORTER": "console"}
    unnamed = provider_from_env(console)
    assert unnamed is not None and unnamed.resource.attributes["service.name"] == "retinue"
    monkeypatch.setenv("OTEL_SERVICE_NAME", "sprint-team")
    named = provider_from_env(console)
    assert named is not None and named.resource.attributes["service.name"] == "sprint-team"


def test_the_sampler_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OTEL_TRACES_SAMPLER", "always_off")
    provider = provider_from_env({"OTEL_TRACES_EXPORTER": "console"})
    assert provider is not None and provider.sampler is ALWAYS_OFF


def test_with_nowhere_to_send_spans_an_agent_gets_neither_observer_nor_instrumentation(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(providers, "default_provider", lambda: None)
    config = AgentConfig(name="@A", role="A", model_cfg=ModelConfig(provider="test"))
    tracing = Tracing()
    assert tracing.retinue_turn_observers(config) == []
    assert tracing.retinue_capabilities(config) == []


def test_a_role_whose_card_says_so_is_not_traced_and_the_trace_goes_around_it(
    spans: Spans,
) -> None:
    trace_quickstart(spans, {"Developer": [TracingTool(enabled=False)]})

    (root,) = spans.roots()
    assert spans.tree(root, prefix="agent turn") == [
        "request from @Human",
        [["agent turn @Manager", [["agent turn @Manager", []]]]],
    ]
    assert not spans.named("invoke_agent @Developer")


def test_a_role_whose_card_says_so_records_content_and_the_others_do_not(spans: Spans) -> None:
    trace_quickstart(spans, {"Manager": [TracingTool(include_content=True)]})

    first, _ = spans.named("agent turn @Manager")
    (developer,) = spans.named("agent turn @Developer")
    assert (first.attributes or {})["retinue.message.content"] == REQUEST
    assert "retinue.message.content" not in (developer.attributes or {})


TEAM_FILE = """
[team]
entry = "Manager"

[roles.Manager]
model = "test"
tools = [{ card = "tracing", include_content = true }]

[roles.Developer]
model = "test"
tools = [{ card = "tracing", enabled = "sometimes" }]
"""


def test_a_team_file_turns_tracing_per_role_and_a_wrong_setting_is_named(spans: Spans) -> None:
    pm = get_plugin_manager(autoload=False, plugins=[Tracing(tracer_provider=spans.provider)])
    with pytest.raises(TeamFileError) as failure:
        loads_team_file(TEAM_FILE, source="team.toml", plugin_manager=pm)
    (problem,) = failure.value.problems
    assert "roles.Developer.tools[0].enabled" in problem

    spec = loads_team_file(
        TEAM_FILE.replace('enabled = "sometimes"', "enabled = false"), plugin_manager=pm
    )
    manager_tools = spec.roles["Manager"].config.tools
    assert manager_tools == [TracingTool(include_content=True)]


def test_the_installed_plugin_is_announced_with_its_card() -> None:
    (entry_point,) = [
        ep for ep in importlib.metadata.entry_points(group="retinue") if ep.name == "otel"
    ]
    assert entry_point.value == "retinue_otel.hooks"
    (info,) = [i for i in describe_plugins(get_plugin_manager()) if i.name == "otel"]
    assert info.distribution == "retinue-otel"
    assert info.cards == ["tracing"]
    assert info.hooks == ["retinue_capabilities", "retinue_tool_cards", "retinue_turn_observers"]
