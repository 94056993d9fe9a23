"""`retinue.console`: the Console, the JSON transcript and the log, on a real team."""

from __future__ import annotations

import io
import json
import logging
import threading

import pytest
from retinue import (
    AgentMessage,
    EventMessage,
    EventSubscriber,
    Message,
    ModelMessageEvent,
    RunFinishedEvent,
    RunStartedEvent,
)
from retinue.console import Console, JsonTranscript
from retinue.testing import TeamHarness, scripted_card, send_directive

from tests.cli import scripts


def watch(team: TeamHarness, **options: object) -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    console = Console(file=out, **options)  # type: ignore[arg-type]
    team.orchestrator_proxy.subscribe(console, replay=True)
    return console, out


def test_the_flow_is_one_line_per_message_hire_and_skip(retinue_team: TeamHarness) -> None:
    pytest.importorskip("retinue_team", reason="the lead hires through retinue-team")
    team = retinue_team
    team.register(scripted_card("Helper"))
    lead = team.add(scripted_card("Lead", routes_to=["Helper"]))
    console, out = watch(team)
    hire = send_directive("Helper", "request", send_directive("@Lead", "response", "done"))
    team.say(lead, f"{hire}\n{send_directive('@Ghost', 'request', 'hello?')}")
    team.wait_idle()
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("@Human → @Lead  [request] send Helper request: ")
    assert "+ @Lead hired @Helper (Helper)" in lines
    assert "@Lead → @Helper  [request] send @Lead response: done" in lines
    assert "@Helper → @Lead  [response] done" in lines
    (skipped, told) = [line for line in lines if "not delivered" in line]
    assert skipped.startswith("✗ @Lead → @Ghost not delivered: ")
    assert told.startswith("@Lead → @Human  [failure] A message from @Lead to @Ghost was not")
    assert console.tracker.working() == []
    team.command(lead, "/fire_member @Helper")
    assert "- @Helper left the team" in out.getvalue().splitlines()
    before = len(out.getvalue().splitlines())
    team.shutdown()
    after = out.getvalue().splitlines()[before:]
    assert not [line for line in after if line.startswith("- ")]  # a shutdown is no news


def test_texts_are_shortened_and_cleaned_unless_verbose(retinue_team: TeamHarness) -> None:
    team = retinue_team
    lead = team.add(scripted_card("Lead"))
    _, short = watch(team, limit=40)
    _, full = watch(team, verbose=True)
    hostile = "clear\x1b[2J the screen " + "word " * 30 + "\nsecond line"
    team.say(lead, hostile)
    team.wait_idle()
    (line,) = [x for x in short.getvalue().splitlines() if x.startswith("@Human")]
    assert "\x1b" not in short.getvalue() and "\x1b" not in full.getvalue()
    content = line.split("[request] ", 1)[1]
    assert content.startswith("clear\\x1b[2J the screen word word")  # escaped as `retinue log` does
    assert len(content) == 40 and content.endswith("…")
    assert "clear\\x1b[2J the screen " in full.getvalue()
    assert "\nsecond line" in full.getvalue()  # whole, newlines kept
    assert "@Lead run completed (1 request, " in full.getvalue()  # each run, with its usage
    assert "+ @Lead joined (Lead)" in full.getvalue()


def test_the_status_line_outside_a_terminal(retinue_team: TeamHarness) -> None:
    team = retinue_team
    lead = team.add(scripted_card("Lead"))
    console, out = watch(team, status=True)
    team.say(lead, "hello")
    team.wait_idle()
    status = [line for line in out.getvalue().splitlines() if line.startswith("·")]
    assert status == ["· working: @Lead", "· idle"]
    assert console.tracker.working() == []


def test_usage_per_agent_matches_what_the_agent_counted(retinue_team: TeamHarness) -> None:
    team = retinue_team
    lead = team.add(scripted_card("Lead"))
    console, out = watch(team, width=120)
    for text in ("one", "two"):
        team.say(lead, text)
    team.wait_idle()
    counted = team.proxy(lead).get_usage_summary()
    assert console.tracker.usage()["@Lead"] == counted
    console.print_usage()
    (row,) = [line for line in out.getvalue().splitlines() if line.startswith("@Lead ")]
    cells = [c for c in row.split() if c not in "│"]
    assert cells == [
        "@Lead",
        "2",
        str(counted.requests),
        str(counted.input_tokens),
        str(counted.output_tokens),
        str(counted.total_tokens),
        "?",  # a scripted model has no price
    ]


def test_a_subscriber_replayed_misses_nothing_and_sees_nothing_twice(
    retinue_team: TeamHarness,
) -> None:
    team = retinue_team
    lead = team.add(scripted_card("Lead"))
    team.say(lead, "before")
    team.wait_idle()
    console, out = watch(team)
    team.say(lead, "after")
    team.wait_idle()
    assert [m.name for m in console.tracker.members()] == ["@Human", "@Lead"]
    assert [c.name for c in console.tracker.commands("@Lead")] != []
    lines = out.getvalue().splitlines()
    assert lines.count("@Human → @Lead  [request] before") == 1
    assert lines.count("@Human → @Lead  [request] after") == 1


