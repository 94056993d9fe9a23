"""What the plugin manager refuses, and that each refusal names what to fix.

The faulty plugins here are fake distributions written into a temporary site directory (see
conftest.py), so the errors carry the distribution names a user would see after
`pip install`.
"""

from __future__ import annotations

import re
from pathlib import Path
from types import ModuleType
from typing import Any, ClassVar, cast

import pluggy
import pytest
import retinue.plugins.manager as manager_module
from retinue import hookimpl
from retinue.plugins import (
    CardConflictError,
    PluginConflictError,
    PluginError,
    PluginLoadError,
    UnknownHookError,
    collect_capabilities,
    collect_card_classes,
    default_card_classes,
    get_plugin_manager,
    validate_plugins,
)
from retinue.tools.card import ToolCard

from tests.plugins.conftest import write_distribution

CARD_MODULE = """
    from typing import ClassVar
    from retinue import hookimpl
    from retinue.tools.card import ToolCard

    class {cls}(ToolCard):
        name: ClassVar[str] = {card!r}

    @hookimpl
    def retinue_tool_cards():
        return [{cls}]
"""


def _card_distribution(root: Path, dist: str, entry: str, card: str, version: str) -> None:
    module = f"{entry}_hooks"
    write_distribution(
        root,
        dist,
        version,
        entry_points={entry: module},
        modules={f"{module}.py": CARD_MODULE.format(cls=f"{entry.title()}Card", card=card)},
    )


def _plugin(name: str, **hooks: Any) -> ModuleType:
    """A plugin module made in code, holding the given (already decorated) functions."""
    module = ModuleType(name)
    for hook_name, function in hooks.items():
        setattr(module, hook_name, function)
    return module


def _cards_plugin(name: str, *cards: Any) -> ModuleType:
    @hookimpl
    def retinue_tool_cards() -> list[Any]:
        return list(cards)

    return _plugin(name, retinue_tool_cards=retinue_tool_cards)


class Alpha(ToolCard):
    name: ClassVar[str] = "alpha"
    default: ClassVar[bool] = True


class Beta(ToolCard):
    name: ClassVar[str] = "beta"


class Zeta(ToolCard):
    name: ClassVar[str] = "zeta"
    default: ClassVar[bool] = True


class OtherAlpha(ToolCard):
    name: ClassVar[str] = "alpha"


# -- card conflicts ------------------------------------------------------------------------


def test_two_distributions_with_one_card_name_is_an_error_naming_both(site_dir: Path) -> None:
    _card_distribution(site_dir, "retinue-dup-a", "dup_a", "dup", "1.0")
    _card_distribution(site_dir, "retinue-dup-b", "dup_b", "dup", "2.5")
    pm = get_plugin_manager()

    with pytest.raises(CardConflictError) as caught:
        collect_card_classes(pm)

    message = str(caught.value)
    assert "'dup'" in message
    assert "retinue-dup-a 1.0" in message
    assert "retinue-dup-b 2.5" in message
    assert "RETINUE_DISABLED_PLUGINS" in message


def test_blocking_one_of_two_conflicting_plugins_resolves_the_conflict(site_dir: Path) -> None:
    _card_distribution(site_dir, "retinue-dup-a", "dup_a", "dup", "1.0")
    _card_distribution(site_dir, "retinue-dup-b", "dup_b", "dup", "2.5")

    cards = collect_card_classes(get_plugin_manager(blocked=["dup_b"]))

    assert cards["dup"].__module__ == "dup_a_hooks"


def test_card_conflict_between_plugins_registered_in_code() -> None:
    pm = get_plugin_manager(
        autoload=False,
        plugins=[_cards_plugin("first", Alpha), _cards_plugin("second", OtherAlpha)],
    )

    with pytest.raises(CardConflictError, match=r"'alpha'.*'first'.*'second'"):
        collect_card_classes(pm)


def test_the_same_class_from_two_plugins_is_not_a_conflict() -> None:
    pm = get_plugin_manager(
        autoload=False, plugins=[_cards_plugin("first", Alpha), _cards_plugin("again", Alpha)]
    )

    assert collect_card_classes(pm) == {"alpha": Alpha}


