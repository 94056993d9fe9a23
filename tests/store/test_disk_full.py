"""A team recording to SQLite on a real, small filesystem that fills up mid-run.

The test mounts a tmpfs of its own (it runs as root in CI; where it cannot mount, it skips
with the reason), records a team there, fills the disk with a file of its own, and frees it
again by deleting that file.
"""

from __future__ import annotations

import errno
import logging
import os
import re
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from retinue import ActorAddress
from retinue.store import SQLiteStore, StoreFullError
from retinue.team import recorder
from retinue.testing import TeamHarness, scripted_card

WAIT = 30.0


@pytest.fixture
def disk(tmp_path: Path) -> Iterator[Path]:
    """A 3 MiB tmpfs mounted for this test only."""
    where = tmp_path / "disk"
    where.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=3m", "tmpfs", str(where)],
        capture_output=True,
        text=True,
        check=False,
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a small filesystem here: {mounted.stderr.strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


def fill(disk: Path) -> Path:
    """Take every free byte of `disk` with a file of its own; that file."""
    filler = disk / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT | os.O_EXCL)
    try:
        for size in (65536, 4096, 1):  # down to the last byte
            try:
                while os.write(fd, b"\0" * size):
                    pass
            except OSError as exc:
                assert exc.errno == errno.ENOSPC
    finally:
        os.close(fd)
    assert os.statvfs(disk).f_bavail == 0
    return filler


