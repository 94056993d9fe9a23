"""`StubHost`: a card bound to it runs as plain calls; what it must not do fails the test."""

from __future__ import annotations

import pytest
from retinue import ActorAddress, AgentMessage, BaseConfig, ToolHost
from retinue.testing import StubHost

PEER = ActorAddress(name="@Peer", role="Peer")


def test_it_is_a_tool_host_named_as_given_outside_any_team() -> None:
    host = StubHost("@Ada")

    assert isinstance(host, ToolHost)
    assert (host.myAddress.name, host.myAddress.role) == ("@Ada", "Ada")
    assert (host.config.name, host.config.role) == ("@Ada", "Ada")
    assert host.team is None and host.orchestrator is None and host.system is None


def test_its_mailbox_is_peeked_at_and_consumed_as_the_kernels() -> None:
    first, second = AgentMessage(content="a", sender=PEER), AgentMessage(content="b")
    host = StubHost(PEER, pending=[first, second])

    assert host.peek_mailbox() == [first, second]
    assert host.consume_mailbox(lambda m: m.sender == PEER) == [first]
    assert host.pending == [second]


def test_it_keeps_events_and_refuses_what_a_card_under_test_must_not_do() -> None:
    host = StubHost("@Ada", team="a team view")
    host.notify_event("changed")

    assert host.events == ["changed"] and host.team == "a team view"
    with pytest.raises(AssertionError, match="sent AgentMessage to @Peer"):
        host.send(PEER, AgentMessage(content="hi"))
    with pytest.raises(AssertionError, match="hired @Dev directly"):
        host.createActor("Dev", BaseConfig(name="@Dev", role="Dev"))
