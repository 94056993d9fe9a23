"""An approval rule naming the MCP card alone parks the server's tools that change something
(not annotated `readOnlyHint`) and lets the read-only ones run."""

from __future__ import annotations

from mcp_helpers import returns, role, stdio_card, work
from retinue import AgentConfig, ToolApprovalAskedEvent
from retinue.agent.approval_policy import check_rules
from retinue.testing import TeamHarness, call_directive


def test_the_card_alone_parks_what_is_not_read_only(retinue_team: TeamHarness) -> None:
    clerk_card = role("Clerk", stdio_card())
    assert isinstance(clerk_card.config, AgentConfig)
    clerk_card.config.approve = check_rules(["mcp"])
    clerk = retinue_team.add(clerk_card)
    work(
        retinue_team,
        clerk,
        call_directive("add", {"a": 2, "b": 40}),  # readOnlyHint: runs
        call_directive("pid", {}),  # no annotation: waits
        answer="done",
    )
    assert [(tool, content) for tool, _, content in returns(retinue_team, "@Clerk")] == [
        ("add", "42")
    ]
    (asked,) = retinue_team.events(ToolApprovalAskedEvent)
    assert [(call.tool, call.rule) for call in asked.calls] == [("pid", "mcp")]
