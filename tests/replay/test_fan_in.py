"""Answers that reach a manager one by one, in another order on every run: each is its own
turn of the manager's, and the replay serves the recorded turn whose request it equals."""

from __future__ import annotations

import random
import time
from pathlib import Path

from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models.function import AgentInfo
from retinue import AgentCard
from retinue.store import open_store
from retinue.testing import (
    TeamHarness,
    agent_name,
    incoming,
    received,
    replay_team,
    scripted_card,
    send,
)

from tests.replay.team_scripts import EXPLODE

MEMBERS = ["@W0", "@W1", "@W2"]


def manager(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    got = incoming(messages)
    if got.sender == "@Human":
        return send(info, *[(m, "request", f"count {m}") for m in MEMBERS])
    answers = sorted(m.content for m in received(messages) if m.intent == "response")
    if len(answers) < len(MEMBERS):
        return send(info)  # wait for the others
    return send(info, ("@Human", "response", "; ".join(answers)))


def member(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    time.sleep(random.random() / 50)  # sleep-ok: jitter, not a wait
    return send(info, ("@Manager", "response", f"{agent_name(info)} counted"))


def test_answers_reaching_a_manager_in_another_order_replay_equal(tmp_path: Path) -> None:
    where = tmp_path / "team.sqlite"
    team = TeamHarness(store=str(where))
    card = scripted_card("Manager", EXPLODE)
    one_at_a_time = card.config.model_copy(update={"answers_per_turn": 1})
    lead = team.add(AgentCard(**{**dict(card), "config": one_at_a_time}), model=manager)
    for name in MEMBERS:
        team.add(scripted_card(name[1:], EXPLODE), model=member)
    team.say(lead, "count")
    team.wait_idle()
    assert team.shutdown()

    with open_store(where, create=False) as store:
        for _ in range(3):
            report = replay_team(store, team.team_id)
            assert report.ok, report.render()
            assert (report.turns, report.equal) == (7, 7)
            assert [a.content for a in report.answers] == ["@W0 counted; @W1 counted; @W2 counted"]
