"""A resumed team's `A2AMember` goes on in its remote conversation: the same A2A context,
and a question the remote asked before the restart answered in its own task (a real SQLite
record, a real a2a-sdk agent on 127.0.0.1)."""

from __future__ import annotations

from pathlib import Path

from a2a_helpers import TIMEOUT
from plain_agent import PlainExecutor
from remote_leads import LEAD
from retinue import AgentCard, AgentMessage
from retinue.resume import resume_team
from retinue.store import open_store
from retinue.testing import TeamHarness
from retinue_a2a import A2AMember, A2AMemberConfig


def first_session(where: Path, url: str, text: str) -> tuple[str, list[AgentMessage]]:
    """A team on `where` whose @Lead asks the reviewer at `url`; the person says `text` and
    the team stops once quiet. Its id, and what reached the person."""
    team = TeamHarness(store=str(where))
    team.add(
        AgentCard(
            description="Reviews, remotely",
            agent_class=A2AMember,
            config=A2AMemberConfig(name="@Reviewer", role="Reviewer", url=url),
        )
    )
    team.say(team.add(LEAD), text)
    team.wait_idle(TIMEOUT)
    told = team.received_by("@Human")
    assert team.shutdown(10)
    return team.team_id, told


def test_the_remote_conversation_goes_on_after_a_resume(
    plain: tuple[str, PlainExecutor], tmp_path: Path
) -> None:
    url, executor = plain
    where = tmp_path / "team.sqlite"
    team_id, told = first_session(where, url, "first")
    assert [m.content for m in told] == ["@Reviewer said: FIRST"]

    with open_store(str(where), create=False) as store:
        team = resume_team(store, team_id)
        try:
            team.send("second", to=team.roster["@Lead"])
            team.wait_idle(TIMEOUT)
        finally:
            assert team.shutdown(10)

    assert executor.received == ["first", "second"]
    (first_context, _), (second_context, _) = executor.seen
    assert first_context and second_context == first_context  # one remote conversation


def test_a_question_the_remote_asked_is_answered_in_its_task_after_a_resume(
    plain: tuple[str, PlainExecutor], tmp_path: Path
) -> None:
    url, executor = plain
    where = tmp_path / "team.sqlite"
    team_id, told = first_session(where, url, "ask")
    question = told[-1]
    assert (question.type, question.content) == ("request", "@Reviewer asks: which one?")

    with open_store(str(where), create=False) as store:
        team = resume_team(store, team_id)
        try:
            assert team.human is not None
            team.system.proxy_ask(team.human).process_human_input("blue", question)
            team.wait_idle(TIMEOUT)
        finally:
            assert team.shutdown(10)

    assert executor.received == ["ask", "blue"]
    (asked_in, asking_task), (answered_in, answering_task) = executor.seen
    assert (answered_in, answering_task) == (asked_in, asking_task)  # the same task goes on
