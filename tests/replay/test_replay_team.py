"""`replay_team` on real SQLite files: a manager and two members recorded on scripted models,
then run again with every answer and tool result served from the record."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models.function import AgentInfo
from retinue import AgentCard, PromptTemplate
from retinue.store import open_store
from retinue.testing import TeamHarness, replay_team, scripted_card

from tests.replay.team_scripts import EXPLODE, manager, reviewer, writer

workspace = pytest.importorskip("retinue_workspace", reason="the writer needs retinue-workspace")

Script = Callable[[list[ModelMessage], AgentInfo], ModelResponse]


def counted(script: Script, calls: list[str]) -> Script:
    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        calls.append(script.__name__)
        return script(messages, info)

    return model


def cards(files: Path) -> list[AgentCard]:
    tool = workspace.WorkspaceTool(root=files, per_team=False)
    return [
        scripted_card("Manager", EXPLODE),
        scripted_card("Writer", EXPLODE, tools=[tool]),
        scripted_card("Reviewer", EXPLODE),
    ]


def record(where: Path, files: Path, calls: list[str]) -> str:
    """A person asks the manager; the writer writes a file; the reviewer reads the result."""
    team = TeamHarness(store=str(where))
    scripts = {"Manager": manager, "Writer": writer, "Reviewer": reviewer}
    members = [team.add(card, model=counted(scripts[card.role], calls)) for card in cards(files)]
    team.say(members[0], "the release notes")
    team.wait_idle()
    assert team.shutdown()
    return team.team_id


@pytest.fixture
def recorded(tmp_path: Path) -> tuple[Path, Path, str, list[str]]:
    where, files = tmp_path / "team.sqlite", tmp_path / "files"
    calls: list[str] = []
    team_id = record(where, files, calls)
    assert (files / "notes.txt").read_text() == "Write: the release notes"
    assert len(calls) == 6  # the manager thrice, the writer twice (a tool, an answer), a review
    (files / "notes.txt").unlink()
    return where, files, team_id, calls


def test_a_replay_asks_every_recorded_request_gives_the_same_answers_and_touches_nothing(
    recorded: tuple[Path, Path, str, list[str]],
) -> None:
    where, files, team_id, calls = recorded
    before = list(calls)
    with open_store(where, create=False) as store:
        report = replay_team(store, team_id)
        assert [t.team_id for t in store.list_teams()] == [team_id]  # recorded nowhere
    assert report.ok, report.render()
    assert (report.turns, report.replayed, report.equal, report.differing) == (6, 6, 6, 0)
    assert [a.content for a in report.answers] == [
        "Done: reviewed (Review: Created notes.txt (24 bytes, 1 line).)"
    ]
    assert report.answers == report.recorded_answers
    assert calls == before  # no scripted model was asked, nor the cards' exploding one
    assert not (files / "notes.txt").exists()  # the write was served from the record


def test_live_tools_run_and_a_replay_may_record_into_a_team_of_its_own(
    recorded: tuple[Path, Path, str, list[str]],
) -> None:
    where, files, team_id, _ = recorded
    with open_store(where, create=False) as store:
        before = [r.data for r in store.read(team_id)]
        report = replay_team(store, team_id, tools="live", record_to=store)
        assert report.ok, report.render()
        assert report.team_id is not None and report.team_id != team_id
        assert [r.data for r in store.read(team_id)] == before  # the original is untouched
        assert store.team(report.team_id) is not None
    assert (files / "notes.txt").read_text() == "Write: the release notes"


def test_a_changed_prompt_stops_the_replay_at_its_first_request_with_a_diff(
    recorded: tuple[Path, Path, str, list[str]],
) -> None:
    where, _, team_id, _ = recorded
    card = scripted_card("Reviewer", EXPLODE)
    config = card.config.model_copy(update={"prompt": PromptTemplate(template="Be harsh.")})
    changed = AgentCard(**{**dict(card), "config": config})
    with open_store(where, create=False) as store:
        strict = replay_team(store, team_id, cards=[changed])
        lenient = replay_team(store, team_id, cards=[changed], lenient=True)

    assert strict.stopped and not strict.ok
    (difference,) = strict.differences
    assert (difference.agent, difference.turn, difference.what) == ("@Reviewer", 1, "instructions")
    text = strict.render()
    assert "@Reviewer turn 1: the instructions differ" in text
    assert "-You are the team's Reviewer." in text and "+Be harsh." in text
    assert not strict.same_answers  # the manager never heard back: the person got no "Done"
    assert not any(answer.content.startswith("Done") for answer in strict.answers)

    assert not lenient.stopped and not lenient.ok
    assert [(d.agent, d.turn) for d in lenient.differences] == [("@Reviewer", 1)]
    assert (lenient.replayed, lenient.equal, lenient.differing) == (6, 5, 1)
    assert lenient.same_answers  # the recorded answers were served all the same
