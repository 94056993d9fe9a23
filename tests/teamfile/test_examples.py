"""The example team files run offline on their scripted models, through the real cards."""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import ClassVar

import pytest
from retinue import ActorAddress, AgentMessage, HumanProxy
from retinue.teamfile import load_team_file

from tests.teamfile.test_round_trip import EXAMPLES, _missing_cards


class Seat(HumanProxy):
    """The person: keeps what reaches them."""

    received: ClassVar[list[AgentMessage]] = []
    lock: ClassVar[threading.Lock] = threading.Lock()

    def on_agent_message(self, message: AgentMessage, sender: ActorAddress | None) -> None:
        with self.lock:
            self.received.append(message)


@pytest.fixture
def seat(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> type[Seat]:
    monkeypatch.chdir(tmp_path)  # the workspace card's relative root lands here
    Seat.received = []
    return Seat


def example(name: str) -> Path:
    path = EXAMPLES / f"{name}.toml"
    missing = _missing_cards(path)
    if missing:
        pytest.skip(f"{name} needs cards not installed here: {', '.join(missing)}")
    return path


def test_solo_answers_the_person(seat: type[Seat]) -> None:
    with load_team_file(example("solo")).start(human_class=seat) as running:
        running.send("what is an actor?")
        running.wait_idle(30)
    assert [m.content for m in seat.received] == [
        "You asked: 'what is an actor?'. (scripted answer)"
    ]


def test_the_reference_file_runs_with_every_key_set(
    seat: type[Seat], caplog: pytest.LogCaptureFixture
) -> None:
    spec = load_team_file(example("reference"))
    with (
        caplog.at_level(logging.WARNING, logger="retinue"),
        spec.start(human_class=seat) as running,
    ):
        assert running.human.name == "@Ada"
        assert sorted(running.started) == ["Lead", "Researcher"]
        running.send("what is an actor?")
        running.wait_idle(30)
    assert [m.content for m in seat.received] == [
        "Our researcher says: a finding about 'what is an actor?'"
    ]
    # its team budget has a USD limit, and its models are scripted: they have no price to
    # warn about (neither told to the person, above, nor logged)
    assert not [r.getMessage() for r in caplog.records if "price" in r.getMessage()]


def test_the_product_team_plans_builds_reviews_and_reports(
    seat: type[Seat], tmp_path: Path
) -> None:
    pytest.importorskip("retinue_team", reason="the manager hires through retinue-team")
    spec = load_team_file(example("product_team"))
    assert spec.entry_role == "Manager"
    with spec.start(human_class=seat) as running:
        running.send("a tool that renames photos by date")
        running.wait_idle(60)
        (answer,) = seat.received
        assert answer.type == "response"
        assert answer.content.startswith("Done: the Developer wrote rename_photos.py")
        assert "modification time" in answer.content  # QA's finding, passed on
        assert [m.name for m in running.members()] == ["@Human", "@Manager", "@Developer", "@QA"]
        running.send("/planning_summary")
        running.wait_idle(30)
        board = seat.received[-1].content
        assert "T1: [done] Write rename_photos.py" in board
        assert "T2: [done] Review rename_photos.py" in board
        # A second request goes to the same members, on tasks of its own.
        running.send("a tool that sorts photos by camera")
        running.wait_idle(60)
        assert seat.received[-1].content.startswith("Done: the Developer wrote")
        assert [m.name for m in running.members()] == ["@Human", "@Manager", "@Developer", "@QA"]
        running.send("/planning_summary")
        running.wait_idle(30)
        board = seat.received[-1].content
        assert "T3: [done] Write rename_photos.py" in board
        assert "T4: [done] Review rename_photos.py" in board
        team_id = running.orchestrator.team_id
    written = tmp_path / "workspace" / str(team_id) / "rename_photos.py"
    assert written.read_text().startswith('"""Rename photos to the date they were taken')
