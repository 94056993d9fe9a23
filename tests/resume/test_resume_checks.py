"""A role's checks are in the record as paths: a resumed member holds its messages to them."""

from __future__ import annotations

from typing import Any

from retinue import (
    AgentCard,
    AgentConfig,
    AgentMessage,
    BaseAgent,
    FailureNotice,
    ModelConfig,
    Outgoing,
    SentMessage,
)
from retinue.testing import FOLLOW, TeamHarness


def verdict_only(message: Outgoing) -> str | None:
    if message.recipient == "@Human" and not message.content.startswith("VERDICT:"):
        return "Answer with a verdict only."
    return None


def qa_card() -> AgentCard:
    return AgentCard(
        description="Reviews",
        agent_class=BaseAgent,
        config=AgentConfig(
            name="@QA",
            role="QA",
            model_cfg=ModelConfig(provider="function", model=FOLLOW),
            checks=[verdict_only],
        ),
    )


def test_a_resumed_member_keeps_its_checks(where: str, resumed: Any) -> None:
    first = TeamHarness(store=where)
    qa = first.add(qa_card())
    first.say(qa, "send @Human response: VERDICT: first")
    first.wait_idle()
    assert [m.content for m in first.received_by("@Human")] == ["VERDICT: first"]
    assert first.shutdown(10)

    team, recorder = resumed(first.team_id)
    back = team.roster["@QA"]
    team.send("send @Human response: prose", to=back)
    team.send("send @Human response: VERDICT: second", to=back)
    team.system.wait_idle(30)
    sent = [m.message for m in recorder.messages if isinstance(m, SentMessage)]
    to_person = [
        m
        for m in sent
        if isinstance(m, AgentMessage) and m.recipient and m.recipient.name == "@Human"
    ]
    failure, answer = to_person
    assert isinstance(failure, FailureNotice) and "verdict_only refused" in failure.reason
    assert answer.content == "VERDICT: second"
