"""Build pydantic-ai models from `ModelConfig`, one per configuration per process.

Sharing the model object shares its HTTP client, so a team of hundreds of agents keeps one
connection pool and one TLS context per provider setup instead of one per agent. Provider
SDKs are optional extras and are imported only here, when a model is first built; every way
this can fail is a one-line `ConfigError` saying what to do.
"""

from __future__ import annotations

import os
import pkgutil
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from retinue.llm.config import ModelConfig, RuntimeConfig, parse_function_path
from retinue.llm.errors import ConfigError
from retinue.llm.model_overrides import overriding_model
from retinue.validation import shorten, shown

if TYPE_CHECKING:
    from pydantic_ai.models import Model
    from pydantic_ai.settings import ModelSettings

OLLAMA_DEFAULT_URL = "http://localhost:11434/v1"

_EXTRA_FOR_PROVIDER = {
    "openai": "openai",
    "openai-chat": "openai",
    "ollama": "openai",
    "anthropic": "anthropic",
}
_KEY_ENV_FOR_PROVIDER = {
    "openai": "OPENAI_API_KEY",
    "openai-chat": "OPENAI_API_KEY",
    "anthropic": "ANTHROPIC_API_KEY",
}

_lock = threading.Lock()
_models: dict[tuple[str | None, ...], Model] = {}


def get_model(model_cfg: ModelConfig) -> Model:
    """The shared model for this configuration, built on first request."""
    key = model_cfg.model_key()
    with _lock:
        model = _models.get(key)
        if model is None:
            model = build_model(model_cfg)
            _models[key] = model
        return model


def clear_model_cache() -> None:
    """Forget every shared model (tests; after `shutdown_model_loop`)."""
    with _lock:
        _models.clear()


def build_model(model_cfg: ModelConfig) -> Model:
    """A new, unshared model for this configuration; prefer `get_model`."""
    provider = model_cfg.provider
    if provider == "test":
        from pydantic_ai.models.test import TestModel

        return TestModel(model_name=model_cfg.model)
    if provider == "function":
        return _function_model(model_cfg)
    try:
        return _provider_model(model_cfg)
    except ImportError:
        extra = _EXTRA_FOR_PROVIDER[provider]
        raise ConfigError(
            f"provider {provider!r} needs an SDK that is not installed: "
            f"pip install 'retinue[{extra}]'"
        ) from None


def key_env(model_cfg: ModelConfig) -> str | None:
    """The environment variable this config's API key is read from; None when it needs none.

    A self-hosted server (`base_url` without `api_key_env`) may need none: its key is
    optional, so it is not named here.
    """
    if model_cfg.api_key_env is not None:
        return model_cfg.api_key_env
    if model_cfg.base_url is not None:
        return None
    return _KEY_ENV_FOR_PROVIDER.get(model_cfg.provider)


def _api_key(model_cfg: ModelConfig) -> str | None:
    """The key from the configured environment variable; one clear line when it is required."""
    env = model_cfg.api_key_env or _KEY_ENV_FOR_PROVIDER.get(model_cfg.provider)
    if env is None:
        return None
    key = os.environ.get(env)
    if key:
        return key
    if model_cfg.base_url is None or model_cfg.api_key_env is not None:
        raise ConfigError(
            f"provider {model_cfg.provider!r} needs an API key: set the {env} environment variable"
        )
    return None  # a self-hosted OpenAI-compatible server usually needs none


def _provider_model(model_cfg: ModelConfig) -> Model:
    """pydantic-ai's own model for `provider:model`, on a provider built with our settings.

    `infer_model` picks the model class for the provider name (Responses for `openai`, Chat
    Completions for `openai-chat`, ...), `infer_provider_class` the provider class; the
    factory only hands that class the base URL and the key from our configuration.
    """
    from pydantic_ai.models import infer_model
    from pydantic_ai.providers import Provider, infer_provider_class

    def provider_factory(name: str) -> Provider[Any]:
        # the SDK is imported here, first: a missing SDK is reported before a missing key
        provider_class: Callable[..., Provider[Any]] = infer_provider_class(name)
        if name == "ollama":
            base_url = model_cfg.base_url or os.environ.get("OLLAMA_BASE_URL") or OLLAMA_DEFAULT_URL
            env = model_cfg.api_key_env
            return provider_class(base_url=base_url, api_key=os.environ.get(env) if env else None)
        return provider_class(base_url=model_cfg.base_url, api_key=_api_key(model_cfg))

    return infer_model(f"{model_cfg.provider}:{model_cfg.model}", provider_factory=provider_factory)


def import_function(path: str) -> Callable[..., Any]:
    """The callable named by `package.module:function` (dotted attributes allowed)."""
    try:
        module_name, attribute = parse_function_path(path)
    except ValueError as exc:
        raise ConfigError(f"function path: {exc}") from None
    try:
        target: Any = pkgutil.resolve_name(f"{module_name}:{attribute}")
    except ImportError as exc:
        raise ConfigError(
            f"cannot import module {shown(module_name)} for {shown(path)}: {shorten(str(exc))}"
        ) from None
    except AttributeError:
        raise ConfigError(
            f"{shown(path)}: {shown(module_name)} has no attribute {shown(attribute)}"
        ) from None
    if not callable(target):
        raise ConfigError(f"{shown(path)} is not callable (it is a {type(target).__name__})")
    return target  # type: ignore[no-any-return]


def _function_model(model_cfg: ModelConfig) -> Model:
    from pydantic_ai.models.function import FunctionModel

    function = import_function(model_cfg.model)
    if model_cfg.stream_function is None:
        return FunctionModel(function, model_name=model_cfg.model)
    stream = import_function(model_cfg.stream_function)
    return FunctionModel(function, stream_function=stream, model_name=model_cfg.model)


def model_settings(model_cfg: ModelConfig, runtime_cfg: RuntimeConfig) -> ModelSettings:
    """Per-agent request settings: sampling from the model config, limits from the runtime."""
    from pydantic_ai.settings import ModelSettings

    settings = ModelSettings()
    if model_cfg.temperature is not None:
        settings["temperature"] = model_cfg.temperature
    if model_cfg.max_tokens is not None:
        settings["max_tokens"] = model_cfg.max_tokens
    if runtime_cfg.parallel_tool_calls is not None:
        settings["parallel_tool_calls"] = runtime_cfg.parallel_tool_calls
    if model_cfg.provider not in ("test", "function"):
        settings["timeout"] = runtime_cfg.http_timeout
        if runtime_cfg.http_retries is not None:
            settings["max_retries"] = runtime_cfg.http_retries
    if runtime_cfg.request_timeout is not None:
        settings["request_timeout"] = runtime_cfg.request_timeout
    return settings


def resolve_model(
    model_cfg: ModelConfig,
    *,
    agent: str | None = None,
    role: str | None = None,
    team: str | None = None,
) -> Model:
    """The model an agent built now talks to: one handed in from code, else the shared one.

    Asked once per agent, when it is built; see `retinue.llm.model_overrides`.
    """
    override = overriding_model(agent=agent, role=role, team=team)
    return override if override is not None else get_model(model_cfg)
