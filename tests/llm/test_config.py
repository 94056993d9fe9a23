"""Configuration: plain data, one clear line per mistake, models shared per configuration."""

from __future__ import annotations

import importlib.util
from decimal import Decimal
from typing import Any

import pytest
from pydantic_ai.models.function import FunctionModel
from pydantic_ai.models.test import TestModel
from retinue.llm import (
    AgentUsageLimits,
    CompactionConfig,
    ConfigError,
    ModelConfig,
    PromptTemplate,
    ReactAgent,
    RunnerConfig,
    RuntimeConfig,
    RunUsageLimits,
)
from retinue.llm.models import _api_key, build_model, get_model, import_function

from tests.llm import scripted


def one_line(exc: pytest.ExceptionInfo[BaseException]) -> str:
    message = str(exc.value)
    assert "\n" not in message, message
    return message


# ---------------------------------------------------------------- ModelConfig


def test_default_model_config_works_offline() -> None:
    config = ModelConfig()
    assert config.provider == "test"
    assert isinstance(get_model(config), TestModel)


def test_configs_are_plain_serializable_data() -> None:
    config = ModelConfig(provider="openai-chat", model="m", base_url="http://localhost:8000/v1")
    assert ModelConfig.model_validate_json(config.model_dump_json()) == config
    runtime = RuntimeConfig(end_strategy="early", run_timeout=5)
    assert RuntimeConfig.model_validate(runtime.model_dump()) == runtime
    assert RuntimeConfig().end_strategy == "exhaustive"


def test_unknown_provider_is_one_clear_line() -> None:
    with pytest.raises(ConfigError) as exc:
        ModelConfig(provider="openia", model="gpt-4.1")
    message = one_line(exc)
    assert "unknown provider 'openia'" in message
    assert "openai-chat" in message  # the valid names are listed


def test_config_errors_are_value_errors() -> None:
    with pytest.raises(ValueError, match="unknown provider"):
        ModelConfig(provider="nope")


def test_misspelled_field_is_named() -> None:
    with pytest.raises(ConfigError) as exc:
        ModelConfig(modle="x")  # type: ignore[call-arg]
    assert "modle" in one_line(exc)


def test_function_provider_checks_the_path_shape_at_construction() -> None:
    with pytest.raises(ConfigError) as exc:
        ModelConfig(provider="function", model="not a path")
    assert "package.module:function" in one_line(exc)


def test_base_url_does_not_apply_to_offline_providers() -> None:
    with pytest.raises(ConfigError, match="base_url"):
        ModelConfig(provider="test", base_url="http://x")


# ---------------------------------------------------------------- models


def test_models_are_shared_per_configuration() -> None:
    first = get_model(ModelConfig(model="shared-a"))
    assert get_model(ModelConfig(model="shared-a", temperature=0.3)) is first  # sampling per agent
    assert get_model(ModelConfig(model="shared-b")) is not first


def test_function_provider_builds_a_function_model() -> None:
    sync = ModelConfig(provider="function", model=f"{scripted.__name__}:echo")
    agent = ReactAgent("echoer", RunnerConfig(model_cfg=sync))
    assert isinstance(agent.model, FunctionModel)
    assert agent.run_sync("hello", str) == "echo: hello"

    asynchronous = ModelConfig(provider="function", model=f"{scripted.__name__}:async_echo")
    assert (
        ReactAgent("async", RunnerConfig(model_cfg=asynchronous)).run_sync("hi", str) == "echo: hi"
    )


def test_function_provider_accepts_a_stream_function() -> None:
    config = ModelConfig(
        provider="function",
        model=f"{scripted.__name__}:echo",
        stream_function=f"{scripted.__name__}:stream_echo",
    )
    model = build_model(config)
    assert isinstance(model, FunctionModel)
    assert model.stream_function is scripted.stream_echo


def test_unimportable_function_path_is_one_clear_line() -> None:
    config = ModelConfig(provider="function", model="no_such_package.mod:fn")
    with pytest.raises(ConfigError) as exc:
        get_model(config)
    assert "cannot import module 'no_such_package.mod'" in one_line(exc)


def test_missing_function_is_one_clear_line() -> None:
    with pytest.raises(ConfigError) as exc:
        import_function(f"{scripted.__name__}:no_such_function")
    assert "has no attribute 'no_such_function'" in one_line(exc)


