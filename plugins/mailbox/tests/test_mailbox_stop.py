"""`/stop` as a command: announced to frontends, and answered when nothing runs."""

from __future__ import annotations

import mailbox_scripted
from mailbox_scripted import Team, inbox
from retinue import CommandsAnnouncedEvent, EventMessage
from retinue_mailbox import NO_RUN_IN_PROGRESS


def test_stop_with_no_run_in_progress_says_so(team: Team) -> None:
    reader = team.agent("@Reader")

    team.say(reader, "/stop")
    team.system.wait_idle(20)

    assert inbox() == [NO_RUN_IN_PROGRESS]
    assert mailbox_scripted.REQUESTS["@Reader"] == []  # the model never saw it


def test_stop_is_announced_with_the_agents_commands(team: Team) -> None:
    team.agent("@Reader")
    team.system.wait_idle(20)

    [announced] = [
        m.event
        for m in team.recorded()
        if isinstance(m, EventMessage) and isinstance(m.event, CommandsAnnouncedEvent)
    ]
    stop = next(d for d in announced.commands if d.name == "stop")
    assert stop.owner == "mailbox"
    assert stop.usage == "/stop"
