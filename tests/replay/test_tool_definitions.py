"""The tool definitions a team's agents offer are recorded once per change, not per request;
a replay of such a record compares them; a cassette from before they were kept still plays
and says once that it compared no definitions; a resumed team records its own again."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest
from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models.function import AgentInfo
from retinue import EventMessage
from retinue.llm import ModelMessageEvent, ToolDefinitionsEvent
from retinue.record import decode
from retinue.replay import ReplayError
from retinue.resume import resume_team
from retinue.store import Store, open_store
from retinue.testing import (
    TeamHarness,
    incoming,
    override_model,
    play_cassette,
    replay_team,
    scripted_card,
    send,
)

from tests.cli.conftest import TEAMS
from tests.replay.team_scripts import EXPLODE

HOPS = 8
CASSETTES = Path(__file__).parent / "cassettes"
PAIR = TEAMS / "pair.toml"


def bounce(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """`hop k/N` goes to the other player as `hop k+1/N`; the last hop to the person."""
    got = incoming(messages)
    found = re.search(r"hop (\d+)/(\d+)", got.content)
    assert found is not None, got.content
    hop, last = int(found.group(1)), int(found.group(2))
    if hop >= last:
        return send(info, ("@Human", "response", f"done at hop {hop}"))
    other = "@Pong" if "You are @Ping" in (info.instructions or "") else "@Ping"
    return send(info, (other, "request", f"hop {hop + 1}/{last}"))


def record(where: Path) -> str:
    team = TeamHarness(store=str(where))
    ping = team.add(scripted_card("Ping", EXPLODE), model=bounce)
    team.add(scripted_card("Pong", EXPLODE), model=bounce)
    team.say(ping, f"hop 0/{HOPS}")
    team.wait_idle()
    assert team.shutdown()
    return team.team_id


def tally(store: Store, team_id: str) -> tuple[Counter[str], Counter[str]]:
    """Per agent: its tool definition records, and its model answers."""
    tools: Counter[str] = Counter()
    answers: Counter[str] = Counter()
    for record in store.read(team_id):
        message = decode(record.data)
        event = message.event if isinstance(message, EventMessage) else None
        if isinstance(event, ToolDefinitionsEvent):
            tools[event.agent_name] += 1
        elif isinstance(event, ModelMessageEvent) and event.message["kind"] == "response":
            answers[event.agent_name] += 1
    return tools, answers


def test_a_ping_pong_records_its_tools_once_per_agent_and_replays_them(tmp_path: Path) -> None:
    where = tmp_path / "team.sqlite"
    team_id = record(where)
    with open_store(where, create=False) as store:
        tools, answers = tally(store, team_id)
        assert answers == {"@Ping": HOPS // 2 + 1, "@Pong": HOPS // 2}
        assert tools == {"@Ping": 1, "@Pong": 1}
        report = replay_team(store, team_id)
    assert report.ok, report.render()
    assert (report.replayed, report.equal, report.untooled) == (HOPS + 1, HOPS + 1, 0)
    assert "tool definitions" not in report.render()


def test_a_resumed_team_records_its_tools_again_once(tmp_path: Path) -> None:
    """A resumed runner knows none yet: its first request records them, the next do not."""
    where = tmp_path / "team.sqlite"
    team_id = record(where)
    with open_store(where, create=False) as store, override_model(bounce, team=team_id):
        resumed = resume_team(store, team_id)
        try:
            resumed.send(f"hop {HOPS - 2}/{HOPS}", to=resumed.roster["@Ping"])
            resumed.wait_idle(30)
        finally:
            assert resumed.shutdown(10)
        tools, answers = tally(store, team_id)
    assert answers == {"@Ping": HOPS // 2 + 3, "@Pong": HOPS // 2 + 1}
    assert tools == {"@Ping": 2, "@Pong": 2}


def test_a_cassette_from_before_tool_definitions_plays_and_says_so_once() -> None:
    pytest.importorskip("retinue_team", reason="the lead hires its helper through retinue-team")
    report = play_cassette(PAIR, CASSETTES / "pair-v1.jsonl")
    assert report.ok, report.render()
    assert report.untooled == 3
    note = "3 of the 3 recorded turns hold no tool definitions"
    assert report.render().count(note) == 1


def test_a_tools_row_offering_an_undefined_tool_is_one_error(tmp_path: Path) -> None:
    lines = (CASSETTES / "pair.jsonl").read_text().splitlines()
    assert '"kind": "tools"' in lines[2]
    lines[2] = re.sub(
        r'"definitions": \[.*\], "function_tools"', '"definitions": [], "function_tools"', lines[2]
    )
    (tmp_path / "bad.jsonl").write_text("\n".join(lines) + "\n")
    with pytest.raises(
        ReplayError, match=r"bad.jsonl line 3: @Helper offers final_result, never defined before$"
    ):
        play_cassette(PAIR, tmp_path / "bad.jsonl")


def test_a_cassette_whose_tool_changed_since_misses_naming_it(tmp_path: Path) -> None:
    """The team file's hire tool is described otherwise than when the cassette was made."""
    pytest.importorskip("retinue_team", reason="the lead hires its helper through retinue-team")
    text = (CASSETTES / "pair.jsonl").read_text()
    described = '"description": "Hire a member for each role given'
    assert text.count(described) == 1
    (tmp_path / "old.jsonl").write_text(text.replace(described, described.replace("Hire", "Add")))
    report = play_cassette(PAIR, tmp_path / "old.jsonl")
    assert report.stopped
    ((agent, turn, what, detail),) = [
        (d.agent, d.turn, d.what, d.detail) for d in report.differences
    ]
    assert (agent, turn, what) == ("@Lead", 1, "tools")
    assert detail.startswith("tool hire_members: its description differs\n--- recorded")
    assert "-Add a member for each role given" in detail
