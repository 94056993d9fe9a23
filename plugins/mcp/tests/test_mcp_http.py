"""Servers over streamable HTTP and SSE on 127.0.0.1, with the bearer token on the transport."""

from __future__ import annotations

import logging

import pytest
from mcp_helpers import returns, role, stdio_card, work
from pydantic import SecretStr
from retinue.testing import TeamHarness, call_directive, script, send_directive
from retinue_mcp import HttpConnection, McpTool


def test_a_model_calls_a_streamable_http_server_with_a_token_from_the_environment(
    retinue_team: TeamHarness, http_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DEMO_MCP_TOKEN", "tok-from-env")
    team = retinue_team
    card = McpTool(connection=HttpConnection(url=http_url, bearer_token_env="DEMO_MCP_TOKEN"))
    clerk = team.add(role("Clerk", card))

    work(
        team,
        clerk,
        call_directive("add", {"a": 20, "b": 22}),
        call_directive("authorization"),
        answer="done",
    )

    assert returns(team, "@Clerk") == [
        ("add", "success", "42"),
        ("authorization", "success", "Bearer tok-from-env"),
    ]


def test_a_model_calls_an_sse_server(retinue_team: TeamHarness, sse_url: str) -> None:
    team = retinue_team
    card = McpTool(
        connection=HttpConnection(
            transport="sse", url=sse_url, bearer_token=SecretStr("tok-literal")
        )
    )
    clerk = team.add(role("Clerk", card))

    team.say(
        clerk,
        script(call_directive("authorization"), answer="done"),
    )
    team.wait_idle(120)

    assert returns(team, "@Clerk") == [("authorization", "success", "Bearer tok-literal")]


def test_one_agent_holds_two_servers_told_apart_by_prefix(
    retinue_team: TeamHarness, http_url: str
) -> None:
    team = retinue_team
    local = stdio_card(server="local", tool_prefix="local")
    remote = McpTool(connection=HttpConnection(url=http_url), server="remote", tool_prefix="web")
    clerk = team.add(role("Clerk", local, remote))

    work(
        team,
        clerk,
        call_directive("local_add", {"a": 1, "b": 2}),
        call_directive("web_add", {"a": 3, "b": 4}),
        call_directive("web_authorization"),
        answer="both",
    )

    assert returns(team, "@Clerk") == [
        ("local_add", "success", "3"),
        ("web_add", "success", "7"),
        ("web_authorization", "success", "<none>"),
    ]


def test_a_refused_connection_is_a_failed_start(
    retinue_team: TeamHarness, caplog: pytest.LogCaptureFixture
) -> None:
    import socket

    with socket.socket() as sock:  # a port that was free a moment ago: nobody listens there
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    team = retinue_team
    card = McpTool(connection=HttpConnection(url=f"http://127.0.0.1:{port}/mcp"), server="gone")
    clerk = team.add(role("Clerk", card))

    team.say(clerk, send_directive("@Human", "response", "carried on"))
    team.wait_idle(60)

    assert [m.content for m in team.received_by("@Human")] == ["carried on"]
    logged = [r.getMessage() for r in caplog.records if r.name == "retinue_mcp"]
    assert len(logged) == 1 and logged[0].startswith("MCP server 'gone' did not start: ")


def test_a_key_in_the_servers_url_never_reaches_the_logs(
    retinue_team: TeamHarness, http_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    key = "k3y-4fT9xQ2mZ7bW1cR8vK3nL6pY"
    card = McpTool(connection=HttpConnection(url=f"{http_url}?api_key={key}"))
    clerk = retinue_team.add(role("Clerk", card))

    with caplog.at_level(logging.DEBUG):
        work(
            retinue_team,
            clerk,
            call_directive("add", {"a": 1, "b": 2}),
            answer="ok",
        )

    logged = [record.getMessage() for record in caplog.records]
    assert returns(retinue_team, "@Clerk") == [("add", "success", "3")]
    assert f"Connecting to StreamableHTTP endpoint: {http_url}?api_key=***" in logged
    assert not [line for line in logged if key in line]
