"""`read_mailbox` is offered while mail waits, and not otherwise: its schema is paid per request."""

from __future__ import annotations

from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models.function import AgentInfo
from retinue import AgentMessage
from retinue.testing import PingTool, TeamHarness, call_tool, scripted_card, send


def test_read_mailbox_is_offered_while_mail_waits_and_not_otherwise(
    retinue_team: TeamHarness,
) -> None:
    team = retinue_team
    offers: list[set[str]] = []

    def reader(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        offers.append({tool.name for tool in info.function_tools})
        step = len(offers)
        if step == 1:  # mail lands while this request is answered
            team.system.post_from_outside(
                team.human, address, AgentMessage(content="by the way", type="notification")
            )
            return call_tool("ping")
        if step == 2:
            return call_tool("read_mailbox")
        return send(info)

    address = team.add(scripted_card("Reader", tools=[PingTool()]), model=reader)
    team.say(address, "work")
    team.wait_idle(20)

    nothing_waits, mail_waits, read = offers
    assert "read_mailbox" not in nothing_waits and "ping" in nothing_waits
    assert "read_mailbox" in mail_waits
    assert "read_mailbox" not in read  # the read took it: nothing waits any more
    assert "by the way" in team.tool_results("@Reader")[-1]
