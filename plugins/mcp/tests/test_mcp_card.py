"""The card as data: checked settings, equal after a round trip, secrets never published."""

from __future__ import annotations

import sys

import pytest
from mcp_helpers import role, stdio_card
from pydantic import SecretStr, ValidationError
from retinue import AgentConfig, DuplicateToolCardError, StartMessage
from retinue.plugins import collect_card_classes
from retinue.testing import TeamHarness
from retinue_mcp import HttpConnection, McpTool, StdioConnection

SECRETS = ("env-secret-1", "token-secret-2", "header-secret-3")


def secret_cards() -> list[McpTool]:
    return [
        McpTool(
            connection=StdioConnection(
                command=sys.executable,
                args=["-c", "pass"],
                env={"API_KEY": SecretStr(SECRETS[0])},
                pass_env=["HOME"],
            ),
            server="local",
            tool_prefix="local",
            tools=["add"],
        ),
        McpTool(
            connection=HttpConnection(
                url="http://127.0.0.1:9/mcp",
                bearer_token=SecretStr(SECRETS[1]),
                headers={"X-Api-Key": SecretStr(SECRETS[2])},
            ),
            server="remote",
            call_timeout=5,
            tool_errors="failed",
        ),
    ]


def test_the_card_is_found_by_name_and_round_trips_equal_in_a_config() -> None:
    from retinue.plugins import get_plugin_manager
    from retinue_mcp import hooks

    assert collect_card_classes(get_plugin_manager(autoload=False, plugins=[hooks])) == {
        "mcp": McpTool
    }
    config = AgentConfig(name="@A", role="A", tools=list(secret_cards()))
    dumped = config.model_dump()
    again = AgentConfig.model_validate(dumped)
    assert again == config
    assert again.tools == secret_cards()
    for card in secret_cards():
        assert McpTool.model_validate(card.model_dump()) == card


def test_secrets_are_hidden_in_json_and_in_the_start_message_the_team_publishes(
    retinue_team: TeamHarness,
) -> None:
    config = AgentConfig(name="@A", role="A", tools=list(secret_cards()))
    assert not any(secret in config.model_dump_json() for secret in SECRETS)

    team = retinue_team
    team.add(role("Clerk", *secret_cards()))
    team.wait_idle(30)

    started = [m for m in team.of(StartMessage) if m.sender and m.sender.name == "@Clerk"]
    assert len(started) == 1
    published = started[0].config
    assert isinstance(published, AgentConfig)
    local, remote = published.tools
    assert isinstance(local, McpTool) and isinstance(remote, McpTool)
    assert isinstance(local.connection, StdioConnection)
    assert local.connection.env["API_KEY"].get_secret_value() == "***"
    assert isinstance(remote.connection, HttpConnection)
    assert remote.connection.bearer_token is not None
    assert remote.connection.bearer_token.get_secret_value() == "***"
    assert remote.connection.headers["X-Api-Key"].get_secret_value() == "***"
    for message in team.recorder.messages:
        text = repr(message) + message.model_dump_json()
        assert not any(secret in text for secret in SECRETS)


def test_the_same_server_twice_is_refused_and_two_servers_are_not() -> None:
    from retinue.tools import with_default_cards

    with pytest.raises(DuplicateToolCardError, match="'mcp:demo' is given twice"):
        with_default_cards([stdio_card(server="demo"), stdio_card(server="demo")], [])
    assert len(with_default_cards([stdio_card(server="a"), stdio_card(server="b")], [])) == 2


@pytest.mark.parametrize(
    ("settings", "problem"),
    [
        ({"connection": {"transport": "stdio", "command": "  "}}, "command must not be blank"),
        ({"connection": {"transport": "http", "url": "ftp://h/x"}}, "http:// or https://"),
        ({"connection": {"transport": "http", "url": "127.0.0.1:80"}}, "http:// or https://"),
        (
            {
                "connection": {
                    "transport": "http",
                    "url": "http://h/mcp",
                    "bearer_token": "a",
                    "bearer_token_env": "B",
                }
            },
            "bearer_token or bearer_token_env, not both",
        ),
        (
            {"connection": {"transport": "stdio", "command": "x", "pass_env": ["A-B"]}},
            "not an environment variable name: 'A-B'",
        ),
        ({"connection": {"transport": "ws", "url": "http://h"}}, "'stdio', 'http', 'sse'"),
        (
            {"connection": {"transport": "stdio", "command": "x"}, "tool_prefix": "1x"},
            "tool_prefix must start with a letter",
        ),
        (
            {"connection": {"transport": "stdio", "command": "x"}, "call_timeout": 0},
            "greater than 0",
        ),
        ({"connection": {"transport": "stdio", "command": "x"}, "port": 1}, "port"),
        ({}, "connection"),
    ],
)
def test_bad_settings_are_one_clear_error(settings: dict[str, object], problem: str) -> None:
    with pytest.raises(ValidationError) as caught:
        McpTool.model_validate(settings)
    assert problem in str(caught.value)


def test_a_card_names_its_server_by_connection_unless_named() -> None:
    assert stdio_card().server_name.endswith("demo_server.py stdio")
    remote = McpTool(connection=HttpConnection(url="https://u:pw@example.org:8443/mcp?k=v"))
    assert remote.server_name == "https://example.org:8443/mcp"  # no credentials, no query
    assert remote.card_key() == "mcp:https://example.org:8443/mcp"
