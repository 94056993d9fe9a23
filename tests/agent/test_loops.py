"""Loop detection, on by default (issue 13 item 3): two agents thanking each other are
stopped with the path reported; a long chain that makes progress is not; `/continue`
lets a stopped chain go on. Real actors, scripted models."""

from __future__ import annotations

import re
import threading
from collections import Counter

from agent_cards import card
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, ToolReturnPart
from pydantic_ai.models.function import AgentInfo
from retinue import (
    ChainResumedEvent,
    ChainStoppedEvent,
    LoopLimits,
    RoutingSkippedEvent,
)
from retinue.testing import PingTool, TeamHarness, agent_name, call_tool, incoming, send


def _pinged(messages: list[ModelMessage]) -> bool:
    """Whether the latest request carries a `ping` tool result (this run took a step)."""
    last = messages[-1]
    return isinstance(last, ModelRequest) and any(
        isinstance(p, ToolReturnPart) and p.tool_name == "ping" for p in last.parts
    )


def agent_to_agent(team: TeamHarness) -> list[tuple[str, str, str]]:
    return [
        (m.sender.name, m.recipient.name, m.content)
        for m in team.sent()
        if m.sender is not None
        and m.recipient is not None
        and not m.sender.is_user_proxy
        and not m.recipient.is_user_proxy
    ]


def to_human(team: TeamHarness) -> list[str]:
    return [m.content for m in team.received_by("@Human")]


