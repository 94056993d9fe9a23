"""The notification card in a real team: tools and commands on scripted models, a test clock."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
import retinue_notify.hooks
from retinue import (
    ActorAddress,
    ActorSystem,
    AgentMessage,
    Channel,
    SentMessage,
    StateChangedMessage,
)
from retinue.plugins import get_plugin_manager
from retinue.resume import resume_team
from retinue.store import SQLiteStore
from retinue.team.record_codec import decode
from retinue.testing import (
    TeamHarness,
    call_directive,
    check_plugin_card,
    script,
    scripted_card,
    send_directive,
)
from retinue_notify import (
    ManualClock,
    NotificationEvent,
    NotificationTool,
    SchedulerState,
    SystemClock,
    team_scheduler,
)


def notifier(role: str, **settings: object) -> object:
    return scripted_card(role, tools=[NotificationTool(**settings)])  # type: ignore[arg-type]


@pytest.fixture
def clock(retinue_team: TeamHarness) -> ManualClock:
    """A test clock for the team's scheduler, started before any card needs it."""
    clock = ManualClock()
    team_scheduler(retinue_team.system, retinue_team.orchestrator, clock=clock)
    return clock


@pytest.fixture
def ada(retinue_team: TeamHarness, clock: ManualClock) -> ActorAddress:
    """@Ada, carrying the notification card as it comes, in a team on the test clock."""
    return retinue_team.add(notifier("Ada"))


def events(team: TeamHarness, kind: str) -> list[NotificationEvent]:
    return [e for e in team.events(NotificationEvent) if e.kind == kind]


def test_the_card_is_a_plugin_card_named_notify_that_round_trips() -> None:
    check_plugin_card(
        retinue_notify.hooks,
        NotificationTool(max_delay_seconds=600, max_pending=3),
        name="notify",
        channels={Channel.TOOL_CALL, Channel.SYSTEM_PROMPT, Channel.COMMAND},
    )
    with pytest.raises(ValueError, match="max_delay_seconds"):
        NotificationTool(max_delay_seconds=0)


def test_an_agent_schedules_lists_cancels_and_is_notified_when_the_time_comes(
    retinue_team: TeamHarness, clock: ManualClock, ada: ActorAddress
) -> None:
    team = retinue_team
    back = send_directive("@Human", "response", "the build is green")

    team.say(
        ada,
        script(
            call_directive("schedule_notification", {"delay_seconds": 600, "text": back}),
            call_directive("schedule_notification", {"delay_seconds": 90, "text": "stand-up"}),
            call_directive("list_notifications"),
            call_directive("cancel_notification", {"notification_id": "n2"}),
            answer="scheduled",
        ),
    )
    team.wait_idle(20)

    results = team.tool_results("@Ada")
    assert results[0] == f"Scheduled N1 at 2027-01-15 08:10:00 UTC (in 10m): {back}"
    assert results[1] == "Scheduled N2 at 2027-01-15 08:01:30 UTC (in 1m 30s): stand-up"
    assert results[2] == (
        "Pending notifications, soonest first:\n"
        "- N2 at 2027-01-15 08:01:30 UTC (in 1m 30s): stand-up\n"
        f"- N1 at 2027-01-15 08:10:00 UTC (in 10m): {back}"
    )
    assert results[3] == "Cancelled N2: stand-up"

    clock.advance(599)  # not yet
    team.wait_idle(20)
    assert [m.content for m in team.received_by("@Human")] == ["scheduled"]

    clock.advance(1)
    team.wait_idle(20)
    [delivered] = [m for m in team.received_by("@Ada") if m.type == "notification"]
    assert delivered.content == (
        f"Notification N1, which you scheduled at 2027-01-15 08:00:00 UTC:\n{back}"
    )
    assert delivered.sender is not None and delivered.sender.name == "@Notifications"
    # The agent's model read it and acted on it, in the chain of the request it came from.
    assert [m.content for m in team.received_by("@Human")] == ["scheduled", "the build is green"]
    [request] = [m for m in team.received_by("@Ada") if m.type == "request"]
    assert delivered.chain_id == request.chain_id
    assert [e.notification.id for e in events(team, "scheduled")] == ["N1", "N2"]
    assert [e.notification.id for e in events(team, "cancelled")] == ["N2"]
    assert [e.notification.id for e in events(team, "delivered")] == ["N1"]
    assert "@Notifications" not in team.roster()