def test_non_callable_function_path_is_one_clear_line() -> None:
    with pytest.raises(ConfigError) as exc:
        import_function(f"{scripted.__name__}:constant")
    assert "is not callable (it is a int)" in one_line(exc)


@pytest.mark.parametrize(("provider", "extra"), [("openai", "openai"), ("anthropic", "anthropic")])
def test_missing_sdk_names_the_extra(provider: str, extra: str) -> None:
    if importlib.util.find_spec(provider) is not None:
        pytest.skip(f"the {provider} SDK is installed here")
    with pytest.raises(ConfigError) as exc:
        build_model(ModelConfig(provider=provider, model="some-model"))
    assert f"pip install 'retinue[{extra}]'" in one_line(exc)


def test_missing_api_key_names_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ConfigError) as exc:
        _api_key(ModelConfig(provider="openai", model="gpt-4.1"))
    assert "set the OPENAI_API_KEY environment variable" in one_line(exc)
    # an OpenAI-compatible server of one's own usually needs no key
    assert _api_key(ModelConfig(provider="openai-chat", model="m", base_url="http://h/v1")) is None
    monkeypatch.setenv("MY_KEY", "secret")
    configured = ModelConfig(provider="anthropic", model="claude", api_key_env="MY_KEY")
    assert _api_key(configured) == "secret"


# ---------------------------------------------------------------- limits


def test_run_limits_become_pydantic_ai_limits() -> None:
    limits = RunUsageLimits(
        run_request_limit=7, tool_calls_limit=3, total_tokens_limit=100, cost_limit_usd=0.5
    )
    converted = limits.to_usage_limits()
    assert converted.request_limit == 7
    assert converted.tool_calls_limit == 3
    assert converted.total_tokens_limit == 100
    assert converted.cost_limit == Decimal("0.5")
    assert limits.to_usage_limits(request_limit=1).request_limit == 1
    # None really means unlimited, not pydantic-ai's own default of 50
    assert RunUsageLimits(run_request_limit=None).to_usage_limits().request_limit is None
    assert RunUsageLimits().run_request_limit == 50


def test_agent_limits_default_to_never_blocking() -> None:
    limits = AgentUsageLimits()
    assert (limits.agent_request_limit, limits.total_tokens_limit, limits.cost_limit_usd) == (
        None,
        None,
        None,
    )


@pytest.mark.parametrize(
    ("build", "field"),
    [
        (lambda: RunUsageLimits(total_tokens_limit=-1), "total_tokens_limit"),
        (lambda: RunUsageLimits(run_request_limit=0), "run_request_limit"),
        (lambda: AgentUsageLimits(agent_request_limit=-5), "agent_request_limit"),
        (lambda: AgentUsageLimits(cost_limit_usd="lots"), "cost_limit_usd"),
        (lambda: RuntimeConfig(run_timeout=0), "run_timeout"),
        (lambda: CompactionConfig(trigger_ratio=1.5), "trigger_ratio"),
    ],
)
def test_malformed_limits_are_one_clear_line(build: object, field: str) -> None:
    with pytest.raises(ConfigError) as exc:
        build()  # type: ignore[operator]
    message = one_line(exc)
    assert field in message
    assert "(got " in message


# ---------------------------------------------------------------- prompt


def test_prompt_template_renders_parameters() -> None:
    template = PromptTemplate(
        template='You are {name}, a {role}. Reply as JSON like {"ok": true}; write {{name}}.',
        params={"name": "@Ada", "role": "Developer"},
    )
    assert template.render() == (
        'You are @Ada, a Developer. Reply as JSON like {"ok": true}; write {name}.'
    )
    assert template.render(role="Tester").startswith("You are @Ada, a Tester.")
    assert PromptTemplate().render() == ""


def test_missing_prompt_parameter_is_one_clear_line() -> None:
    template = PromptTemplate(template="You are {name} in team {team}.", params={"name": "x"})
    with pytest.raises(ConfigError) as exc:
        template.render()
    message = one_line(exc)
    assert "parameter 'team'" in message
    assert "given: name" in message


