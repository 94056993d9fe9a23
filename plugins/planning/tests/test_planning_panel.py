"""The board as a frontend's panel: folded from the record's planning events, live or read
back from a store, open tasks first."""

from __future__ import annotations

from retinue.plugins import collect_panel_classes, get_plugin_manager
from retinue.team.record_codec import decode
from retinue.testing import TeamHarness
from retinue_planning import NewTask, TaskChanges, team_board
from retinue_planning import hooks as planning_hooks
from retinue_planning.panel import PlanningPanel


def test_the_panel_shows_the_board_from_a_live_team_and_from_its_record() -> None:
    team = TeamHarness(store=":memory:")
    live = PlanningPanel()
    team.orchestrator_proxy.subscribe(live, replay=True)
    board = team_board(team.system, team.orchestrator).proxy()
    board.create_tasks(
        [NewTask(title="Design"), NewTask(title="Build", owner="@Dev", depends_on=["T1"])],
        author="@Lead",
    )
    board.update_task("T1", TaskChanges(status="done"), author="@Lead")
    board.update_task("T2", TaskChanges(status="doing"), author="@Dev")
    team.wait_idle()
    store = team.system.store
    assert store is not None
    read_back = PlanningPanel()
    for record in store.read(team.team_id, kinds=PlanningPanel.kinds):
        read_back.on_message(decode(record.data))
    team.shutdown()

    view = live.view()
    assert view == read_back.view()
    assert view.columns == ["task", "status", "title", "owner", "after"]
    assert view.rows == [
        ["T2", "doing", "Build", "@Dev", "T1"],
        ["T1", "done", "Design", "-", "-"],
    ]
    assert view.note == "2 tasks, 1 open; board version 4"


def test_the_plugin_offers_the_panel() -> None:
    pm = get_plugin_manager(autoload=False, plugins=[planning_hooks])

    assert collect_panel_classes(pm) == {"planning": PlanningPanel}
    assert PlanningPanel().view().note == "no tasks yet"