@pytest.mark.usefixtures("clock")
def test_bad_requests_are_retries_with_the_reason_and_the_turn_goes_on(
    retinue_team: TeamHarness,
) -> None:
    team = retinue_team
    ada = team.add(notifier("Ada", max_delay_seconds=3600, max_pending=1))

    def twice(args: dict[str, object], tool: str = "schedule_notification") -> list[str]:
        return [call_directive(tool, args)] * 2

    team.say(
        ada,
        script(
            *twice({"delay_seconds": 0, "text": "now?"}),
            *twice({"delay_seconds": 7200, "text": "too late"}),
            *twice({"delay_seconds": 60, "text": "   "}),
            call_directive("schedule_notification", {"delay_seconds": 60, "text": "ok"}),
            *twice({"delay_seconds": 60, "text": "one more"}),
            *twice({"notification_id": "N7"}, "cancel_notification"),
            answer="done",
        ),
    )
    team.wait_idle(20)

    results = team.tool_results("@Ada")
    refusals = [
        "the delay must be more than 0 seconds, not 0.0",
        "a delay of 7200 seconds is past the longest allowed, 3600 seconds (1h)",
        "a notification needs a text: what to check on",
    ]
    assert results[:6] == [r for refusal in refusals for r in (refusal, f"Error: {refusal}")]
    assert results[6].startswith("Scheduled N1 ")
    full = "you already have 1 pending notifications, the most allowed; cancel one first"
    unknown = "there is no pending notification 'N7'; yours are N1"
    assert results[7:] == [full, f"Error: {full}", unknown, f"Error: {unknown}"]
    assert [m.content for m in team.received_by("@Human")] == ["done"]


def test_another_agent_cannot_cancel_a_notification_it_did_not_schedule(
    retinue_team: TeamHarness, clock: ManualClock, ada: ActorAddress
) -> None:
    team = retinue_team
    bo = team.add(notifier("Bo"))

    team.say(ada, call_directive("schedule_notification", {"delay_seconds": 60, "text": "mine"}))
    team.wait_idle(20)
    team.say(
        bo,
        script(
            call_directive("cancel_notification", {"notification_id": "N1"}),
            call_directive("list_notifications"),
        ),
    )
    team.wait_idle(20)

    refusal = (
        "N1 is not yours to cancel: only the agent that scheduled a notification can cancel it"
    )
    assert team.tool_results("@Bo") == [refusal, "You have no pending notifications."]
    clock.advance(60)
    team.wait_idle(20)
    assert [m.content for m in team.received_by("@Ada") if m.type == "notification"] == [
        "Notification N1, which you scheduled at 2027-01-15 08:00:00 UTC:\nmine"
    ]
    assert not [m for m in team.received_by("@Bo") if m.type == "notification"]


def test_a_person_lists_and_cancels_an_agents_notifications_with_commands(
    retinue_team: TeamHarness, ada: ActorAddress
) -> None:
    team = retinue_team
    assert team.command(ada, "/notifications") == "You have no pending notifications."
    team.say(ada, call_directive("schedule_notification", {"delay_seconds": 3600, "text": "x"}))
    team.wait_idle(20)

    assert team.command(ada, "/notifications") == (
        "Pending notifications, soonest first:\n- N1 at 2027-01-15 09:00:00 UTC (in 1h): x"
    )
    assert "there is no pending notification 'N5'" in team.command(ada, "/cancel_notification N5")
    assert team.command(ada, "/cancel_notification 1") == "Cancelled N1: x"
    assert team.command(ada, "/notifications") == "You have no pending notifications."


def test_an_agent_that_stops_has_its_notifications_dropped_and_reported(
    retinue_team: TeamHarness, clock: ManualClock, ada: ActorAddress
) -> None:
    team = retinue_team
    team.say(
        ada,
        "\n".join(
            call_directive("schedule_notification", {"delay_seconds": s, "text": f"t{s}"})
            for s in (60, 120)
        ),
    )
    team.wait_idle(20)

    assert team.system.stop_actor(ada, timeout=10)
    team.wait_idle(20)

    dropped = events(team, "dropped")
    assert [(e.notification.id, e.reason) for e in dropped] == [
        ("N1", "its owner stopped"),
        ("N2", "its owner stopped"),
    ]
    clock.advance(300)
    team.wait_idle(20)
    assert events(team, "delivered") == []
    assert team_scheduler(team.system, team.orchestrator).proxy().get_state().pending == ()