def test_cards_are_keyed_by_name_in_name_order_and_defaults_filtered() -> None:
    pm = get_plugin_manager(
        autoload=False, plugins=[_cards_plugin("one", Zeta, Beta), _cards_plugin("two", Alpha)]
    )

    assert list(collect_card_classes(pm).items()) == [
        ("alpha", Alpha),
        ("beta", Beta),
        ("zeta", Zeta),
    ]
    assert default_card_classes(pm) == [Alpha, Zeta]


# -- hook contract -------------------------------------------------------------------------


def test_a_misspelt_hook_in_a_distribution_is_a_clear_error(site_dir: Path) -> None:
    write_distribution(
        site_dir,
        "retinue-typo",
        "0.3",
        entry_points={"typo": "typo_hooks"},
        modules={
            "typo_hooks.py": """
                from retinue import hookimpl

                @hookimpl
                def retinue_tool_card():
                    return []
            """
        },
    )

    with pytest.raises(UnknownHookError) as caught:
        get_plugin_manager()

    message = str(caught.value)
    assert "plugin 'typo'" in message
    assert "retinue-typo 0.3" in message
    assert "'retinue_tool_card'" in message
    assert "did you mean 'retinue_tool_cards'" in message


def test_a_misspelt_hook_in_code_is_a_clear_error() -> None:
    @hookimpl
    def retinue_capability(config: Any) -> list[Any]:
        return []

    with pytest.raises(UnknownHookError, match=r"plugin 'mine' \(registered in code\)"):
        get_plugin_manager(
            autoload=False, plugins=[_plugin("mine", retinue_capability=retinue_capability)]
        )


def test_an_optional_unknown_hook_is_allowed() -> None:
    @hookimpl(optionalhook=True)
    def retinue_future_hook() -> None:
        return None

    get_plugin_manager(
        autoload=False, plugins=[_plugin("forward", retinue_future_hook=retinue_future_hook)]
    )


def test_a_hook_function_without_hookimpl_is_a_clear_error() -> None:
    def retinue_tool_cards() -> list[Any]:
        return []

    with pytest.raises(PluginError, match=r"retinue_tool_cards\(\) without @hookimpl"):
        get_plugin_manager(
            autoload=False, plugins=[_plugin("bare", retinue_tool_cards=retinue_tool_cards)]
        )


def test_validate_plugins_can_be_rerun_after_manual_registration() -> None:
    pm = get_plugin_manager(autoload=False)

    @hookimpl
    def retinue_tool_cardz() -> list[Any]:
        return []

    pm.register(_plugin("late", retinue_tool_cardz=retinue_tool_cardz))
    with pytest.raises(UnknownHookError, match="late"):
        validate_plugins(pm)


def test_a_wrapper_on_a_collection_hook_is_refused() -> None:
    @hookimpl(wrapper=True)
    def retinue_tool_cards() -> Any:
        return (yield)

    with pytest.raises(PluginError, match="hook wrapper"):
        get_plugin_manager(
            autoload=False, plugins=[_plugin("wrap", retinue_tool_cards=retinue_tool_cards)]
        )


def test_a_hookimpl_asking_for_an_unknown_argument_fails_to_load(site_dir: Path) -> None:
    write_distribution(
        site_dir,
        "retinue-badargs",
        "1.0",
        entry_points={"badargs": "badargs_hooks"},
        modules={
            "badargs_hooks.py": """
                from retinue import hookimpl

                @hookimpl
                def retinue_capabilities(cfg):
                    return []
            """
        },
    )

    with pytest.raises(PluginLoadError, match=r"'badargs' from distribution retinue-badargs"):
        get_plugin_manager()


# -- loading -------------------------------------------------------------------------------


def test_a_plugin_that_fails_to_import_names_itself_and_the_way_out(site_dir: Path) -> None:
    write_distribution(
        site_dir,
        "retinue-broken",
        "0.1",
        entry_points={"broken": "broken_hooks"},
        modules={"broken_hooks.py": "import a_module_that_does_not_exist\n"},
    )

    with pytest.raises(PluginLoadError) as caught:
        get_plugin_manager()

    message = str(caught.value)
    assert "'broken'" in message
    assert "retinue-broken 0.1" in message
    assert "a_module_that_does_not_exist" in message
    assert "RETINUE_DISABLED_PLUGINS=broken" in message
    # ...and the way out works.
    get_plugin_manager(blocked=["broken"])


