"""Credentials are hidden in what a team publishes, and nothing else changes."""

from __future__ import annotations

from typing import ClassVar

import pytest
from pydantic import Field, SecretStr
from retinue import AgentConfig, ModelConfig, ToolCard
from retinue.actors import redact_credentials
from retinue.actors.redaction import redact_text


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("http://user:secret@host/v1", "http://user:***@host/v1"),
        ("https://user:@host", "https://user:***@host"),
        ("https://ghp_token@github.com/x.git", "https://***@github.com/x.git"),
        ("postgresql://app:pw@db:5432/team", "postgresql://app:***@db:5432/team"),
        ("https://h/v1?api_key=abc&model=m", "https://h/v1?api_key=***&model=m"),
        ("https://h/v1?model=m&X-Auth-Token=abc#top", "https://h/v1?model=m&X-Auth-Token=***#top"),
        ("see http://a:b@c and http://d:e@f", "see http://a:***@c and http://d:***@f"),
        ("http://host/v1", "http://host/v1"),
        ("https://host/v1?model=m", "https://host/v1?model=m"),
        ("mail @Ada at ada@example.com", "mail @Ada at ada@example.com"),
    ],
)
def test_credentials_in_urls_are_hidden(text: str, shown: str) -> None:
    assert redact_text(text) == shown


class VaultTool(ToolCard):
    """A card whose settings hold a connection string."""

    name: ClassVar[str] = "vault"
    dsn: str = ""
    mirrors: tuple[str, ...] = ()
    headers: dict[str, str] = Field(default_factory=dict)


def test_every_string_of_a_config_is_redacted_and_the_original_is_kept() -> None:
    card = VaultTool(
        dsn="postgresql://app:pw1@db/team",
        mirrors=("https://m:pw2@mirror", "https://plain"),
        headers={"upstream": "https://u:pw3@up"},
    )
    config = AgentConfig(
        name="@A",
        role="A",
        model_cfg=ModelConfig(provider="openai-chat", model="m", base_url="http://u:pw4@h/v1"),
        tools=[card, "team"],
    )

    published = redact_credentials(config)

    dumped = published.model_dump_json()
    assert not any(secret in dumped for secret in ("pw1", "pw2", "pw3", "pw4"))
    assert isinstance(published, AgentConfig) and isinstance(published.tools[0], VaultTool)
    assert published.tools[0].mirrors == ("https://m:***@mirror", "https://plain")
    assert published.tools[1] == "team"
    assert config.model_cfg.base_url == "http://u:pw4@h/v1"  # the original is untouched
    assert card.dsn == "postgresql://app:pw1@db/team"


def test_a_config_with_nothing_to_hide_is_returned_as_it_is() -> None:
    config = AgentConfig(
        name="@A",
        role="A",
        model_cfg=ModelConfig(provider="openai-chat", model="m", base_url="http://h"),
    )
    assert redact_credentials(config) is config


class KeyedTool(ToolCard):
    """A card that declares its token a secret."""

    name: ClassVar[str] = "keyed"
    token: SecretStr | None = None
    env: dict[str, SecretStr] = Field(default_factory=dict)


def test_a_declared_secret_is_hidden_in_the_published_copy_not_in_the_card() -> None:
    card = KeyedTool(token=SecretStr("tok-1"), env={"API_KEY": SecretStr("key-2")})
    config = AgentConfig(name="@A", role="A", tools=[card])

    published = redact_credentials(config)

    shown = published.tools[0]
    assert isinstance(shown, KeyedTool)
    assert shown.token is not None and shown.token.get_secret_value() == "***"
    assert shown.env["API_KEY"].get_secret_value() == "***"
    assert redact_credentials(published) is published  # hidden once, left alone after
    assert card.token is not None and card.token.get_secret_value() == "tok-1"
