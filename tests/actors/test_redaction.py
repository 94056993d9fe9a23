"""Credentials are hidden in what a team publishes, and nothing else changes."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

import pytest
from pydantic import Field, SecretStr
from retinue import AgentConfig, ModelConfig, ToolCard
from retinue.actors import redact_credentials
from retinue.actors.redaction import redact_address, redact_text
from retinue.store import open_store
from retinue.testing import TeamHarness, follow, scripted_card, send_directive


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


KEY = "sk-proj-4fT9xQ2mZ7bW1cR8vK3nL6pY"


@pytest.mark.parametrize(
    ("address", "shown"),
    [
        (f"https://gw.example/v1/{KEY}/chat", "https://gw.example/v1/***/chat"),
        ("https://hooks.example/T0001/B0002/Xk3v9Qp2Lm8Rt4Wz7Yb1Nc5D", "https://hooks.example/T0001/B0002/***"),
        ("https://h/p/3f9a8c2e1b7d4f6a9c0e8b2d5a7f1c3e/x", "https://h/p/***/x"),
        ("https://h/bot1234567890:AAHdqTcvCH1vGWJxfSeofSAs0K5PALD/send", "https://h/***/send"),
        ("https://h/openai/deployments/my-gpt4o-deployment-2024-08-06", None),
        ("https://h/v1beta/models/gemini-1.5-pro-latest:generate", None),
        ("https://h/p/123e4567-e89b-12d3-a456-426614174000/x", None),
        ("https://h/AzureOpenAIDeployment2024/v1", None),
        ("http://u:pw@h/v1/" + KEY + "?api_key=k", "http://u:***@h/v1/***?api_key=***"),
    ],
)  # fmt: skip
def test_a_key_in_an_address_path_is_hidden_and_names_are_not(
    address: str, shown: str | None
) -> None:
    assert redact_address(address) == (shown or address)


def test_only_address_fields_have_their_path_read_for_keys() -> None:
    link = f"see https://git.example/team/repo/commit/{KEY}"
    config = AgentConfig(
        name="@A",
        role="A",
        prompt={"template": link},
        model_cfg=ModelConfig(provider="openai-chat", model="m", base_url=f"https://gw/{KEY}/v1"),
    )

    published = redact_credentials(config)

    assert published.model_cfg.base_url == "https://gw/***/v1"
    assert published.prompt.template == link  # a prompt's link is what the agent is told
    assert KEY not in repr(config.model_cfg) and KEY not in config.model_cfg.as_string()
    assert config.model_cfg.base_url == f"https://gw/{KEY}/v1"  # the original is untouched


def test_a_key_in_a_base_url_path_never_reaches_the_store(tmp_path: Path) -> None:
    team = TeamHarness(store=str(tmp_path / "team.sqlite"))
    card = scripted_card("Lead")
    card.config.model_cfg = ModelConfig(  # type: ignore[attr-defined]
        provider="openai-chat", model="m", base_url=f"https://gw.example/v1/{KEY}"
    )
    lead = team.add(card, model=follow)
    team.say(lead, send_directive("@Human", "response", "hi"))
    team.wait_idle()
    team.shutdown()

    with open_store(tmp_path / "team.sqlite", create=False) as store:
        (info,) = store.list_teams()
        records = list(store.read(info.team_id))
    assert records and not [r.kind for r in records if KEY in r.data]
    assert any("https://gw.example/v1/***" in r.data for r in records)