def test_one_entry_point_name_from_two_distributions_is_an_error(site_dir: Path) -> None:
    _card_distribution(site_dir, "retinue-same-a", "same", "same_a", "1.0")
    write_distribution(site_dir, "retinue-same-b", "1.0", entry_points={"same": "same_hooks"})

    with pytest.raises(PluginConflictError) as caught:
        get_plugin_manager()

    assert re.search(r"'same'.*retinue-same-a 1\.0.*retinue-same-b 1\.0", str(caught.value))


# -- what plugins return -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("returned", "expected"),
    [
        ([Alpha()], "not instances"),
        ([int], "expected ToolCard subclasses"),
        ("alpha", "expected a sequence"),
    ],
)
def test_a_card_hook_returning_the_wrong_thing_is_a_clear_error(
    returned: Any, expected: str
) -> None:
    @hookimpl
    def retinue_tool_cards() -> Any:
        return returned

    pm = get_plugin_manager(
        autoload=False, plugins=[_plugin("odd", retinue_tool_cards=retinue_tool_cards)]
    )
    with pytest.raises(PluginError, match=rf"plugin 'odd'.*{expected}"):
        collect_card_classes(pm)


def test_a_card_class_without_a_name_is_a_clear_error() -> None:
    class Nameless(ToolCard):
        pass

    pm = get_plugin_manager(autoload=False, plugins=[_cards_plugin("nameless", Nameless)])
    with pytest.raises(PluginError, match=r"plugin 'nameless'.*must set the class attribute"):
        collect_card_classes(pm)


def test_a_hook_that_raises_is_reported_with_its_plugin() -> None:
    @hookimpl
    def retinue_tool_cards() -> Any:
        raise RuntimeError("boom")

    pm = get_plugin_manager(
        autoload=False, plugins=[_plugin("boomer", retinue_tool_cards=retinue_tool_cards)]
    )
    with pytest.raises(PluginError, match=r"plugin 'boomer'.*RuntimeError: boom"):
        collect_card_classes(pm)


def test_capabilities_are_flattened_in_registration_order() -> None:
    from pydantic_ai.capabilities import AbstractCapability

    class Marker(AbstractCapability[Any]):
        def __init__(self, label: str) -> None:
            self.label = label

    def plugin(name: str, *labels: str) -> ModuleType:
        @hookimpl
        def retinue_capabilities(config: Any) -> list[Any]:
            return [Marker(f"{config}:{label}") for label in labels]

        return _plugin(name, retinue_capabilities=retinue_capabilities)

    @hookimpl
    def no_config() -> list[Any]:
        return []

    pm = get_plugin_manager(
        autoload=False,
        plugins=[
            plugin("first", "a", "b"),
            _plugin("silent", retinue_capabilities=no_config),
            plugin("second", "c"),
        ],
    )

    capabilities = collect_capabilities(pm, cast(Any, "cfg"))

    assert [c.label for c in capabilities] == ["cfg:a", "cfg:b", "cfg:c"]  # type: ignore[attr-defined]


def test_a_capability_hook_returning_a_non_capability_is_a_clear_error() -> None:
    @hookimpl
    def retinue_capabilities() -> list[Any]:
        return [object()]

    pm = get_plugin_manager(
        autoload=False, plugins=[_plugin("odd", retinue_capabilities=retinue_capabilities)]
    )
    with pytest.raises(PluginError, match=r"plugin 'odd'.*AbstractCapability"):
        collect_capabilities(pm, cast(Any, None))


# -- no global state -----------------------------------------------------------------------


def test_each_call_builds_a_new_manager_and_the_module_holds_none() -> None:
    first = get_plugin_manager(autoload=False)
    second = get_plugin_manager(autoload=False)

    assert first is not second
    assert not any(
        isinstance(value, pluggy.PluginManager) for value in vars(manager_module).values()
    )
