"""ToolFactory: binds an agent's cards and serves each channel once."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

import pytest
from pydantic_ai import Tool
from pydantic_ai.toolsets import FunctionToolset
from retinue.tools import (
    ContextProvider,
    ContextUpdater,
    DuplicateContextProviderError,
    DuplicateToolCardError,
    ToolCard,
    ToolFactory,
    ToolState,
)

from tests.tools.fakes import FakeHost


def roster() -> str:
    """Who is on the team."""
    return "Ada, Bob"


class RosterCard(ToolCard):
    name: ClassVar[str] = "roster"

    def get_tools(self) -> Sequence[Tool[Any] | Callable[..., Any]]:
        return [Tool(roster)]

    def get_toolsets(self) -> Sequence[FunctionToolset[Any]]:
        return [FunctionToolset([roster])]

    def get_system_prompts(self) -> Sequence[str | Callable[[], str]]:
        return ["You work in a team."]

    def get_context_states(self) -> Mapping[str, ContextProvider]:
        return {"roster": lambda: {"Ada": "Developer"}}

    def get_commands(self) -> Sequence[Callable[..., Any]]:
        return [self.team_members]

    def team_members(self) -> str:
        return "Ada"


class DateCard(ToolCard):
    name: ClassVar[str] = "date"

    def get_system_prompts(self) -> Sequence[str | Callable[[], str]]:
        return [lambda: "Today is Monday."]

    def get_context_states(self) -> Mapping[str, ContextProvider]:
        return {"calendar": lambda: "nothing planned"}


class ClashingCard(ToolCard):
    name: ClassVar[str] = "clash"

    def get_context_states(self) -> Mapping[str, ContextProvider]:
        return {"roster": lambda: "another roster"}


def test_each_channel_is_collected_once_in_card_order() -> None:
    calls: dict[str, int] = {}

    def count(channel: str) -> None:
        calls[channel] = calls.get(channel, 0) + 1

    class CountedRoster(RosterCard):
        def get_tools(self) -> Sequence[Tool[Any] | Callable[..., Any]]:
            count("tools")
            return super().get_tools()

        def get_toolsets(self) -> Sequence[FunctionToolset[Any]]:
            count("toolsets")
            return super().get_toolsets()

        def get_system_prompts(self) -> Sequence[str | Callable[[], str]]:
            count("prompts")
            return super().get_system_prompts()

        def get_context_states(self) -> Mapping[str, ContextProvider]:
            count("states")
            return super().get_context_states()

    factory = ToolFactory([CountedRoster(), DateCard()], FakeHost("Ada"))
    for _ in range(2):
        tools = factory.get_tools()
        toolsets = factory.get_toolsets()
        prompts = factory.get_system_prompts()
        states = factory.get_context_states()
    assert calls == {"tools": 1, "toolsets": 1, "prompts": 1, "states": 1}
    assert [t.name for t in tools if isinstance(t, Tool)] == ["roster"]
    assert len(toolsets) == 1
    assert prompts[0] == "You work in a team."
    assert callable(prompts[1])
    assert list(states) == ["roster", "calendar"]
    assert factory.get_tools() is tools


def test_collected_context_states_are_read_only() -> None:
    states = ToolFactory([DateCard()], FakeHost("Ada")).get_context_states()
    with pytest.raises(TypeError):
        states["x"] = lambda: "x"  # type: ignore[index]


def test_duplicate_provider_names_are_a_clear_error() -> None:
    factory = ToolFactory([RosterCard(), ClashingCard()], FakeHost("Ada"))
    with pytest.raises(DuplicateContextProviderError, match=r"'roster'.*'roster'.*'clash'"):
        factory.get_context_states()


def test_one_card_name_twice_is_an_error() -> None:
    with pytest.raises(DuplicateToolCardError, match="'roster' is given twice"):
        ToolFactory([RosterCard(), RosterCard()], FakeHost("Ada"))


class ServerCard(ToolCard):
    """A card an agent may hold once per server: its key names the server."""

    name: ClassVar[str] = "server"
    server: str

    def card_key(self) -> str:
        return f"server:{self.server}"


def test_cards_told_apart_by_their_key_may_share_a_name() -> None:
    factory = ToolFactory([ServerCard(server="a"), ServerCard(server="b")], FakeHost("Ada"))
    assert [card.card_key() for card in factory.cards] == ["server:a", "server:b"]
    with pytest.raises(DuplicateToolCardError, match="'server:a' is given twice"):
        ToolFactory([ServerCard(server="a"), ServerCard(server="a")], FakeHost("Ada"))


def test_a_failing_bind_unbinds_the_cards_already_bound() -> None:
    released: list[str] = []

    class Releasing(ToolCard):
        name: ClassVar[str] = "releasing"

        def on_unbind(self) -> None:
            released.append(self.host.myAddress.name)

    class Broken(ToolCard):
        name: ClassVar[str] = "broken"

        def on_bind(self) -> None:
            raise RuntimeError("no disk")

    with pytest.raises(RuntimeError, match="no disk"):
        ToolFactory([Releasing(), Broken()], FakeHost("Ada"))
    assert released == ["Ada"]


def test_context_updater_is_built_once_and_reads_the_host_slot_afresh() -> None:
    host = FakeHost("Ada")
    factory = ToolFactory([DateCard()], host)
    updater = factory.get_context_updater()
    assert isinstance(updater, ContextUpdater)
    assert factory.get_context_updater() is updater
    assert list(updater.providers) == ["calendar"]

    host.state = type(host.state)(tool_state=ToolState(last_block=41))  # a restore
    block = updater.compose([])
    assert block is not None
    assert block.content.startswith("**Context update 42** — current state.")
    assert host.state.tool_state.last_block == 42


def test_context_updater_needs_a_tool_state_slot() -> None:
    host = FakeHost("Ada")
    host.state = type(host.state).__base__()  # type: ignore[misc]
    updater = ToolFactory([DateCard()], host).get_context_updater()
    with pytest.raises(TypeError, match="tool_state"):
        updater.compose([])


def test_command_registry_holds_card_commands_and_built_ins() -> None:
    pytest.importorskip("retinue.tools.commands")
    host = FakeHost("Ada")
    factory = ToolFactory([RosterCard()], host)

    def clear() -> str:
        return "cleared"

    registry = factory.get_command_registry(extra_commands=[clear])
    assert registry.has("team_members")
    assert registry.has("clear")
    assert registry.callable("team_members")() == "Ada"
    assert factory.get_command_registry() is registry
    with pytest.raises(RuntimeError, match="already built"):
        factory.get_command_registry(extra_commands=[print])