@pytest.mark.parametrize(
    ("fields", "model_class", "base_url", "key"),
    [
        ({"provider": "openai", "model": "gpt-4.1"}, "OpenAIResponsesModel", None, "sk-env"),
        ({"provider": "openai-chat", "model": "gpt-4o"}, "OpenAIChatModel", None, "sk-env"),
        (
            {"provider": "openai-chat", "model": "local", "base_url": "http://h:8000/v1"},
            "OpenAIChatModel",
            "http://h:8000/v1/",
            "sk-env",
        ),
        (
            {"provider": "anthropic", "model": "claude", "api_key_env": "MY_KEY"},
            "AnthropicModel",
            None,
            "sk-mine",
        ),
        (
            {"provider": "ollama", "model": "llama3:8b"},
            "OllamaModel",
            "http://localhost:11434/v1/",
            None,
        ),
    ],
)
def test_a_real_provider_gets_pydantic_ais_model_with_our_url_and_key(
    monkeypatch: pytest.MonkeyPatch,
    fields: dict[str, str],
    model_class: str,
    base_url: str | None,
    key: str | None,
) -> None:
    sdk = "anthropic" if fields["provider"] == "anthropic" else "openai"
    pytest.importorskip(sdk, reason=f"the {sdk} SDK is not installed here")
    for variable in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
        monkeypatch.setenv(variable, "sk-env")
    monkeypatch.setenv("MY_KEY", "sk-mine")
    monkeypatch.delenv("OLLAMA_BASE_URL", raising=False)

    model: Any = build_model(ModelConfig(**fields))

    assert type(model).__name__ == model_class
    assert model.model_name == fields["model"]  # a name with a colon is kept whole
    if base_url is not None:
        assert str(model.client.base_url) == base_url
    if key is not None:
        assert model.client.api_key == key


# ---------------------------------------------------------------- model strings


@pytest.mark.parametrize(
    ("text", "provider", "model", "base_url"),
    [
        ("openai:gpt-4.1", "openai", "gpt-4.1", None),
        ("anthropic:claude-sonnet-4-5", "anthropic", "claude-sonnet-4-5", None),
        ("ollama:llama3.2", "ollama", "llama3.2", None),
        (
            "openai-chat:my-model@http://127.0.0.1:8000/v1",
            "openai-chat",
            "my-model",
            "http://127.0.0.1:8000/v1",
        ),
        ("openai-chat:m@https://user:pw@gpu/v1", "openai-chat", "m", "https://user:pw@gpu/v1"),
        ("function:tests.llm.scripted:echo", "function", "tests.llm.scripted:echo", None),
        ("test", "test", "test", None),
        ("  test  ", "test", "test", None),
    ],
)
def test_model_strings_parse(text: str, provider: str, model: str, base_url: str | None) -> None:
    config = ModelConfig.from_string(text)
    assert (config.provider, config.model, config.base_url) == (provider, model, base_url)
    assert ModelConfig.from_string(config.as_string().replace("***", "pw")) == config


def test_a_model_string_takes_the_other_fields() -> None:
    config = ModelConfig.from_string("openai:gpt-4.1", temperature=0.2, api_key_env="MY_KEY")
    assert config == ModelConfig(
        provider="openai", model="gpt-4.1", temperature=0.2, api_key_env="MY_KEY"
    )


def test_a_field_typed_model_config_takes_a_model_string() -> None:
    from retinue.agent.config import AgentConfig

    config = AgentConfig(role="Dev", model_cfg="anthropic:claude-sonnet-4-5")
    assert config.model_cfg == ModelConfig(provider="anthropic", model="claude-sonnet-4-5")
    assert ModelConfig.model_validate("ollama:llama3.2").provider == "ollama"


@pytest.mark.parametrize(
    ("text", "hint"),
    [
        ("gpt-4.1", "did you mean 'openai:gpt-4.1'?"),
        ("claude-sonnet-4-5", "did you mean 'anthropic:claude-sonnet-4-5'?"),
        ("opneai:gpt-4.1", "unknown provider 'opneai'; expected"),
        ("opneai:gpt-4.1", "did you mean 'openai:gpt-4.1'?"),
        ("openai:", "expected 'provider:model'"),
        ("", "expected 'provider:model'"),
        ("function:not a path", "expected 'function:package.module:function'"),
    ],
)
def test_a_bad_model_string_is_one_line_naming_the_forms(text: str, hint: str) -> None:
    with pytest.raises(ConfigError) as exc:
        ModelConfig.from_string(text)
    message = one_line(exc)
    assert hint in message
    assert message.startswith(f"model string {text!r}")


def test_a_model_string_builds_the_model_pydantic_ai_infers() -> None:
    assert isinstance(build_model(ModelConfig.from_string("test")), TestModel)
    function_model = build_model(ModelConfig.from_string("function:tests.llm.scripted:echo"))
    assert isinstance(function_model, FunctionModel)
