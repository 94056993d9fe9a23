"""Ten members working at once answer in another order on every run; each has a lane of its
own, so the replay is the same however their threads are scheduled."""

from __future__ import annotations

import random
import threading
import time
from pathlib import Path

import pytest
from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models.function import AgentInfo
from retinue.store import open_store
from retinue.testing import TeamHarness, agent_name, incoming, replay_team, scripted_card, send

from tests.replay.team_scripts import EXPLODE

MEMBERS = [f"W{n}" for n in range(10)]


def manager(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    got = incoming(messages)
    return send(info, *[(f"@{m}", "request", f"{got.content}, part {m}") for m in MEMBERS])


class Members:
    """Each member answers the person after a random pause, so they finish in any order."""

    def __init__(self) -> None:
        self.order: list[str] = []
        self.lock = threading.Lock()

    def __call__(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        time.sleep(random.random() / 50)  # sleep-ok: jitter, not a wait
        name = agent_name(info)
        with self.lock:
            self.order.append(name)
        return send(info, ("@Human", "notification", f"{name} did {incoming(messages).content}"))


@pytest.mark.slow  # 20 teams of 11 started and stopped: about 6 s on two cores
def test_a_fan_out_of_ten_replays_equal_twenty_times_in_a_row(tmp_path: Path) -> None:
    where = tmp_path / "team.sqlite"
    team = TeamHarness(store=str(where))
    members = Members()
    lead = team.add(scripted_card("Manager", EXPLODE), model=manager)
    for role in MEMBERS:
        team.add(scripted_card(role, EXPLODE), model=members)
    team.say(lead, "the survey")
    team.wait_idle()
    assert team.shutdown()
    assert sorted(members.order) == [f"@{m}" for m in MEMBERS]

    orders = set()
    with open_store(where, create=False) as store:
        for _ in range(20):
            report = replay_team(store, team.team_id)
            assert report.ok, report.render()
            assert (report.replayed, report.equal) == (11, 11)
            orders.add(tuple(answer.sender for answer in report.answers))
    assert all(sorted(order) == [f"@{m}" for m in MEMBERS] for order in orders)
