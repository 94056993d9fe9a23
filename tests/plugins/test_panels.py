"""`retinue_panels`: plugins offer read-only views of their state; frontends collect them.

A panel is fed a team's record like any subscriber, live or read back from a store, and says
what to show as plain data.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any, ClassVar

import pytest
from retinue import (
    AgentConfig,
    BaseAgent,
    Message,
    ModelConfig,
    Panel,
    PanelView,
    SentMessage,
    hookimpl,
)
from retinue.plugins import PluginError, collect_panel_classes, get_plugin_manager
from retinue.team.record_codec import decode
from retinue.testing import TeamHarness


class SaidPanel(Panel):
    """Who said how much: counts the messages each member sent."""

    name: ClassVar[str] = "said"
    title: ClassVar[str] = "Messages sent"
    kinds: ClassVar[frozenset[str]] = frozenset({"SentMessage"})

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}

    def on_message(self, message: Message) -> None:
        if isinstance(message, SentMessage) and message.sender is not None:
            name = message.sender.name
            self.counts[name] = self.counts.get(name, 0) + 1

    def view(self) -> PanelView:
        rows = [[name, str(count)] for name, count in sorted(self.counts.items())]
        return PanelView(columns=["member", "sent"], rows=rows, note=f"{len(rows)} members")


def _plugin(name: str, *panels: Any) -> ModuleType:
    @hookimpl
    def retinue_panels() -> list[Any]:
        return list(panels)

    module = ModuleType(name)
    module.retinue_panels = retinue_panels  # type: ignore[attr-defined]
    return module


def test_panels_are_collected_by_name_from_the_plugins() -> None:
    pm = get_plugin_manager(autoload=False, plugins=[_plugin("said_plugin", SaidPanel)])

    assert collect_panel_classes(pm) == {"said": SaidPanel}


def test_a_panel_folds_a_live_team_and_its_record_alike() -> None:
    team = TeamHarness(store=":memory:")
    agent = team.orchestrator_proxy.createActor(
        BaseAgent,
        AgentConfig(name="@Echo", role="Echo", model_cfg=ModelConfig(provider="test")),
    )
    live = SaidPanel()
    team.orchestrator_proxy.subscribe(live, replay=True)
    team.say(agent, "hello")
    team.wait_idle()
    store = team.system.store
    assert store is not None
    read_back = SaidPanel()
    for record in store.read(team.team_id, kinds=read_back.kinds):
        read_back.on_message(decode(record.data))
    team.shutdown()

    assert live.view() == read_back.view()
    assert live.view().rows[0] == ["@Human", "1"]


@pytest.mark.parametrize(
    ("returned", "problem"),
    [
        ([SaidPanel()], "expected Panel subclasses"),
        ([type("Nameless", (Panel,), {})], "has no name"),
    ],
)
def test_a_wrong_panel_is_refused_naming_the_plugin(returned: list[Any], problem: str) -> None:
    pm = get_plugin_manager(autoload=False, plugins=[_plugin("bad_panels", *returned)])

    with pytest.raises(PluginError, match=f"bad_panels.*{problem}"):
        collect_panel_classes(pm)


def test_two_panels_of_one_name_are_refused_naming_both() -> None:
    other = type("OtherSaid", (SaidPanel,), {})
    pm = get_plugin_manager(
        autoload=False, plugins=[_plugin("first", SaidPanel), _plugin("second", other)]
    )

    with pytest.raises(PluginError, match=r"panel .said. is provided twice: by .*first.*second"):
        collect_panel_classes(pm)
