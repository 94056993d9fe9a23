"""A resumed team keeps its task chains: stops, what a loop held, who delegated to whom.

Each team runs on a real SQLite file, is shut down, and comes back from the file alone; what
the person is told afterwards shows the ledger was rebuilt from the record.
"""

from __future__ import annotations

from typing import Any

from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models.function import AgentInfo
from retinue import AgentMessage, ChainMessageHeldEvent, ChainStoppedEvent, Orchestrator
from retinue.resume import ResumedTeam
from retinue.testing import TeamHarness, agent_name, incoming, scripted_card, send
from retinue.testing.team import Recorder

THANKER = f"{__name__}:thanker"
STOPPED = "Stopped @Manager's task (the work it handed on): @Manager and @Writer."


def thanker(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Thanks whoever wrote, forever (a loop the detector stops at its sixth message)."""
    got = incoming(messages)
    other = "@Beta" if agent_name(info) == "@Alpha" else "@Alpha"
    to = other if got.sender == "@Human" else got.sender
    return send(info, (to, "notification", f"Thank you so much, {to}! Really appreciated."))


def tell(team: ResumedTeam, recorder: Recorder, to: str, text: str) -> list[str]:
    """Send `text` to `@to` as the person; what the person is told in answer."""
    seen = len(recorder.messages)
    team.send(text, to=team.roster[to])
    team.system.wait_idle(60)
    sent = [getattr(m, "message", None) for m in recorder.messages[seen:]]
    return [m.content for m in sent if isinstance(m, AgentMessage) and m.recipient == team.human]


def ledger_of(team: ResumedTeam) -> Any:
    orchestrator = team.system.local_actor(team.orchestrator)
    assert isinstance(orchestrator, Orchestrator)
    return orchestrator.chain_ledger


def test_a_loop_stop_and_the_message_it_held_survive_a_resume(where: str, resumed: Any) -> None:
    first = TeamHarness(store=where)
    alpha = first.add(scripted_card("Alpha", THANKER))
    first.add(scripted_card("Beta", THANKER))
    first.say(alpha, "say thanks to @Beta")
    first.wait_idle(60)
    (stopped,) = first.events(ChainStoppedEvent)
    (held,) = first.events(ChainMessageHeldEvent)
    assert (held.chain_id, held.message.sender.name) == (stopped.stop.chain_id, "@Beta")
    assert first.shutdown(10)

    team, recorder = resumed(first.team_id)

    assert ledger_of(team).stop_of(stopped.stop.chain_id) == stopped.stop
    (answer, *_) = tell(team, recorder, "@Alpha", "/continue")
    assert answer.startswith("Continued the task stopped as a loop at ")
    assert answer.endswith("(1 held message delivered).")


def test_a_stop_made_before_the_resume_still_closes_its_chain(where: str, resumed: Any) -> None:
    first = TeamHarness(store=where)
    manager = first.add(scripted_card("Manager"))
    first.add(scripted_card("Writer"))
    first.say(manager, "send @Writer request: write the report")
    first.wait_idle(60)
    answer = first.command(manager, "/stop")
    assert answer.startswith(STOPPED)
    (stopped,) = first.events(ChainStoppedEvent)
    assert first.shutdown(10)

    team, recorder = resumed(first.team_id)

    ledger = ledger_of(team)
    assert ledger.is_stopped(stopped.stop.chain_id, "@Writer")
    (answer,) = tell(team, recorder, "@Manager", "/continue")
    assert answer == (
        "Continued the task stopped by @Human (nothing was held, so write to its members to "
        "give them work again)."
    )
    assert not ledger.is_stopped(stopped.stop.chain_id, "@Writer")


def test_a_stop_after_the_resume_reaches_the_work_handed_on_before_it(
    where: str, resumed: Any
) -> None:
    first = TeamHarness(store=where)
    manager = first.add(scripted_card("Manager"))
    first.add(scripted_card("Writer"))
    first.say(manager, "send @Writer request: write the report")
    first.wait_idle(60)
    assert first.shutdown(10)

    team, recorder = resumed(first.team_id)

    (answer,) = tell(team, recorder, "@Manager", "/stop")
    assert answer.startswith(STOPPED)