class Heard(logging.Handler):
    """The recorder's lines, and an event set by the first that matches `waiting_for`."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[tuple[int, str]] = []
        self.waiting_for = "\0"
        self.heard = threading.Event()

    def emit(self, record: logging.LogRecord) -> None:
        line = record.getMessage()
        self.lines.append((record.levelno, line))
        if self.waiting_for in line:
            self.heard.set()

    def at(self, level: int) -> list[str]:
        return [line for lvl, line in self.lines if lvl == level]


@pytest.fixture
def heard() -> Iterator[Heard]:
    handler = Heard()
    logger = logging.getLogger("retinue.team.recorder")
    logger.addHandler(handler)
    try:
        yield handler
    finally:
        logger.removeHandler(handler)


def talk(team: TeamHarness, echo: ActorAddress, count: int) -> None:
    """The person asks @Echo `count` times; @Echo answers each."""
    for n in range(count):
        team.say(echo, f"send @Human response: answer {n} " + "x" * 2000)
    team.wait_idle(WAIT)


def test_a_full_disk_is_named_and_freeing_it_recovers_every_record_in_order(
    disk: Path, heard: Heard
) -> None:
    path = disk / "team.sqlite"
    store = SQLiteStore(path)
    team = TeamHarness(store=store)
    try:
        echo = team.add(scripted_card("Echo"))
        talk(team, echo, 3)
        written = store.team(team.team_id)
        assert written is not None and written.last_position > 0
        filler = fill(disk)

        talk(team, echo, 40)  # each turn is recorded and held: the disk has no room

        (failure,) = heard.at(logging.ERROR)
        assert f"the disk holding {path} is full" in failure
        assert "held and tried again" in failure
        info = store.team(team.team_id)
        assert info is not None and info.last_position == written.last_position
        with pytest.raises(StoreFullError, match=re.escape(f"the disk holding {path} is full")):
            store.create_team("one more")

        heard.waiting_for = "written again"
        filler.unlink()  # room again: the retry timer writes what is held, team idle or not
        assert heard.heard.wait(WAIT), heard.lines
        (recovered,) = [line for line in heard.at(logging.WARNING) if "written again" in line]
        assert re.search(r"\d+ held records appended \(positions \d+-\d+\)", recovered)
        assert len(heard.at(logging.ERROR)) == 1
        retried = [line for line in heard.at(logging.WARNING) if "still cannot" in line]
        assert all(f"the disk holding {path} is full" in line for line in retried)

        records = list(store.read(team.team_id))
        assert [r.position for r in records] == list(range(1, len(records) + 1))
        assert [r.message_id for r in records[1:]] == [m.id for m in team.recorder.messages]
    finally:
        team.shutdown()
        store.close()


def test_a_shutdown_while_the_disk_is_full_says_how_many_records_are_lost_and_where(
    disk: Path, heard: Heard
) -> None:
    path = disk / "team.sqlite"
    store = SQLiteStore(path)
    team = TeamHarness(store=store)
    try:
        echo = team.add(scripted_card("Echo"))
        talk(team, echo, 2)
        fill(disk)
        talk(team, echo, 10)
    finally:
        team.shutdown()
        store.close()

    reader = SQLiteStore(path, create=False)  # opening reads; it needs no room
    try:
        stored = reader.team(team.team_id)
        assert stored is not None
        last = stored.last_position
    finally:
        reader.close()
    seen = 1 + len(team.recorder.messages)  # the orchestrator's own start, then the rest
    assert team.recorder.messages[-1].__class__.__name__ == "StopMessage"
    lost = seen - last
    assert lost > 10
    (report,) = [line for line in heard.at(logging.ERROR) if " lost " in line]
    assert f"lost {lost} records, positions {last + 1}-{last + lost} (" in report
    assert "1 StopMessage" in report
    assert report.endswith(f"the disk holding {path} is full")


def test_room_for_less_than_the_held_records_is_retried_and_logged_until_there_is_enough(
    disk: Path, heard: Heard
) -> None:
    path = disk / "team.sqlite"
    store = SQLiteStore(path)
    team = TeamHarness(store=store)
    try:
        echo = team.add(scripted_card("Echo"))
        talk(team, echo, 2)
        filler = fill(disk)
        os.truncate(filler, filler.stat().st_size - 8192)  # 8 KiB free: a batch or two
        heard.waiting_for = "still cannot be written"

        talk(team, echo, 30)  # far more than 8 KiB held: each retry fails, and says so

        assert heard.heard.wait(WAIT), heard.lines
        (failure,) = heard.at(logging.ERROR)
        assert f"the disk holding {path} is full" in failure
        retry = next(line for line in heard.at(logging.WARNING) if "still cannot" in line)
        assert re.search(
            rf"still cannot be written \(\d+ retries over \d+s\): the disk holding "
            rf"{re.escape(str(path))} is full; \d+ records held \(at most 10000\), "
            r"next try in \d+(\.\d+)?s$",
            retry,
        )

        heard.heard.clear()
        heard.waiting_for = "written again"
        filler.unlink()
        assert heard.heard.wait(WAIT), heard.lines
        records = list(store.read(team.team_id))
        assert [r.position for r in records] == list(range(1, len(records) + 1))
        assert [r.message_id for r in records[1:]] == [m.id for m in team.recorder.messages]
    finally:
        team.shutdown()
        store.close()


def test_past_the_bound_the_record_stops_keeping_a_consistent_beginning(
    disk: Path, heard: Heard, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(recorder, "MAX_PENDING", 25)  # the bound, small enough to reach
    path = disk / "team.sqlite"
    store = SQLiteStore(path)
    team = TeamHarness(store=store)
    try:
        echo = team.add(scripted_card("Echo"))
        talk(team, echo, 2)
        written = store.team(team.team_id)
        assert written is not None
        filler = fill(disk)
        talk(team, echo, 10)
        heard.waiting_for = "written again"
        filler.unlink()  # the 25 held records are written; what came after them is not
        assert heard.heard.wait(WAIT), heard.lines
    finally:
        team.shutdown()
        store.close()

    stopped, *rest = heard.at(logging.ERROR)[1:]
    assert stopped == (
        f"the record of team {team.team_id} stops at position {written.last_position + 25}: "
        "25 records its store could not take are held, the most kept; what the team does "
        "next is not recorded"
    )
    reader = SQLiteStore(path, create=False)
    try:
        records = list(reader.read(team.team_id))
    finally:
        reader.close()
    seen = [None, *(m.id for m in team.recorder.messages)]  # the orchestrator's start first
    last = written.last_position + 25
    assert [r.position for r in records] == list(range(1, last + 1))
    assert [r.message_id for r in records[1:]] == seen[1:last]
    (report,) = rest
    lost = len(seen) - last
    assert f"lost {lost} records, positions {last + 1}-{last + lost} (" in report
    # the disk has room again: the line says the records went past the bound, when it failed
    why = "): past the bound of held records while the store failed (the disk holding "
    assert why in report and report.endswith(" is full)")
