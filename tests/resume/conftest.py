"""Fixtures of the resume tests: a SQLite file per test, and teams resumed from it."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from retinue.resume import ResumedTeam, resume_team
from retinue.store import Store, open_store
from retinue.testing.team import Recorder

Resume = Callable[[str], tuple[ResumedTeam, Recorder]]


@pytest.fixture
def where(tmp_path: Path) -> str:
    return str(tmp_path / "team.sqlite")


@pytest.fixture
def resumed(where: str) -> Iterator[Resume]:
    """Resumes a team from `where`; every team it resumed is shut down after the test."""
    teams: list[tuple[ResumedTeam, Store]] = []

    def resume(team_id: str) -> tuple[ResumedTeam, Recorder]:
        store = open_store(where, create=False)
        team = resume_team(store, team_id)
        recorder = Recorder()
        team.team.subscribe(recorder)
        teams.append((team, store))
        return team, recorder

    yield resume
    for team, store in teams:
        assert team.shutdown(10)
        store.close()