def test_the_json_transcript_is_one_object_a_line(retinue_team: TeamHarness) -> None:
    team = retinue_team
    lead = team.add(scripted_card("Lead"))
    out, everything = io.StringIO(), io.StringIO()
    team.orchestrator_proxy.subscribe(JsonTranscript(out), replay=True)
    team.orchestrator_proxy.subscribe(JsonTranscript(everything, verbose=True), replay=True)
    text = 'two\nlines and "quotes"'
    team.say(lead, text)
    team.wait_idle()
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    (sent,) = [line for line in lines if line["record"] == "message"]
    assert (
        sent["content"] == text and sent["intent"] == "request" and sent["type"] == "AgentMessage"
    )
    assert sent["sender"] == "@Human" and sent["recipient"] == "@Lead"
    assert sent["chain_id"] == sent["id"]  # the person's request starts a chain
    assert "model_message" not in {line.get("event") for line in lines}
    verbose = [json.loads(line) for line in everything.getvalue().splitlines()]
    assert "model_message" in {line.get("event") for line in verbose}
    recorded = team.recorder.messages
    model_messages = [
        m
        for m in recorded
        if isinstance(m, EventMessage) and isinstance(m.event, ModelMessageEvent)
    ]
    assert len([v for v in verbose if v.get("event") == "model_message"]) == len(model_messages)


def test_the_log_tells_at_info_what_the_team_does(
    retinue_team: TeamHarness, caplog: pytest.LogCaptureFixture
) -> None:
    pytest.importorskip("retinue_team", reason="the lead hires through retinue-team")
    team = retinue_team
    team.register(scripted_card("Helper"))
    lead = team.add(scripted_card("Lead", routes_to=["Helper"]))
    with caplog.at_level(logging.INFO, logger="retinue"):
        team.say(lead, send_directive("Helper", "request", "send @Lead response: ok\x1b[31m"))
        team.wait_idle()
        team.command(lead, "/fire_member @Helper")
    lines = [r.getMessage() for r in caplog.records if r.name.startswith("retinue")]
    assert "@Human -> @Lead [request] send Helper request: send @Lead response: ok?[31m" in lines
    assert "@Lead hired @Helper (Helper)" in lines
    assert "@Helper -> @Lead [response] ok?[31m" in lines
    runs = [line for line in lines if ": run " in line]
    assert len(runs) == 6  # three runs (lead, helper, lead again), each started and completed
    assert all(" completed: 1 request, " in line for line in runs if "started" not in line)
    assert "@Helper left the team" in lines
    assert all("\n" not in line and "\x1b" not in line for line in lines)
    assert not [r for r in caplog.records if r.exc_info and r.levelno > logging.DEBUG]


def test_a_failed_run_is_one_warning_and_its_end_only_at_debug(
    retinue_team: TeamHarness, caplog: pytest.LogCaptureFixture
) -> None:
    team = retinue_team
    lead = team.add(scripted_card("Lead", "tests.cli.scripts:explodes"))
    with caplog.at_level(logging.DEBUG, logger="retinue"):
        team.say(lead, "go")
        team.wait_idle()
    above_info = [r for r in caplog.records if r.levelno >= logging.WARNING]
    (warning,) = above_info
    assert warning.getMessage().endswith("from @Human: RuntimeError: model exploded")
    (end,) = [
        r for r in caplog.records if " failed (" in r.getMessage() and ": run " in r.getMessage()
    ]
    assert end.levelno == logging.DEBUG
    assert [m.content for m in team.received_by("@Human") if isinstance(m, AgentMessage)]


class _Started(EventSubscriber):
    """Sets `seen` when a run's start is recorded."""

    def __init__(self) -> None:
        self.seen = threading.Event()

    def on_message(self, message: Message) -> None:
        if isinstance(message, EventMessage) and isinstance(message.event, RunStartedEvent):
            self.seen.set()


def test_a_run_start_is_recorded_while_the_run_goes_on(retinue_team: TeamHarness) -> None:
    team = retinue_team
    lead = team.add(scripted_card("Lead", "tests.cli.scripts:held"))
    console, _ = watch(team)
    started = _Started()
    team.orchestrator_proxy.subscribe(started)
    scripts.RELEASE.clear()
    try:
        team.say(lead, "wait for me")
        assert started.seen.wait(30), "the run's start was not recorded while it ran"
        assert console.tracker.working() == ["@Lead"]  # the model has not answered yet
        assert not [e for e in team.events(RunFinishedEvent)]
    finally:
        scripts.RELEASE.set()
    team.wait_idle()
    assert console.tracker.working() == []
    assert [m.content for m in team.received_by("@Human")] == ["released"]
