"""A proxy reaches what a member holds: `proxy(address).command_registry.descriptors()`."""

from __future__ import annotations

import pytest
from agent_cards import card
from retinue import CommandDescriptor
from retinue.testing import TeamHarness


def test_the_command_registry_works_through_a_proxy(retinue_team: TeamHarness) -> None:
    team = retinue_team
    worker = team.add(card("Worker", "silent"))
    proxy = team.proxy(worker)

    descriptors = proxy.command_registry.descriptors()
    assert all(isinstance(d, CommandDescriptor) for d in descriptors)
    assert {"compact", "clear"} <= {d.name for d in descriptors}
    assert proxy.command_registry.has("clear") is True
    assert proxy.command_registry.dispatch("/compact") == "Nothing to compact."
    registry = proxy.command_registry  # kept and used later, as a value would be
    assert registry.has("no_such_command") is False


def test_a_tell_proxy_reaches_the_registry_too(retinue_team: TeamHarness) -> None:
    team = retinue_team
    worker = team.add(card("Worker", "developer"))
    team.say(worker, "plan please")
    team.wait_idle()
    assert "plan please" in team.proxy(worker).get_context_transcript()

    team.system.proxy_tell(worker).command_registry.dispatch("/clear")
    team.wait_idle()
    assert "plan please" not in team.proxy(worker).get_context_transcript()


def test_private_and_missing_names_are_refused(retinue_team: TeamHarness) -> None:
    team = retinue_team
    proxy = team.proxy(team.add(card("Worker", "silent")))
    with pytest.raises(AttributeError):
        proxy.command_registry._commands  # noqa: B018 -- the access itself must fail
    with pytest.raises(AttributeError, match=r"no public method 'no_such_thing\.items'"):
        proxy.no_such_thing.items()
    with pytest.raises(AttributeError, match="has no attribute 'nothing_here'"):
        proxy.command_registry.nothing_here()
