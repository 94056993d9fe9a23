"""State checkpoints name the message that caused them, and come before that turn's error."""

from __future__ import annotations

from typing import Any

from pydantic import Field
from retinue.actors import (
    Actor,
    ActorAddress,
    BaseConfig,
    BaseState,
    ErrorMessage,
    Message,
    SentMessage,
    StateChangedMessage,
)


class Note(Message):
    text: str
    fail: bool = False


class Notes(BaseState):
    lines: list[str] = Field(default_factory=list)


class Scribe(Actor[BaseConfig, Notes]):
    """Writes each note into its state; fails after writing when told to."""

    def default_state(self) -> Notes:
        return Notes()

    def receiveMsg_Note(self, message: Note, sender: ActorAddress | None) -> None:
        self.state.lines.append(message.text)
        if message.fail:
            raise RuntimeError(f"could not file {message.text!r}")


def delivered(team: Any, text: str) -> Note:
    (note,) = [
        m.message
        for m in team.recorder.of(SentMessage)
        if isinstance(m.message, Note) and m.message.text == text
    ]
    return note


def checkpoints(team: Any, scribe: ActorAddress) -> list[StateChangedMessage]:
    return [m for m in team.recorder.of(StateChangedMessage) if m.sender == scribe]


def test_a_checkpoint_names_the_message_that_caused_it(team: Any) -> None:
    scribe = team.spawn(Scribe, "@Scribe")
    team.system.send(scribe, Note(text="first"))
    team.system.send(scribe, Note(text="second"))
    team.system.wait_idle(5)

    initial, first, second = checkpoints(team, scribe)
    assert initial.parent_id is None  # the start: no message caused it
    for checkpoint, text in ((first, "first"), (second, "second")):
        cause = delivered(team, text)
        assert isinstance(checkpoint.state, Notes)
        assert checkpoint.state.lines[-1] == text
        assert (checkpoint.parent_id, checkpoint.chain_id) == (cause.id, cause.chain_id)


def test_a_failing_turn_checkpoints_before_it_reports_its_error(team: Any) -> None:
    scribe = team.spawn(Scribe, "@Scribe")
    team.system.send(scribe, Note(text="doomed", fail=True))
    team.system.wait_idle(5)

    cause = delivered(team, "doomed")
    mine = [
        m
        for m in team.recorder.messages
        if m.sender == scribe and isinstance(m, StateChangedMessage | ErrorMessage)
    ]
    assert [type(m).__name__ for m in mine] == [
        "StateChangedMessage",  # the start
        "StateChangedMessage",  # what the failing turn left behind, first
        "ErrorMessage",
    ]
    checkpoint, error = mine[1], mine[2]
    assert isinstance(checkpoint, StateChangedMessage) and isinstance(error, ErrorMessage)
    assert isinstance(checkpoint.state, Notes)
    assert checkpoint.state.lines == ["doomed"]
    assert checkpoint.parent_id == cause.id == error.current_message_id
    assert checkpoint.chain_id == cause.chain_id
