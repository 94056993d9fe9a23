"""What an agent's model runner is configured with: model, runtime behaviour, compaction.

All three are plain data (a team file can hold them, a store can resume them); nothing here
imports a provider SDK. Provider names are checked when a config is built, function paths are
checked for shape only, and imports happen when the model is built (`retinue.llm.models`).
"""

from __future__ import annotations

import difflib
import re
from typing import Any, Literal, get_args

from pydantic import Field, field_validator, model_validator

from retinue.actors.redaction import redact_address
from retinue.llm._data import PlainData
from retinue.validation import MAX_TIMEOUT_SECONDS, ConfigError, shorten, shown

Provider = Literal["openai", "openai-chat", "anthropic", "ollama", "test", "function"]
PROVIDERS: tuple[str, ...] = get_args(Provider)
OFFLINE_PROVIDERS = frozenset({"test", "function"})
MAX_TEMPERATURE = 2.0

_DOTTED = r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*"
_FUNCTION_PATH = re.compile(rf"^({_DOTTED}):({_DOTTED})$")
# `model@http://host/v1`: the first `@` followed by a URL (a model name or the URL's own
# credentials may hold another `@`).
_AT_URL = re.compile(r"^(?P<model>.+?)@(?P<url>https?://\S+)$")

MODEL_STRING_FORMS = (
    "'provider:model' (openai:gpt-4.1, anthropic:claude-sonnet-4-5, ollama:llama3.2), "
    "'openai-chat:model@http://host:port/v1', 'function:package.module:function' or 'test'"
)
"""What `ModelConfig.from_string` accepts, as its errors name it."""


def parse_function_path(path: str) -> tuple[str, str]:
    """Split `package.module:function` into module and attribute, or raise `ValueError`."""
    match = _FUNCTION_PATH.match(path.strip())
    if match is None:
        raise ValueError(f"expected 'package.module:function', got {shown(path)}")
    return match.group(1), match.group(2)


class ModelConfig(PlainData):
    """Which model an agent talks to, and how.

    `provider`: `openai` (Responses API), `openai-chat` (Chat Completions, also any
    OpenAI-compatible server through `base_url`), `anthropic`, `ollama`, or the offline
    `test` (pydantic-ai's TestModel) and `function` (a FunctionModel over the function named
    by `model="package.module:function"`, with an optional `stream_function` path).
    `temperature` runs from 0 to 2, the widest range a provider accepts (Anthropic's ends
    at 1). `context_length` (tokens) switches automatic compaction on. Agents with equal
    configurations share one model object and so one HTTP connection pool.

    Keep credentials in environment variables (`api_key_env`). One written into `base_url`
    still works, but it never leaves the agent: the config a team publishes and records has
    it replaced by `***` (`retinue.actors.redaction`), and so has this class's repr.
    """

    provider: Provider = "test"
    model: str = "test"
    base_url: str | None = None
    api_key_env: str | None = None
    stream_function: str | None = None
    temperature: float | None = Field(default=None, ge=0, le=MAX_TEMPERATURE)
    max_tokens: int | None = Field(default=None, gt=0)
    context_length: int | None = Field(default=None, gt=0)

    @classmethod
    def from_string(cls, text: str, **fields: Any) -> ModelConfig:
        """The config a model string names; `fields` set the rest (`temperature=0.2`, ...).

        The one parser for team files, `--model` and code. The string is pydantic-ai's model
        id, `provider:model` (split by pydantic-ai's own `parse_model_id`), optionally with
        `@base_url` for an OpenAI-compatible server; `function:package.module:function` names
        a scripted model and `test` pydantic-ai's TestModel. A bad string raises one line
        naming the forms expected, with the closest known model id when there is one.
        """
        try:
            parsed = parse_model_string(text)
        except ValueError as exc:
            raise ConfigError(str(exc)) from None
        return cls.model_validate({**parsed, **fields})

    def as_string(self) -> str:
        """The model string `from_string` reads back into this provider, model and URL."""
        text = "test" if self.provider == "test" and self.model == "test" else self.model_id()
        return f"{text}@{redact_address(self.base_url)}" if self.base_url else text

    def model_id(self) -> str:
        """`provider:model`, the id pydantic-ai knows the model by."""
        return f"{self.provider}:{self.model}"

    @model_validator(mode="before")
    @classmethod
    def _from_model_string(cls, data: Any) -> Any:
        # a field typed ModelConfig takes a model string too: `model_cfg="openai:gpt-4.1"`,
        # and so does `model` without a `provider`: {model="openai-chat:m", base_url=...}
        if isinstance(data, str):
            return parse_model_string(data)
        if (
            isinstance(data, dict)
            and "provider" not in data
            and _names_a_provider(data.get("model"))
        ):
            return {**data, **parse_model_string(data["model"])}
        return data

    @field_validator("provider", mode="before")
    @classmethod
    def _known_provider(cls, value: Any) -> Any:
        if value not in PROVIDERS:
            raise ValueError(
                f"unknown provider {shown(value)}; expected one of: {', '.join(PROVIDERS)}"
            )
        return value

    @model_validator(mode="after")
    def _consistent(self) -> ModelConfig:
        if not self.model.strip():
            raise ValueError("model must not be empty")
        if self.provider == "function":
            try:
                parse_function_path(self.model)
                if self.stream_function is not None:
                    parse_function_path(self.stream_function)
            except ValueError as exc:
                raise ValueError(f"provider 'function' needs a function path: {exc}") from None
        elif self.stream_function is not None:
            raise ValueError("stream_function applies only to provider 'function'")
        if self.base_url is not None and self.provider in OFFLINE_PROVIDERS:
            raise ValueError(f"base_url does not apply to provider {self.provider!r}")
        return self

    def __repr_args__(self) -> Any:
        """The fields, with any credential in `base_url` hidden: a repr ends up in logs."""
        for name, value in super().__repr_args__():
            hidden = name == "base_url" and isinstance(value, str)
            yield name, redact_address(value) if hidden else value

    def model_key(self) -> tuple[str | None, ...]:
        """What identifies the shared model object (sampling settings are per agent)."""
        return (self.provider, self.model, self.base_url, self.api_key_env, self.stream_function)


