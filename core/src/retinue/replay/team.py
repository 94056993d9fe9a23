"""`replay_team`: a recorded team started again from its first records, answered by them."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal, TypedDict, Unpack

from retinue.actors.loader import add_import_folders
from retinue.actors.spawning import resolve_actor_class
from retinue.actors.system import ActorSystem
from retinue.replay.playing import Playback
from retinue.replay.report import ReplayReport
from retinue.replay.script import ReplayError, Script, read_script
from retinue.store import Store
from retinue.team.card import AgentCard

Tools = Literal["recorded", "live"]


class ReplayOptions(TypedDict, total=False):
    """How `replay_team` and `replay_script` play (see `replay_script`)."""

    lenient: bool
    tools: Tools
    record_to: Store | None
    cards: Iterable[AgentCard]
    timeout: float
    plugin_manager: Any


def replay_team(store: Store, team_id: str, **options: Unpack[ReplayOptions]) -> ReplayReport:
    """Replay team `team_id` of `store` offline; see `replay_script`."""
    return replay_script(read_script(store, team_id), **options)


def replay_script(
    script: Script,
    *,
    lenient: bool = False,
    tools: Tools = "recorded",
    record_to: Store | None = None,
    cards: Iterable[AgentCard] = (),
    timeout: float = 60.0,
    plugin_manager: Any = None,
) -> ReplayReport:
    """Start the recorded team anew (its orchestrator's config, its members' classes and
    configs) and play its script: every model answer from the record, by agent and in order;
    the person's messages as recorded; tools served from the record (`tools="live"`: run).

    Nothing is recorded unless `record_to` is given: a store the replay records into under a
    team id of its own (the recorded team is never written to). `cards`: role cards to use
    instead of the recorded ones, by role (what a changed prompt or tool would ask now: the
    record still answers, and says where the requests differ). `timeout` bounds each wait
    for the team to be idle. Raises `ReplayError` when the script names no team to start.
    """
    if script.team_config is None or script.team_class is None:
        raise ReplayError(f"{script.source} names no team to start: run it with a team file")
    if tools not in ("recorded", "live"):
        raise ValueError(f"tools is 'recorded' or 'live', got {tools!r}")
    add_import_folders(script.import_path)
    playback = Playback(script, lenient=lenient, live_tools=tools == "live", cards=cards)
    system = ActorSystem(store=record_to, plugin_manager=plugin_manager)
    try:
        orchestrator = system.createActor(
            resolve_actor_class(script.team_class), script.team_config
        )
        system.proxy_ask(orchestrator).subscribe(playback.answers)
        with playback.installed(orchestrator.team_id):
            playback.play(system, orchestrator, script.steps, timeout)
        team_id = orchestrator.team_id if record_to is not None else None
        return playback.report(team_id)
    finally:
        system.shutdown()
