"""A resumed team's `A2AMember` goes on in its remote conversation: the same A2A context,
and a question the remote asked before the restart answered in its own task (a real SQLite
record, a real a2a-sdk agent on 127.0.0.1)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
from a2a_helpers import TIMEOUT
from plain_agent import PlainExecutor
from remote_leads import LEAD
from retinue import AgentCard, AgentMessage
from retinue.resume import ResumedTeam, resume_team
from retinue.store import open_store
from retinue.testing import TeamHarness
from retinue_a2a import A2AMember, A2AMemberConfig


@dataclass
class Restart:
    """A team recorded in `where` whose @Reviewer is the remote agent at `url`."""

    where: Path
    url: str
    executor: PlainExecutor

    def first_session(self, text: str) -> tuple[str, list[AgentMessage]]:
        """The person says `text` to @Lead, who asks the reviewer; the team stops once
        quiet. Its id, and what reached the person."""
        team = TeamHarness(store=str(self.where))
        team.add(
            AgentCard(
                description="Reviews, remotely",
                agent_class=A2AMember,
                config=A2AMemberConfig(name="@Reviewer", role="Reviewer", url=self.url),
            )
        )
        team.say(team.add(LEAD), text)
        team.wait_idle(TIMEOUT)
        told = team.received_by("@Human")
        assert team.shutdown(10)
        return team.team_id, told

    @contextmanager
    def resumed(self, team_id: str) -> Iterator[ResumedTeam]:
        """The team back from its record; once the block has spoken to it, quiet, stopped."""
        with open_store(str(self.where), create=False) as store:
            team = resume_team(store, team_id)
            try:
                yield team
                team.wait_idle(TIMEOUT)
            finally:
                assert team.shutdown(10)


@pytest.fixture
def restart(plain: tuple[str, PlainExecutor], tmp_path: Path) -> Restart:
    url, executor = plain
    return Restart(tmp_path / "team.sqlite", url, executor)


def test_the_remote_conversation_goes_on_after_a_resume(restart: Restart) -> None:
    team_id, told = restart.first_session("first")
    assert [m.content for m in told] == ["@Reviewer said: FIRST"]

    with restart.resumed(team_id) as team:
        team.send("second", to=team.roster["@Lead"])

    assert restart.executor.received == ["first", "second"]
    (first_context, _), (second_context, _) = restart.executor.seen
    assert first_context and second_context == first_context  # one remote conversation


def test_a_question_the_remote_asked_is_answered_in_its_task_after_a_resume(
    restart: Restart,
) -> None:
    team_id, told = restart.first_session("ask")
    question = told[-1]
    assert (question.type, question.content) == ("request", "@Reviewer asks: which one?")

    with restart.resumed(team_id) as team:
        assert team.human is not None
        team.system.proxy_ask(team.human).process_human_input("blue", question)

    assert restart.executor.received == ["ask", "blue"]
    (asked_in, asking_task), (answered_in, answering_task) = restart.executor.seen
    assert (answered_in, answering_task) == (asked_in, asking_task)  # the same task goes on