def parse_model_string(text: str) -> dict[str, str]:
    """`provider`, `model` and maybe `base_url` from a model string, or one-line `ValueError`."""
    from pydantic_ai.models import parse_model_id

    if not isinstance(text, str):
        raise ValueError(f"a model string is text, got {type(text).__name__}")
    stripped = text.strip()
    if stripped == "test":
        return {"provider": "test", "model": "test"}
    fields: dict[str, str] = {}
    match = _AT_URL.match(stripped)
    if match is not None:
        stripped, fields["base_url"] = match.group("model"), match.group("url")
    provider, model = parse_model_id(stripped)
    if not provider or not model or not model.strip() or provider not in PROVIDERS:
        raise ValueError(_bad_model_string(text, provider))
    if provider == "function" and _FUNCTION_PATH.match(model) is None:
        raise ValueError(f"model string {shown(text)}: expected 'function:package.module:function'")
    return {"provider": provider, "model": model.strip(), **fields}


def _names_a_provider(model: Any) -> bool:
    """Whether a `model` value is a model string naming one of our providers."""
    if not isinstance(model, str):
        return False
    provider, _, rest = model.strip().partition(":")
    return model.strip() == "test" or (provider in PROVIDERS and bool(rest))


def _bad_model_string(text: str, provider: str | None) -> str:
    """One line: what was given, the forms expected, and the likely id when one is clear."""
    given = text.strip()
    if provider and provider not in PROVIDERS:
        message = (
            f"model string {shown(text)}: unknown provider {shown(provider)}; "
            f"expected {MODEL_STRING_FORMS}"
        )
        close = difflib.get_close_matches(provider, PROVIDERS, n=1)
        model = given.split(":", 1)[1]
        return (
            f"{message}; did you mean '{close[0]}:{shorten(model)}'?"
            if close and model
            else message
        )
    message = f"model string {shown(text)}: expected {MODEL_STRING_FORMS}"
    family = _provider_of_family(given) if given and provider is None else None
    return f"{message}; did you mean '{family}:{shorten(given)}'?" if family else message


def _provider_of_family(model: str) -> str | None:
    """The provider of ours whose known models share this name's family (`gpt`, `claude`).

    Read from pydantic-ai's list of known model ids, not from a table of our own; of several
    (`openai`, `openai-chat`), the first in `PROVIDERS`.
    """
    from pydantic_ai.models import known_model_names

    family = re.split(r"[-.:/\d]", model, maxsplit=1)[0].casefold()
    if not family:
        return None
    found = []
    for name in known_model_names():
        provider, _, known = name.partition(":")
        head = re.split(r"[-.:/\d]", known, maxsplit=1)[0].casefold()
        if provider in PROVIDERS and head == family and provider not in found:
            found.append(provider)
    return min(found, key=PROVIDERS.index) if found else None  # `openai` before `openai-chat`


EndStrategy = Literal["early", "graceful", "exhaustive"]


class RuntimeConfig(PlainData):
    """How runs behave: retries, tool-call ending, parallel tools, timeouts.

    `end_strategy="exhaustive"` runs every tool call a model emits next to its final output,
    so a message sent by a tool is never silently dropped. Timeouts are in seconds;
    `http_timeout` bounds one HTTP attempt, `request_timeout` one model request with all its
    retries, `run_timeout` a whole run (every run has one). Each is above 0 and at most 30
    days; an infinite timeout is refused (every run and request ends).
    """

    retries: int = Field(default=1, ge=0)
    output_retries: int | None = Field(default=None, ge=0)
    end_strategy: EndStrategy = "exhaustive"
    parallel_tool_calls: bool | None = None
    http_timeout: float = Field(default=120.0, gt=0, le=MAX_TIMEOUT_SECONDS)
    http_retries: int | None = Field(default=None, ge=0)
    request_timeout: float | None = Field(default=None, gt=0, le=MAX_TIMEOUT_SECONDS)
    tool_timeout: float | None = Field(default=None, gt=0, le=MAX_TIMEOUT_SECONDS)
    run_timeout: float = Field(default=600.0, gt=0, le=MAX_TIMEOUT_SECONDS)


CompactionStrategy = Literal["none", "window", "summarize"]

DEFAULT_SUMMARY_INSTRUCTIONS = (
    "Summarise the conversation below for the agent that had it, so it can carry on without "
    "the full text. Keep every open task, decision, name, number and commitment; drop chatter. "
    "Answer with the summary only."
)


class CompactionConfig(PlainData):
    """How the conversation history is shortened.

    `window` keeps the last `keep_last` messages, cut where a user prompt starts; `summarize`
    keeps the same tail and replaces what it drops with a model-written summary; `none`
    never compacts automatically. Automatic compaction is opt-in: it runs only when
    `ModelConfig.context_length` is set, once the estimated context passes
    `trigger_ratio` of it. `compact()` applies the strategy by hand at any time.
    """

    strategy: CompactionStrategy = "window"
    keep_last: int = Field(default=20, ge=1)
    trigger_ratio: float = Field(default=0.8, gt=0, le=1)
    summary_instructions: str = DEFAULT_SUMMARY_INSTRUCTIONS
