"""An agent calls a real stdio MCP server's tools through a scripted model, in a real team."""

from __future__ import annotations

import pytest
from mcp_helpers import returns, role, stdio_card, work
from pydantic import SecretStr
from retinue import ToolCallStartedEvent
from retinue.testing import TeamHarness, call_directive


def test_a_model_calls_the_tools_of_a_stdio_server(retinue_team: TeamHarness) -> None:
    team = retinue_team
    card = stdio_card(connection={"env": {"DEMO_KEY": SecretStr("k-123")}})
    clerk = team.add(role("Clerk", card))

    work(
        team,
        clerk,
        call_directive("add", {"a": 2, "b": 40}),
        call_directive("read_env", {"name": "DEMO_KEY"}),
        answer="done",
    )

    assert returns(team, "@Clerk") == [
        ("add", "success", "42"),
        ("read_env", "success", "k-123"),
    ]
    assert [m.content for m in team.received_by("@Human")] == ["done"]
    # the ledger: `add` is annotated readOnlyHint by the server; read_env is not annotated
    started = {e.tool_name: e.effect for e in team.events(ToolCallStartedEvent)}
    assert started == {"add": "read_only", "read_env": None}


def test_a_tool_error_is_a_retry_the_model_reads_and_the_run_goes_on(
    retinue_team: TeamHarness,
) -> None:
    team = retinue_team
    clerk = team.add(role("Clerk", stdio_card(tool_prefix="calc")))

    work(
        team,
        clerk,
        call_directive("calc_divide", {"a": 1, "b": 0}),
        call_directive("calc_divide", {"a": 1, "b": 4}),
        answer="a quarter",
    )

    (retried, answered) = returns(team, "@Clerk")
    assert retried[:2] == ("calc_divide", "retried")
    assert "calc_divide failed" not in retried[2]  # the model sees the server's own name
    assert "divide failed: " in retried[2] and "division by zero" in retried[2]
    assert answered == ("calc_divide", "success", "0.25")
    assert [m.content for m in team.received_by("@Human")] == ["a quarter"]


def test_failed_tool_errors_are_a_failed_result_that_spends_no_retry(
    retinue_team: TeamHarness, caplog: pytest.LogCaptureFixture
) -> None:
    team = retinue_team
    only = stdio_card(server="demo", tool_errors="failed", tools=["divide", "multiply"])
    clerk = team.add(role("Clerk", only))

    work(
        team,
        clerk,
        call_directive("divide", {"a": 1, "b": 0}),
        call_directive("divide", {"a": 2, "b": 0}),
        call_directive("add", {"a": 2, "b": 2}),
        answer="cannot",
    )

    outcomes = returns(team, "@Clerk")
    assert [(tool, outcome) for tool, outcome, _ in outcomes] == [
        ("divide", "failed"),
        ("divide", "failed"),
        ("add", "retried"),  # not among the card's tools: unknown to the model
    ]
    assert all("division by zero" in content for _, _, content in outcomes[:2])
    assert [m.content for m in team.received_by("@Human")] == ["cannot"]
    assert [r.getMessage() for r in caplog.records if r.name == "retinue_mcp"] == [
        "MCP server 'demo' has no tool 'multiply' (it has: add, authorization, big, crash, "
        "divide, pid, read_env, rows)"
    ]
