"""`Message.addressed`: the one place addressing is written, on a copy."""

from __future__ import annotations

import pickle

from pydantic import PrivateAttr
from retinue.actors.address import ActorAddress
from retinue.actors.messages import HandledMessage, Message, SentMessage
from retinue.team.record_codec import decode, encode

A = ActorAddress(name="@A", role="A", team_id="t1")
B = ActorAddress(name="@B", role="B", team_id="t1")


def test_a_copy_is_addressed_and_the_message_is_left_as_it_was() -> None:
    message = HandledMessage(message_id="m")
    report = message.addressed(A, B, "t1", parent_id="p", chain_id="c")
    assert report is not message
    assert (message.sender, message.recipient, message.team_id) == (None, None, None)
    assert (message.parent_id, message.chain_id) == (None, None)
    assert (report.sender, report.recipient, report.team_id) == (A, B, "t1")
    assert (report.id, report.parent_id, report.chain_id) == (message.id, "p", "c")
    assert report.timestamp == message.timestamp
    assert report.message_id == "m"
    assert type(report) is HandledMessage


def test_its_own_parent_chain_and_trace_win() -> None:
    message = Message(parent_id="own-p", chain_id="own-c", trace_context={"traceparent": "x"})
    sent = message.addressed(
        A, B, "t1", parent_id="p", chain_id="c", trace_context={"traceparent": "y"}, fresh=True
    )
    assert (sent.parent_id, sent.chain_id) == ("own-p", "own-c")
    assert sent.trace_context == {"traceparent": "x"}


def test_fresh_gets_a_new_id_and_opens_a_chain_only_when_it_has_none() -> None:
    message = Message()
    sent = message.addressed(None, B, "t1", fresh=True)
    assert sent.id != message.id
    assert sent.chain_id == sent.id
    assert message.addressed(None, B, "t1", chain_id="c", fresh=True).chain_id == "c"
    assert message.addressed(A, B, "t1").chain_id is None  # a report opens no chain


def test_an_addressed_message_pickles_dumps_and_decodes_as_one_built_whole() -> None:
    inner = Message().addressed(A, B, "t1", fresh=True)
    sent = SentMessage(message=inner).addressed(
        A, B, "t1", parent_id=inner.parent_id, chain_id=inner.chain_id
    )
    whole = SentMessage(
        id=sent.id,
        message=inner,
        sender=A,
        recipient=B,
        team_id="t1",
        chain_id=inner.chain_id,
        timestamp=sent.timestamp,
    )
    assert sent == whole
    assert sent.model_dump() == whole.model_dump()
    assert pickle.loads(pickle.dumps(sent)) == sent
    assert decode(encode(sent)) == sent
    sent.team_id = "t2"  # still a model like any other: assignment works
    assert sent.team_id == "t2"


class _Noted(Message):
    _note: str = PrivateAttr(default="")


def test_private_attributes_are_copied_too() -> None:
    message = _Noted()
    message._note = "kept"
    report = message.addressed(A, B, "t1")
    assert report._note == "kept"
    assert report.recipient == B
    assert message.recipient is None
