"""The kernel calls plugin hooks through pluggy, one plugin at a time.

Going through pluggy means what pluggy offers around a call holds for retinue's hooks too:
`pm.enable_tracing()` and `pm.add_hookcall_monitoring()` see every call, and pluggy hands
each implementation the arguments it names. One plugin at a time means the kernel knows
which plugin returned what, and names it when something is wrong.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any, ClassVar, cast

import pytest
from pydantic_ai.capabilities import AbstractCapability
from retinue import hookimpl
from retinue.plugins import (
    PluginError,
    capabilities_by_plugin,
    collect_card_classes,
    get_plugin_manager,
)
from retinue.tools.card import ToolCard


class Alpha(ToolCard):
    name: ClassVar[str] = "alpha"


class Beta(ToolCard):
    name: ClassVar[str] = "beta"


class Marker(AbstractCapability[Any]):
    pass


def plugin(name: str, **hooks: Any) -> ModuleType:
    module = ModuleType(name)
    for hook_name, function in hooks.items():
        setattr(module, hook_name, function)
    return module


def cards_plugin(name: str, *cards: type[ToolCard]) -> ModuleType:
    @hookimpl
    def retinue_tool_cards() -> list[type[ToolCard]]:
        return list(cards)

    return plugin(name, retinue_tool_cards=retinue_tool_cards)


def capability_plugin(name: str) -> ModuleType:
    @hookimpl
    def retinue_capabilities() -> list[Any]:  # fewer arguments than the spec: allowed
        return [Marker()]

    return plugin(name, retinue_capabilities=retinue_capabilities)


def test_pluggy_monitoring_sees_one_call_per_plugin_in_registration_order() -> None:
    pm = get_plugin_manager(
        autoload=False,
        plugins=[
            cards_plugin("first", Alpha),
            capability_plugin("audit"),
            cards_plugin("second", Beta),
        ],
    )
    calls: list[tuple[str, list[str]]] = []

    def before(hook: str, impls: Any, kwargs: Any) -> None:
        calls.append((hook, [impl.plugin_name for impl in impls]))

    undo = pm.add_hookcall_monitoring(before, lambda *_: None)
    try:
        assert list(collect_card_classes(pm)) == ["alpha", "beta"]
        ((label, capability),) = capabilities_by_plugin(pm, cast(Any, None))
    finally:
        undo()

    assert calls == [
        ("retinue_tool_cards", ["first"]),
        ("retinue_tool_cards", ["second"]),
        ("retinue_capabilities", ["audit"]),
    ]
    assert isinstance(capability, Marker)
    assert label == "plugin 'audit' (registered in code)"


def test_a_hook_raising_inside_pluggy_is_reported_with_its_plugin_and_cause() -> None:
    @hookimpl
    def retinue_capabilities(config: Any) -> list[Any]:
        raise LookupError("no licence for " + str(config))

    pm = get_plugin_manager(
        autoload=False,
        plugins=[
            capability_plugin("fine"),
            plugin("licensed", retinue_capabilities=retinue_capabilities),
        ],
    )

    with pytest.raises(PluginError) as caught:
        capabilities_by_plugin(pm, cast(Any, "@Dev"))

    assert str(caught.value) == (
        "plugin 'licensed' (registered in code) failed in retinue_capabilities: "
        "LookupError: no licence for @Dev"
    )
    assert isinstance(caught.value.__cause__, LookupError)


def test_a_plugin_implementing_a_hook_twice_gives_both_answers() -> None:
    class TwoParts:
        """A plugin object whose cards come from two methods (pluggy's `specname`)."""

        @hookimpl
        def retinue_tool_cards(self) -> list[type[ToolCard]]:
            return [Alpha]

        @hookimpl(specname="retinue_tool_cards")
        def more_cards(self) -> list[type[ToolCard]]:
            return [Beta]

    pm = get_plugin_manager(autoload=False, plugins=[TwoParts()])

    assert collect_card_classes(pm) == {"alpha": Alpha, "beta": Beta}
