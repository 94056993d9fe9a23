"""Configuration mistakes are refused when the object is built, as one line naming the field."""

from __future__ import annotations

import math
import pickle
from collections.abc import Callable
from typing import Any

import pytest
from retinue import (
    ActorClassError,
    ActorSystem,
    AgentCard,
    AgentConfig,
    AgentUsageLimits,
    BaseAgent,
    BaseConfig,
    ConfigError,
    ModelConfig,
    RuntimeConfig,
    RunUsageLimits,
)


def one_line(exc: pytest.ExceptionInfo[BaseException]) -> str:
    message = str(exc.value)
    assert "\n" not in message, message
    return message


def agent_config(**fields: Any) -> AgentConfig:
    return AgentConfig(name="@Dev", role="Developer", **fields)


# -- the three reports that used to be pydantic's multi-line ones ----------------------------


def test_an_unknown_card_field_is_one_line() -> None:
    with pytest.raises(ConfigError) as exc:
        AgentCard(agent_class=BaseAgent, config=agent_config(), colour="red")  # type: ignore[call-arg]
    assert one_line(exc) == "AgentCard: colour: unknown field"


def test_a_misspelt_config_field_is_one_line_with_a_suggestion() -> None:
    with pytest.raises(ConfigError) as exc:
        AgentConfig(modle_cfg=ModelConfig())  # type: ignore[call-arg]
    assert one_line(exc) == "AgentConfig: modle_cfg: unknown field; did you mean 'model_cfg'?"


def test_a_nested_bad_provider_is_one_line_with_its_path() -> None:
    with pytest.raises(ConfigError) as exc:
        AgentConfig(model_cfg={"provider": "opneai"})
    message = one_line(exc)
    assert message.startswith("AgentConfig: model_cfg.provider: unknown provider 'opneai'")

    with pytest.raises(ConfigError) as exc:
        AgentCard(agent_class=BaseAgent, config={"model_cfg": {"provider": "opneai"}})
    assert one_line(exc).startswith("AgentCard: config.model_cfg.provider: unknown provider")


def test_several_problems_are_one_line_each() -> None:
    with pytest.raises(ConfigError) as exc:
        AgentConfig(nme="@A", runtime_cfg={"retries": -1})  # type: ignore[call-arg]
    lines = str(exc.value).splitlines()
    assert len(lines) == 2
    assert all(line.startswith("AgentConfig: ") for line in lines)
    assert {p.path for p in exc.value.problems} == {("nme",), ("runtime_cfg", "retries")}


def test_a_config_error_is_a_value_error_and_survives_pickling() -> None:
    from retinue.validation import ConfigProblem

    with pytest.raises(ValueError) as exc:
        BaseConfig(nmae="@A")  # type: ignore[call-arg]
    error = exc.value
    assert isinstance(error, ConfigError)
    copy = pickle.loads(pickle.dumps(error))
    assert str(copy) == str(error) and copy.problems == (
        ConfigProblem(("nmae",), error.problems[0].message),
    )


def test_validating_data_reports_the_same_way() -> None:
    with pytest.raises(ConfigError) as exc:
        AgentConfig.model_validate({"model_cfg": {"temperature": "hot"}})
    assert one_line(exc).startswith("AgentConfig: model_cfg.temperature: ")
    with pytest.raises(ConfigError) as exc:
        AgentCard.model_validate_json('{"agent_class": "retinue.BaseAgent", "config": {"x": 1}}')
    assert one_line(exc) == "AgentCard: config.x: unknown field"


# -- values accepted today that can never work ----------------------------------------------


@pytest.mark.parametrize(
    ("agent_class", "expected"),
    [
        (int, "builtins.int is not a retinue Actor class"),
        ("retinue.NoSuchAgent", "cannot import 'retinue.NoSuchAgent'"),
        ("no_such_package.Agent", "cannot import 'no_such_package.Agent'"),
    ],
)
def test_an_agent_class_that_is_no_actor_is_refused_at_build(
    agent_class: Any, expected: str
) -> None:
    with pytest.raises(ConfigError) as exc:
        AgentCard(agent_class=agent_class, config=agent_config())
    message = one_line(exc)
    assert message.startswith("AgentCard: agent_class: ")
    assert expected in message


def test_an_agent_class_path_is_imported_when_the_card_is_built() -> None:
    card = AgentCard(agent_class="retinue.BaseAgent", config=agent_config())
    assert card.agent_class is BaseAgent
    assert card.get_agent_class() is BaseAgent


def test_a_config_of_the_wrong_class_is_refused() -> None:
    with pytest.raises(ConfigError) as exc:
        AgentCard(agent_class=BaseAgent, config=BaseConfig(name="@Dev", role="Developer"))
    assert "BaseAgent is configured with AgentConfig, not BaseConfig" in one_line(exc)


@pytest.mark.parametrize(
    ("build", "field"),
    [
        (lambda: RuntimeConfig(run_timeout=math.inf), "run_timeout"),
        (lambda: RuntimeConfig(run_timeout=math.nan), "run_timeout"),
        (lambda: RuntimeConfig(http_timeout=1e12), "http_timeout"),
        (lambda: RuntimeConfig(request_timeout=math.inf), "request_timeout"),
        (lambda: RuntimeConfig(tool_timeout=-1), "tool_timeout"),
        (lambda: ModelConfig(temperature=2.1), "temperature"),
        (lambda: ModelConfig(temperature=math.inf), "temperature"),
        (lambda: RunUsageLimits(total_tokens_limit=0), "total_tokens_limit"),
        (lambda: RunUsageLimits(input_tokens_limit=0), "input_tokens_limit"),
        (lambda: RunUsageLimits(cost_limit_usd=0), "cost_limit_usd"),
        (lambda: AgentUsageLimits(total_tokens_limit=0), "total_tokens_limit"),
        (lambda: AgentUsageLimits(agent_request_limit=0), "agent_request_limit"),
        (lambda: AgentUsageLimits(cost_limit_usd=math.inf), "cost_limit_usd"),
    ],
)
def test_values_that_would_fail_every_run_are_refused(build: Callable[[], Any], field: str) -> None:
    with pytest.raises(ConfigError) as exc:
        build()
    assert f": {field}: " in one_line(exc)


def test_the_boundaries_that_work_are_kept() -> None:
    assert ModelConfig(temperature=2).temperature == 2
    assert ModelConfig(temperature=0).temperature == 0
    assert RuntimeConfig(run_timeout=30 * 24 * 3600).run_timeout == 30 * 24 * 3600
    assert RunUsageLimits(tool_calls_limit=0).tool_calls_limit == 0  # no tools: a real choice
    assert RunUsageLimits(total_tokens_limit=1).total_tokens_limit == 1


@pytest.mark.parametrize("timeout", [0, -1, math.inf, math.nan, 1e12, "30", True])
def test_an_ask_timeout_that_would_fail_every_ask_is_refused(timeout: Any) -> None:
    with pytest.raises(ConfigError) as exc:
        ActorSystem(ask_timeout=timeout)
    assert one_line(exc).startswith("ActorSystem: ask_timeout: must be a number of seconds")


def test_a_sane_ask_timeout_is_kept() -> None:
    system = ActorSystem(ask_timeout=2)
    try:
        assert system.ask_timeout == 2.0
    finally:
        system.shutdown()


def test_actor_class_errors_stay_value_errors() -> None:
    assert issubclass(ActorClassError, ValueError)
    assert issubclass(ConfigError, ValueError)
