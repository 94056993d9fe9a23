"""A resume that fails leaves the record as it found it: the next resume brings back everyone.

A member that cannot start in the resuming process (its model's code is not importable there,
as when its team file's folder moved away) did not leave its team; only this process could not
run it. Were its failed start recorded as a departure, the next resume would bring back a team
without it.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest
from retinue import ActorSystem
from retinue.llm.models import clear_model_cache
from retinue.resume import ResumeError, resume_team
from retinue.resume.record import read_team_record
from retinue.store import open_store
from retinue.testing import TeamHarness, scripted_card

SCRIPT = """
from retinue.testing import incoming, send


def answer(messages, info):
    got = incoming(messages)
    return send(info, (got.sender, "response", f"heard: {got.content}"))
"""


def test_a_member_that_cannot_start_on_resume_is_still_in_the_team_for_the_next_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    code = tmp_path / "code"
    code.mkdir()
    (code / "failed_resume_script.py").write_text(SCRIPT)
    monkeypatch.syspath_prepend(str(code))
    where = str(tmp_path / "team.sqlite")
    first = TeamHarness(store=where)
    worker = first.add(scripted_card("Worker", "failed_resume_script:answer"))
    assert first.shutdown(10)

    code.rename(tmp_path / "moved")  # the code is gone from where this process looks
    monkeypatch.delitem(sys.modules, "failed_resume_script")
    importlib.invalidate_caches()
    clear_model_cache()  # as in a new process: the model is built again, from its code
    with open_store(where, create=False) as store:
        system = ActorSystem(store=store)  # the test's: it runs until every stop is recorded
        with pytest.raises(ResumeError, match="@Worker cannot start: cannot import module"):
            resume_team(store, first.team_id, system=system)
        system.wait_idle(10)
        assert system.shutdown(10)
        plan = read_team_record(store, first.team_id)
        assert sorted(actor.address.name for actor in plan.alive) == ["@Human", "@Worker"]

        (tmp_path / "moved").rename(code)  # back: the next resume brings the whole team
        importlib.invalidate_caches()
        team = resume_team(store, first.team_id)
        try:
            assert team.roster["@Worker"].agent_id == worker.agent_id
            team.send("hello", to=team.roster["@Worker"])
            team.wait_idle(10)
        finally:
            assert team.shutdown(10)
