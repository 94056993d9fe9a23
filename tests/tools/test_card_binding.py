"""A configured card is a blueprint: each agent gets its own bound deep copy."""

from __future__ import annotations

import pickle
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

import pytest
from pydantic import ConfigDict, Field, ValidationError
from retinue import ConfigError
from retinue.actors.address import ActorAddress
from retinue.tools import (
    CardNotBoundError,
    Channel,
    ContextProvider,
    ToolCard,
    ToolFactory,
    ToolHost,
    card_name,
)

from tests.tools.fakes import FakeHost


class NotesCard(ToolCard):
    name: ClassVar[str] = "notes"

    notes: list[str] = Field(default_factory=list)

    def whoami(self) -> ActorAddress:
        return self.host.myAddress

    def add_note(self, text: str) -> None:
        self.notes.append(text)

    def get_tools(self) -> Sequence[Callable[..., Any]]:
        return [self.whoami]

    def get_commands(self) -> Sequence[Callable[..., Any]]:
        return [self.whoami, self.add_note]

    def get_context_states(self) -> Mapping[str, ContextProvider]:
        return {"notes": lambda: {str(i): n for i, n in enumerate(self.notes)}}


def test_fake_host_satisfies_the_protocol() -> None:
    assert isinstance(FakeHost("Ada"), ToolHost)


def test_bind_returns_a_bound_deep_copy_and_leaves_the_card_alone() -> None:
    card = NotesCard(notes=["keep"])
    host = FakeHost("Ada")
    bound = card.bind(host)
    assert bound is not card
    assert bound.host is host
    assert not card.is_bound
    assert bound.notes == card.notes
    assert bound.notes is not card.notes  # deep: fields are not shared
    bound.add_note("only Ada's")
    assert card.notes == ["keep"]


def test_unbound_card_says_clearly_that_it_has_no_agent() -> None:
    with pytest.raises(CardNotBoundError, match="not bound to an agent"):
        _ = NotesCard().host


def test_two_agents_with_one_configured_card_never_act_for_each_other() -> None:
    card = NotesCard()
    ada, bob = FakeHost("Ada"), FakeHost("Bob")
    ada_tools, bob_tools = ToolFactory([card], ada), ToolFactory([card], bob)

    ada_whoami = ada_tools.get_tools()[0]
    bob_whoami = bob_tools.get_tools()[0]
    assert callable(ada_whoami)
    assert callable(bob_whoami)
    assert ada_whoami() == ada.myAddress
    assert bob_whoami() == bob.myAddress

    ada_notes = ada_tools.get_context_states()["notes"]
    bob_notes = bob_tools.get_context_states()["notes"]
    ada_card = ada_tools.cards[0]
    assert isinstance(ada_card, NotesCard)
    ada_card.add_note("for Ada")
    assert ada_notes() == {"0": "for Ada"}
    assert bob_notes() == {}
    assert card.notes == []
    assert not card.is_bound


def test_binding_a_bound_card_does_not_carry_the_first_agent() -> None:
    ada, bob = FakeHost("Ada"), FakeHost("Bob")
    for_ada = NotesCard().bind(ada)
    for_bob = for_ada.bind(bob)
    assert for_ada.host is ada
    assert for_bob.host is bob
    assert not for_ada.model_copy(deep=True).is_bound


def test_pickled_card_leaves_its_agent_behind() -> None:
    bound = NotesCard(notes=["x"]).bind(FakeHost("Ada"))
    clone = pickle.loads(pickle.dumps(bound))
    assert clone.notes == ["x"]
    assert not clone.is_bound


def test_lifecycle_hooks_run_on_bind_and_unbind() -> None:
    events: list[tuple[str, str]] = []

    class LoggedNotes(NotesCard):
        def on_bind(self) -> None:
            events.append(("bind", self.host.myAddress.name))

        def on_unbind(self) -> None:
            events.append(("unbind", self.host.myAddress.name))

    factory = ToolFactory([LoggedNotes()], FakeHost("Ada"))
    assert events == [("bind", "Ada")]
    factory.close()
    assert events == [("bind", "Ada"), ("unbind", "Ada")]
    assert not factory.cards[0].is_bound
    factory.close()  # idempotent
    assert len(events) == 2


def test_frozen_card_can_still_be_bound() -> None:
    class Frozen(ToolCard):
        model_config = ConfigDict(frozen=True)
        name: ClassVar[str] = "frozen"
        root: str = "/tmp"

    bound = Frozen().bind(FakeHost("Ada"))
    assert bound.host.myAddress.name == "Ada"


def test_channels_are_empty_by_default_and_reported_by_override() -> None:
    class Bare(ToolCard):
        name: ClassVar[str] = "bare"

    bare = Bare().bind(FakeHost("Ada"))
    assert list(bare.get_tools()) == []
    assert list(bare.get_toolsets()) == []
    assert list(bare.get_system_prompts()) == []
    assert dict(bare.get_context_states()) == {}
    assert list(bare.get_commands()) == []
    assert Bare.channels() == frozenset()
    assert NotesCard.channels() == {Channel.TOOL_CALL, Channel.COMMAND, Channel.LLM_CONTEXT}


def test_card_config_rejects_unknown_fields() -> None:
    with pytest.raises(ValueError, match="nots"):
        NotesCard.model_validate({"nots": []})


def test_bad_settings_are_one_line_each_as_config_and_validation_error() -> None:
    with pytest.raises(ConfigError) as caught:
        NotesCard(notes="one", nots=[])  # type: ignore[call-arg]
    error = caught.value
    assert isinstance(error, ValidationError)  # what code written for pydantic cards catches
    assert str(error).splitlines() == [
        "NotesCard: notes: input should be a valid list (got 'one')",
        "NotesCard: nots: unknown field; did you mean 'notes'?",
    ]
    assert [e["loc"] for e in error.errors()] == [("notes",), ("nots",)]
    copy = pickle.loads(pickle.dumps(error))
    assert isinstance(copy, ValidationError) and str(copy) == str(error)
    assert copy.errors() == error.errors()


def test_card_name_requires_the_class_attribute() -> None:
    class Nameless(ToolCard):
        pass

    assert card_name(NotesCard) == "notes"
    assert card_name(NotesCard()) == "notes"
    with pytest.raises(TypeError, match="must set the class attribute `name`"):
        card_name(Nameless)