def test_pending_notifications_are_checkpointed_and_a_resumed_team_gets_them(
    retinue_team: TeamHarness, ada: ActorAddress
) -> None:
    team = retinue_team
    team.say(ada, call_directive("schedule_notification", {"delay_seconds": 60, "text": "later"}))
    team.wait_idle(20)

    checkpoints = [
        m.state for m in team.of(StateChangedMessage) if isinstance(m.state, SchedulerState)
    ]
    saved = SchedulerState.model_validate(checkpoints[-1].model_dump())
    assert saved == checkpoints[-1]
    assert [n.text for n in saved.pending] == ["later"]

    resumed = TeamHarness(
        plugin_manager=get_plugin_manager(autoload=False, plugins=[retinue_notify.hooks])
    )
    try:
        clock = ManualClock(start=saved.pending[0].created_at + 30)
        scheduler = team_scheduler(resumed.system, resumed.orchestrator, clock=clock)
        scheduler.proxy().restore(saved)
        resumed.add(notifier("Ada"))
        clock.advance(30)
        resumed.wait_idle(20)
        assert [m.content for m in resumed.received_by("@Ada") if m.type == "notification"] == [
            "Notification N1, which you scheduled at 2027-01-15 08:00:00 UTC:\nlater"
        ]
        with pytest.raises(ValueError, match="restored only before"):
            scheduler.proxy().restore(saved)
    finally:
        assert resumed.shutdown()


def test_resume_team_brings_the_scheduler_back_and_delivers_what_fell_due_meanwhile(
    tmp_path: Path,
) -> None:
    pm = get_plugin_manager(autoload=False, plugins=[retinue_notify.hooks])
    path = tmp_path / "team.sqlite"
    first = TeamHarness(plugin_manager=pm, store=SQLiteStore(path))
    try:
        # The first run keeps time an hour behind the wall clock: by the resume, "in a minute"
        # and "in a minute and a half" have long passed, "in two hours" has not.
        clock = ManualClock(start=time.time() - 3600)
        team_scheduler(first.system, first.orchestrator, clock=clock)
        ada = first.add(notifier("Ada"))
        first.say(
            ada,
            "\n".join(
                call_directive("schedule_notification", {"delay_seconds": d, "text": t})
                for d, t in ((60, "first"), (90, "second"), (3 * 3600, "much later"))
            ),
        )
        first.wait_idle(20)
        team_id = first.team_id
    finally:
        assert first.shutdown()

    with SQLiteStore(path, create=False) as store:
        assert [m.name for m in store.members(team_id)] == ["@Human", "@Ada"]
        team = resume_team(store, team_id, plugin_manager=pm)
        try:
            team.wait_idle(20)
            with SQLiteStore(path, create=False) as reader:
                sent = [decode(r.data) for r in reader.read(team_id, kinds=["SentMessage"])]
            delivered = [
                m.message.content.splitlines()[-1]
                for m in sent
                if isinstance(m, SentMessage)
                and isinstance(m.message, AgentMessage)
                and m.message.type == "notification"
            ]
            assert delivered == ["first", "second"]
            handle = team_scheduler(team.system, team.orchestrator)
            assert isinstance(handle.clock, SystemClock)
            assert [n.text for n in handle.proxy().get_state().pending] == ["much later"]
        finally:
            assert team.shutdown()


def test_one_timer_thread_serves_a_team_on_the_wall_clock(retinue_team: TeamHarness) -> None:
    team = retinue_team
    ada = team.add(notifier("Ada"))
    bo = team.add(notifier("Bo"))
    for member in (ada, bo):
        team.say(
            member,
            "\n".join(
                call_directive("schedule_notification", {"delay_seconds": 3000 + s, "text": "x"})
                for s in range(5)
            ),
        )
    team.wait_idle(20)

    handle = team_scheduler(team.system, team.orchestrator)
    assert isinstance(handle.clock, SystemClock)
    assert len(handle.proxy().get_state().pending) == 10
    timers = [t for t in threading.enumerate() if t.name == "retinue-notify-timer"]
    assert len(timers) == 1


def test_a_running_scheduler_keeps_its_clock() -> None:
    system = ActorSystem()
    try:
        from retinue_notify import open_scheduler

        clock = ManualClock()
        first = open_scheduler(system, "solo", clock=clock)
        assert open_scheduler(system, "solo") is first
        with pytest.raises(RuntimeError, match="already running on another clock"):
            open_scheduler(system, "solo", clock=ManualClock())
    finally:
        system.shutdown()
