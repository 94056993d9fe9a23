"""An actor's remote surface: only methods marked `@remote` are called by name.

Real actors in a real `ActorSystem`: asks, tells and proxies reach the marked methods (on the
class or a base, through a marked property too) and are refused anything else with one line
naming the method and the mark, before the actor runs any of it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from retinue import ActorSystem, BaseAgent, remote
from retinue.actors import Actor, BaseConfig
from retinue.actors.surface import remote_surface
from retinue.testing import TeamHarness, scripted_card


class Log:
    """What the actor was asked to do; read by the test through a marked property."""

    def __init__(self) -> None:
        self.entries: list[str] = []

    def add(self, entry: str) -> None:
        self.entries.append(entry)

    def count(self) -> int:
        return len(self.entries)


class Vault(Actor[BaseConfig, Any]):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.log = Log()
        self.opened = False

    @remote
    def deposit(self, what: str) -> str:
        self.log.add(what)
        return f"kept {what}"

    def open_up(self) -> None:
        """Public, but for this actor's own use: not offered."""
        self.opened = True

    @property
    @remote
    def ledger(self) -> Log:
        return self.log

    @property
    def secrets(self) -> Log:
        return self.log


class SubVault(Vault):
    def deposit(self, what: str) -> str:  # an override stays on the surface
        return super().deposit(what.upper())


@pytest.fixture
def system() -> Iterator[ActorSystem]:
    system = ActorSystem()
    yield system
    assert system.shutdown(10)


def test_a_marked_method_is_called_by_name_and_an_unmarked_one_is_refused_unrun(
    system: ActorSystem,
) -> None:
    vault = system.createActor(Vault, BaseConfig(name="@Vault"))
    proxy = system.proxy_ask(vault, Vault)
    assert proxy.deposit("gold") == "kept gold"
    assert system.ask(vault, "deposit", "silver") == "kept silver"
    refusal = (
        "Vault.open_up is not offered to other actors: a method called by name is marked "
        "@remote (retinue.remote)"
    )
    with pytest.raises(AttributeError) as asked:
        proxy.open_up()
    assert str(asked.value) == refusal
    for call in (
        lambda: system.tell(vault, "open_up"),
        lambda: system.ask_future(vault, "open_up"),
        lambda: system.ask(vault, "stop"),  # the runtime's own: `stop_actor` stops an actor
    ):
        with pytest.raises(AttributeError, match="is not offered to other actors"):
            call()
    system.wait_idle(5)
    actor = system.local_actor(vault)
    assert isinstance(actor, Vault) and actor.opened is False
    assert actor.log.entries == ["gold", "silver"]


def test_a_marked_property_leads_on_and_an_unmarked_one_does_not(system: ActorSystem) -> None:
    vault = system.createActor(Vault, BaseConfig(name="@Vault"))
    proxy = system.proxy_ask(vault, Vault)
    proxy.ledger.add("a note")
    assert proxy.ledger.count() == 1
    with pytest.raises(AttributeError, match=r"Vault\.secrets is not offered"):
        proxy.secrets.count()


def test_an_override_keeps_its_base_classs_mark(system: ActorSystem) -> None:
    vault = system.createActor(SubVault, BaseConfig(name="@Sub"))
    assert system.proxy_ask(vault, SubVault).deposit("gold") == "kept GOLD"
    assert remote_surface(SubVault) == {"deposit", "ledger", "send", "on_team_resumed"}  # + Actor's


def test_an_agent_offers_its_queries_not_its_run_controls(retinue_team: TeamHarness) -> None:
    team = retinue_team
    worker = team.add(scripted_card("Worker"))
    proxy = team.system.proxy_ask(worker, BaseAgent)
    assert proxy.get_usage_summary().runs == 0
    assert proxy.command_registry.has("compact")
    for name in ("interrupt_run", "drop_chain_mail", "act", "stop"):
        with pytest.raises(AttributeError, match=f"BaseAgent.{name} is not offered"):
            team.system.ask(worker, name)
