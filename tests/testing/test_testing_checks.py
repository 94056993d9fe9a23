"""`check_plugin_card` passes a plugin whose card is as its test says, and names each slip."""

from __future__ import annotations

from collections.abc import Sequence
from types import ModuleType
from typing import Any, ClassVar

import pytest
from pydantic import Field
from retinue import Channel, ToolCard, hookimpl
from retinue.testing import PingTool, check_plugin_card, loads_model_stack

CHANNELS = [Channel.TOOL_CALL]


class DefaultPing(PingTool):
    """A ping every agent gets."""

    name: ClassVar[str] = "default_ping"
    default: ClassVar[bool] = True
    times: int = 1


def hooks_offering(*cards: type[ToolCard], stray: bool = False) -> ModuleType:
    """A plugin's hooks module offering `cards`; with `stray`, a helper that is no hook too."""
    module = ModuleType("checked_hooks")

    @hookimpl
    def retinue_tool_cards() -> Sequence[type[ToolCard]]:
        return list(cards)

    def helper() -> None:
        """Belongs in another module."""

    for function in [retinue_tool_cards, helper] if stray else [retinue_tool_cards]:
        function.__module__ = module.__name__
        setattr(module, function.__name__, function)
    return module


def test_a_card_as_expected_passes() -> None:
    check_plugin_card(hooks_offering(PingTool), PingTool(), name="ping", channels=CHANNELS)
    check_plugin_card(
        hooks_offering(DefaultPing),
        DefaultPing(times=3),
        name="default_ping",
        channels={Channel.TOOL_CALL},
        default=True,
    )


@pytest.mark.parametrize(
    ("hooks", "expected", "said"),
    [
        (hooks_offering(PingTool), {"name": "pong"}, "name is 'ping', not 'pong'"),
        (hooks_offering(PingTool), {"default": True}, "default is False, not True"),
        (
            hooks_offering(PingTool),
            {"channels": [Channel.TOOL_CALL, Channel.COMMAND]},
            "channels is {<Channel.TOOL_CALL: 'tool_call'>}, not",
        ),
        (
            hooks_offering(PingTool, stray=True),
            {},
            "functions of the hooks module is ['helper', 'retinue_tool_cards'], not",
        ),
        (hooks_offering(PingTool, DefaultPing), {}, "retinue_tool_cards() is [<class"),
    ],
    ids=["name", "default", "channels", "a stray function", "a second card"],
)
def test_each_slip_is_named(hooks: ModuleType, expected: dict[str, Any], said: str) -> None:
    wanted: dict[str, Any] = {"name": "ping", "channels": CHANNELS, **expected}

    with pytest.raises(AssertionError, match=r"^PingTool: ") as failure:
        check_plugin_card(hooks, PingTool(), **wanted)

    assert said in str(failure.value)


class Forgetful(PingTool):
    """Leaves its setting out of its dump: a team file or a resume would lose it."""

    name: ClassVar[str] = "forgetful"
    times: int = Field(default=1, exclude=True)


def test_a_card_that_does_not_come_back_equal_is_named() -> None:
    with pytest.raises(AssertionError) as failure:
        check_plugin_card(
            hooks_offering(Forgetful), Forgetful(times=3), name="forgetful", channels=CHANNELS
        )

    said = str(failure.value)
    for part in ("card from its dump", "card from its JSON", "config from its JSON"):
        assert part in said
    assert "name is" not in said and "channels is" not in said


def test_a_module_that_imports_pydantic_ai_is_told_apart() -> None:
    assert not loads_model_stack("retinue")
    assert loads_model_stack("pydantic_ai")