def thanker(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Thanks whoever wrote, forever: `@Alpha` starts it by thanking `@Beta`."""
    got = incoming(messages)
    other = "@Beta" if agent_name(info) == "@Alpha" else "@Alpha"
    if got.sender == "@Human":
        return send(
            info, (other, "notification", f"Thank you so much, {other}! Really appreciated.")
        )
    return send(
        info, (got.sender, "notification", f"Thank you so much, {got.sender}! Really appreciated.")
    )


def test_two_agents_thanking_each_other_forever_are_stopped_with_the_path_reported(
    retinue_team: TeamHarness,
) -> None:
    team = retinue_team
    alpha = team.add(card("Alpha"), model=thanker)
    team.add(card("Beta"), model=thanker)
    team.say(alpha, "say thanks to @Beta")
    team.wait_idle()

    hops = agent_to_agent(team)
    assert len(hops) == LoopLimits().max_repeats + 1  # the next one was refused
    # The record's order is the order the orchestrator heard of each hop: members on two
    # Ray hosts may report out of turn. The path below, from the chain itself, is causal.
    assert Counter((s, r) for s, r, _ in hops) == {("@Alpha", "@Beta"): 3, ("@Beta", "@Alpha"): 2}
    (notice,) = to_human(team)
    assert notice.startswith(
        "Loop stopped: @Alpha → @Beta → @Alpha → @Beta → @Alpha → @Beta → @Alpha: 6 "
        "near-identical "
        "messages in a row between @Alpha and @Beta with no progress (the limit is 5)."
    )
    assert "Send /continue to @Beta" in notice
    (stopped,) = team.events(ChainStoppedEvent)
    assert stopped.stop.kind == "loop"
    assert stopped.stop.path == ("@Alpha", "@Beta", "@Alpha", "@Beta", "@Alpha", "@Beta", "@Alpha")
    (skipped,) = team.events(RoutingSkippedEvent)
    assert skipped.agent.name == "@Beta"
    assert "stopped as a loop" in skipped.reason


def test_the_team_sets_its_own_thresholds() -> None:
    team = TeamHarness(loops=LoopLimits(max_repeats=1))
    try:
        alpha = team.add(card("Alpha"), model=thanker)
        team.add(card("Beta"), model=thanker)
        team.say(alpha, "say thanks to @Beta")
        team.wait_idle()
        assert len(agent_to_agent(team)) == 2
        assert team.orchestrator_proxy.get_loop_limits() == LoopLimits(max_repeats=1)
    finally:
        team.shutdown()


def test_loop_detection_can_be_switched_off_per_team() -> None:
    team = TeamHarness(loops=LoopLimits(enabled=False, max_pair_messages=1))
    lock, count = threading.Lock(), Counter[str]()

    def thanks_twelve_times(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        with lock:
            count["turns"] += 1
            if count["turns"] > 12:
                return send(info, ("@Human", "response", "enough"))
        return thanker(messages, info)

    try:
        alpha = team.add(card("Alpha"), model=thanks_twelve_times)
        team.add(card("Beta"), model=thanks_twelve_times)
        team.say(alpha, "say thanks to @Beta")
        team.wait_idle()
        assert len(agent_to_agent(team)) == 12
        assert team.events(ChainStoppedEvent) == []
    finally:
        team.shutdown()


HOPS = 60
_REVISION = re.compile(r"Revision (\d+)")


def reviser(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Writer and Editor pass a draft back and forth, each revision saying something new."""
    got = incoming(messages)
    other = "@Editor" if agent_name(info) == "@Writer" else "@Writer"
    found = _REVISION.search(got.content)
    n = int(found.group(1)) + 1 if found else 1
    if n > HOPS:
        return send(info, ("@Human", "response", f"published after {n - 1} revisions"))
    words = " ".join(f"w{n}{suffix}" for suffix in "xyz")
    content = f"Revision {n}: rewrote section {n} about {words}"
    return send(info, (other, "request", content))


def test_a_60_hop_chain_that_makes_progress_is_not_stopped(retinue_team: TeamHarness) -> None:
    team = retinue_team
    writer = team.add(card("Writer"), model=reviser)
    team.add(card("Editor"), model=reviser)
    team.say(writer, "write the article")
    team.wait_idle(60)
    assert len(agent_to_agent(team)) == HOPS
    assert to_human(team) == [f"published after {HOPS} revisions"]
    assert team.events(ChainStoppedEvent) == []


def test_repeated_words_with_tool_progress_are_not_a_loop(retinue_team: TeamHarness) -> None:
    team = retinue_team
    counts = Counter[str]()
    lock = threading.Lock()

    def script(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        other = "@Editor" if agent_name(info) == "@Writer" else "@Writer"
        if not _pinged(messages):
            return call_tool("ping")
        with lock:
            counts["hops"] += 1
            hop = counts["hops"]
        if hop > HOPS:
            return send(info, ("@Human", "response", "finished"))
        return send(info, (other, "request", "Step done, over to you."))

    writer = team.add(card("Writer", tools=[PingTool()]), model=script)
    team.add(card("Editor", tools=[PingTool()]), model=script)
    team.say(writer, "start")
    team.wait_idle(60)
    assert len(agent_to_agent(team)) == HOPS
    assert to_human(team) == ["finished"]
    assert team.events(ChainStoppedEvent) == []


def test_continue_lets_a_stopped_chain_go_on_to_its_end(retinue_team: TeamHarness) -> None:
    team = retinue_team
    lock, turns = threading.Lock(), Counter[str]()

    def asker(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        with lock:
            turns["asker"] += 1
            turn = turns["asker"]
        if turn >= 6:
            return send(info, ("@Human", "response", "we are there"))
        return send(info, ("@Driver", "request", "Are we there yet?"))

    def driver(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return send(info, ("@Asker", "response", "Not yet, keep going."))

    asker_address = team.add(card("Asker"), model=asker)
    team.add(card("Driver"), model=driver)
    team.say(asker_address, "ask until we arrive")
    team.wait_idle()
    (notice,) = to_human(team)
    assert notice.startswith("Loop stopped: ")
    assert "Send /continue to @Asker" in notice

    team.say(asker_address, "/continue")
    team.wait_idle()
    replies = to_human(team)
    assert replies[1].startswith("Continued the task stopped as a loop at ")
    assert replies[1].endswith("(1 held message delivered).")
    assert replies[2:] == ["we are there"]
    (resumed,) = team.events(ChainResumedEvent)
    assert resumed.delivered == 1


def test_continue_with_an_allowance_lets_that_many_more_messages_through(
    retinue_team: TeamHarness,
) -> None:
    team = retinue_team
    alpha = team.add(card("Alpha"), model=thanker)
    team.add(card("Beta"), model=thanker)
    team.say(alpha, "say thanks to @Beta")
    team.wait_idle()
    before = len(agent_to_agent(team))
    team.say(alpha, "/continue 10")
    team.wait_idle()
    after = len(agent_to_agent(team)) - before
    # The held message, 10 let through unchecked, then the detector's 5 before it stops again.
    assert after == 1 + 10 + LoopLimits().max_repeats + 1
    assert len([r for r in to_human(team) if r.startswith("Loop stopped")]) == 2


def test_continue_with_nothing_stopped_says_so(retinue_team: TeamHarness) -> None:
    team = retinue_team
    worker = team.add(card("Worker", "silent"))
    answer = team.command(worker, "/continue")
    assert answer == "No stopped task involves @Worker; there is nothing to continue."
    answer = team.command(worker, "/continue -1")
    assert "extra must be 0 or more" in answer
