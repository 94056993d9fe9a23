"""An agent calls a real stdio MCP server's tools through a scripted model, in a real team."""

from __future__ import annotations

from pydantic import SecretStr
from retinue.testing import TeamHarness, call_directive, send_directive

from mcp_helpers import returns, role, stdio_card


def test_a_model_calls_the_tools_of_a_stdio_server(retinue_team: TeamHarness) -> None:
    team = retinue_team
    card = stdio_card(connection={"env": {"DEMO_KEY": SecretStr("k-123")}})
    clerk = team.add(role("Clerk", card))

    team.say(
        clerk,
        "\n".join(
            [
                call_directive("add", {"a": 2, "b": 40}),
                call_directive("read_env", {"name": "DEMO_KEY"}),
                send_directive("@Human", "response", "done"),
            ]
        ),
    )
    team.wait_idle(120)

    assert returns(team, "@Clerk") == [
        ("add", "success", "42"),
        ("read_env", "success", "k-123"),
    ]
    assert [m.content for m in team.received_by("@Human")] == ["done"]
