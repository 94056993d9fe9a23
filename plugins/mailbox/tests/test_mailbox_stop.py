"""`/stop` as a command: announced to frontends, and answered when nothing runs."""

from __future__ import annotations

from retinue import CommandsAnnouncedEvent
from retinue.agent import NO_RUN_IN_PROGRESS
from retinue.testing import TeamHarness, scripted_card


def test_stop_with_no_run_in_progress_says_so(retinue_team: TeamHarness) -> None:
    team = retinue_team
    reader = team.add(scripted_card("Reader"))

    assert team.command(reader, "/stop", timeout=20) == NO_RUN_IN_PROGRESS
    assert team.model_requests("@Reader") == []  # the model never saw it


def test_stop_is_announced_with_the_agents_commands(retinue_team: TeamHarness) -> None:
    team = retinue_team
    team.add(scripted_card("Reader"))
    team.wait_idle(20)

    [announced] = team.events(CommandsAnnouncedEvent)
    stop = next(d for d in announced.commands if d.name == "stop")
    assert stop.owner == "mailbox"
    assert stop.usage == "/stop"
