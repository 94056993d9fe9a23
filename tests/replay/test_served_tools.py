"""What a replay serves in a tool's place: its recorded result, or the retry it asked for;
a recorded answer calling a tool the agent no longer offers is a difference; a member that
cannot start here is one error."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

import pytest
from pydantic_ai import ModelRetry
from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models.function import AgentInfo
from retinue import ToolCard
from retinue.replay import ReplayError
from retinue.store import open_store
from retinue.testing import (
    TeamHarness,
    call_tool,
    incoming,
    replay_team,
    run_messages,
    scripted_card,
    send,
    tool_returns,
)

from tests.replay.team_scripts import EXPLODE

COUNTED: list[int] = []  # what the tool did: a replay adds nothing


class CounterTool(ToolCard):
    name: ClassVar[str] = "counter"

    def get_tools(self) -> Sequence[Any]:
        return [self.count]

    def count(self, n: int) -> str:
        """Count up to n (n > 0)."""
        if n <= 0:
            raise ModelRetry(f"n must be positive, not {n}")
        COUNTED.append(n)
        return f"counted to {n}"


def counter(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    run = run_messages(messages, info)
    steps = sum(1 for m in run if isinstance(m, ModelResponse))
    if steps == 0:
        return call_tool("count", {"n": -1})
    if steps == 1:
        return call_tool("count", {"n": 3})
    return send(info, (incoming(messages).sender, "response", str(tool_returns(run)[-1].content)))


def record(where: Path) -> str:
    team = TeamHarness(store=str(where))
    member = team.add(scripted_card("Counter", EXPLODE, tools=[CounterTool()]), model=counter)
    team.say(member, "count")
    team.wait_idle()
    assert team.shutdown()
    return team.team_id


def test_a_retry_and_a_result_are_served_and_the_tool_does_not_run(tmp_path: Path) -> None:
    where = tmp_path / "team.sqlite"
    COUNTED.clear()
    team_id = record(where)
    assert COUNTED == [3]
    with open_store(where, create=False) as store:
        report = replay_team(store, team_id)
        assert report.ok, report.render()
        assert (report.replayed, report.equal) == (3, 3)
        assert [a.content for a in report.answers] == ["counted to 3"]
        assert COUNTED == [3]  # served, twice over: the retry and the result

        live = replay_team(store, team_id, tools="live")
        assert live.ok, live.render()
        assert COUNTED == [3, 3]  # run: refused -1 again, counted to 3 again


def test_a_tool_no_longer_offered_is_a_difference(tmp_path: Path) -> None:
    where = tmp_path / "team.sqlite"
    team_id = record(where)
    with open_store(where, create=False) as store:
        report = replay_team(store, team_id, cards=[scripted_card("Counter", EXPLODE)])
    assert report.stopped
    (difference,) = report.differences
    assert (difference.agent, difference.turn, difference.what) == ("@Counter", 1, "tools")
    assert difference.detail.startswith("the recorded answer calls count; offered now: ")


def test_a_member_that_cannot_start_here_is_one_replay_error(tmp_path: Path) -> None:
    where = tmp_path / "team.sqlite"
    team_id = record(where)
    card = scripted_card("Counter", EXPLODE)  # its class moved away since it was checked:
    gone = card.model_copy(update={"agent_class": "gone_package.agents:Counter"})
    with open_store(where, create=False) as store, pytest.raises(ReplayError) as caught:
        replay_team(store, team_id, cards=[gone])
    assert str(caught.value).startswith(f"{team_id}: @Counter cannot start: ")
    assert "gone_package" in str(caught.value) and "\n" not in str(caught.value)
