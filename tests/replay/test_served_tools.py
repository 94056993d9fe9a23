"""What a replay serves in a tool's place: its recorded result, or the retry it asked for;
a tool offered otherwise than recorded (gone, its description or a parameter changed) is a
difference; a member that cannot start here is one error."""

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
    assert difference.detail == "tool count is no longer offered"


class TerseCounter(CounterTool):
    def count(self, n: int) -> str:
        """Count to n."""
        return super().count(n)


class SteppedCounter(CounterTool):
    def count(self, n: int, step: int = 1) -> str:
        """Count up to n (n > 0)."""
        return super().count(n)


@pytest.mark.parametrize(
    ("tool", "detail"),
    [
        (
            TerseCounter(),
            "tool count: its description differs\n--- recorded\n+++ replayed\n@@ -1 +1 @@\n"
            "-Count up to n (n > 0).\n+Count to n.",
        ),
        (
            SteppedCounter(),
            'tool count: parameter step was added\n+ {"default": 1, "type": "integer"}',
        ),
    ],
    ids=["docstring", "parameter"],
)
def test_a_changed_tool_stops_at_the_first_turn_naming_it(
    tmp_path: Path, tool: CounterTool, detail: str
) -> None:
    """The record holds the tools offered: a changed docstring or a new parameter is seen at
    the agent's first turn, though the recorded answers call the tool as they did."""
    where = tmp_path / "team.sqlite"
    team_id = record(where)
    changed = scripted_card("Counter", EXPLODE, tools=[tool])
    with open_store(where, create=False) as store:
        strict = replay_team(store, team_id, cards=[changed])
        lenient = replay_team(store, team_id, cards=[changed], lenient=True)
    assert strict.stopped
    assert [(d.agent, d.turn, d.what, d.detail) for d in strict.differences] == [
        ("@Counter", 1, "tools", detail)
    ]
    assert "@Counter turn 1: the tools differ" in strict.render()
    assert [(d.turn, d.what) for d in lenient.differences] == [(n, "tools") for n in (1, 2, 3)]
    assert lenient.same_answers and not lenient.stopped


def test_a_member_that_cannot_start_here_is_one_replay_error(tmp_path: Path) -> None:
    where = tmp_path / "team.sqlite"
    team_id = record(where)
    card = scripted_card("Counter", EXPLODE)  # its class moved away since it was checked:
    gone = card.model_copy(update={"agent_class": "gone_package.agents:Counter"})
    with open_store(where, create=False) as store, pytest.raises(ReplayError) as caught:
        replay_team(store, team_id, cards=[gone])
    assert str(caught.value).startswith(f"{team_id}: @Counter cannot start: ")
    assert "gone_package" in str(caught.value) and "\n" not in str(caught.value)
