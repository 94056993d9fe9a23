"""`read_mailbox` in real runs: mail is absorbed, cancels and operator commands are not."""

from __future__ import annotations

import mailbox_scripted
import pytest
from mailbox_scripted import MailArrivesDuringRead, Team, inbox
from retinue import AgentMessage, CancelMessage, HandledMessage, Message, SentMessage

READ = "call read_mailbox {}"


def _sent_ids(team: Team, content: str) -> list[str]:
    return [
        m.message.id
        for m in team.recorded()
        if isinstance(m, SentMessage)
        and isinstance(m.message, AgentMessage)
        and m.message.content == content
    ]


def _handled_ids(team: Team) -> set[str]:
    return {m.message_id for m in team.recorded() if isinstance(m, HandledMessage)}


def test_read_mailbox_absorbs_two_queued_messages_and_they_get_no_turn(team: Team) -> None:
    reader = team.agent("@Reader")
    peer = team.agent("@Peer")

    def mail_arrives() -> None:
        peer.send(reader, AgentMessage(content="First note", type="notification"))
        team.human.send(reader, AgentMessage(content="Second note"))

    mailbox_scripted.DURING_FIRST_REQUEST["@Reader"] = mail_arrives
    team.say(reader, f"{READ}\nsend @Human response: Read my mail.")
    team.system.wait_idle(20)

    assert mailbox_scripted.TOOL_RESULTS["@Reader"] == [
        "2 messages taken from your mailbox; they will not arrive again, so act on them now "
        "if they need it.\n\n"
        "1. From @Peer (notification):\nFirst note\n\n"
        "2. From @Human (request):\nSecond note"
    ]
    # One run of two model requests (the read, then the answer): the notes had no turn.
    assert len(mailbox_scripted.REQUESTS["@Reader"]) == 2
    assert inbox() == ["Read my mail."]
    absorbed = _sent_ids(team, "First note") + _sent_ids(team, "Second note")
    assert len(absorbed) == 2
    assert set(absorbed) <= _handled_ids(team)


def test_an_empty_mailbox_reads_as_empty(team: Team) -> None:
    reader = team.agent("@Reader")

    team.say(reader, f"{READ}\nsend @Human response: Nothing for me.")
    team.system.wait_idle(20)

    assert mailbox_scripted.TOOL_RESULTS["@Reader"] == ["Your mailbox is empty."]
    assert inbox() == ["Nothing for me."]


def test_the_read_leaves_an_operators_command_for_the_registry(team: Team) -> None:
    reader = team.agent("@Reader")

    def mail_arrives() -> None:
        team.human.send(reader, AgentMessage(content="A note"))
        team.human.send(reader, AgentMessage(content="/compact"))

    mailbox_scripted.DURING_FIRST_REQUEST["@Reader"] = mail_arrives
    team.say(reader, f"{READ}\nsend @Human response: Done.")
    team.system.wait_idle(20)

    [read] = mailbox_scripted.TOOL_RESULTS["@Reader"]
    assert read.startswith("1 message taken from your mailbox")
    assert "A note" in read
    assert "/compact" not in read
    answers = inbox()
    assert answers[0] == "Done."
    assert len(answers) == 2  # /compact was dispatched as a command after the run
    assert len(mailbox_scripted.REQUESTS["@Reader"]) == 2  # and never reached the model


@pytest.mark.parametrize("cancel", ["/stop", "CancelMessage"])
def test_a_cancel_queued_during_the_read_survives_it_and_still_cancels(
    team: Team, cancel: str
) -> None:
    reader = team.agent("@Reader", MailArrivesDuringRead)
    peer = team.agent("@Peer")
    stop: Message = AgentMessage(content="/stop") if cancel == "/stop" else CancelMessage()
    MailArrivesDuringRead.ARRIVALS = [
        (peer, AgentMessage(content="First note", type="notification")),
        (team.human, stop),
        (team.human, AgentMessage(content="Second note")),
    ]

    team.say(reader, f"{READ}\nsend @Human response: Finished.")
    team.system.wait_idle(20)

    taken = [m.content for m in MailArrivesDuringRead.TAKEN if isinstance(m, AgentMessage)]
    assert taken == ["First note", "Second note"]
    assert len(MailArrivesDuringRead.TAKEN) == 2  # the cancel was left in place ...
    assert inbox() == ["Run interrupted."]  # ... and it cancelled the run
    assert len(mailbox_scripted.REQUESTS["@Reader"]) == 1  # no answer, no turn for the notes
    assert not [m for m in team.recorded() if type(m).__name__ == "ErrorMessage"]
