"""`retinue run` and `retinue chat` in a real pseudo-terminal, read off the screen."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli.conftest import TEAMS
from tests.cli.terminal import Terminal, release

pytest.importorskip("pexpect", reason="the terminal tests drive a pty with pexpect")
pytest.importorskip("pyte", reason="the terminal tests read the screen through pyte")
pytest.importorskip("retinue_team", reason="the lead hires its helper through retinue-team")
pytest.importorskip("retinue_mailbox", reason="/stop is answered by retinue-mailbox when idle")


@pytest.fixture
def fifo(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "hold.fifo"
    os.mkfifo(path)
    yield path
    release(path)  # never leave a model thread blocked behind a failed test


@pytest.fixture
def pair(tmp_path: Path, fifo: Path) -> Iterator[Terminal]:
    terminal = Terminal(["run", str(TEAMS / "pair.toml")], tmp_path, PAIR_HOLD=str(fifo))
    try:
        terminal.wait_for("@Human>")
        yield terminal
    finally:
        release(fifo)
        terminal.close()


def test_a_request_usage_a_stop_mid_run_and_quit(pair: Terminal, fifo: Path) -> None:
    screen = pair.wait_for("talking to @Lead")
    assert "/help for commands" in screen

    pair.type("plan the release")
    screen = pair.wait_for("Done: helped with Help with: plan the release")
    # the flow, as it happened: the request (as typed, not echoed), the hire, the work, the
    # answer (whole, under its head)
    assert "@Human> plan the release" in screen and "@Human → @Lead" not in pair.seen
    assert "+ @Lead hired @Helper (Helper)" in screen
    assert "@Lead → @Helper  [request] Help with: plan the release" in screen
    assert "@Helper → @Lead  [response] helped with Help with: plan the release" in screen
    assert "@Lead → @Human  [response]\nDone: helped with Help with: plan the release" in screen
    assert "observability" not in pair.seen  # no dependency's banner amid the flow

    pair.type("/usage")
    screen = pair.wait_for("usage (tokens")
    rows = {
        cells[0]: cells
        for cells in ([c for c in line.split() if c not in "│┃"] for line in screen.splitlines())
        if cells and cells[0].startswith("@")
    }
    assert rows["@Lead"][1:3] == ["2", "2"]  # two runs, two model requests
    assert rows["@Helper"][1:3] == ["1", "1"]

    pair.type("hold on")
    pair.wait_for("working: @Lead")  # the status line: the lead's run is in flight, held
    pair.type("/stop")
    screen = pair.wait_for("Run interrupted.")
    assert "@Lead → @Human  [notification]\nRun interrupted." in screen
    release(fifo)
    pair.wait_for("idle · talking to @Lead")

    pair.type("/quit")
    assert pair.wait_exit() == 0
    assert "shutting the team down" in pair.seen


def test_ctrl_c_once_stops_the_work_twice_quits(pair: Terminal, fifo: Path) -> None:
    pair.type("hold this")
    pair.wait_for("working: @Lead")
    pair.ctrl_c()
    screen = pair.wait_for("Run interrupted.")
    assert "stopping @Lead; Ctrl-C again to quit" in screen
    release(fifo)
    pair.wait_for("idle · talking to @Lead")

    pair.type("plan it")  # a line between two Ctrl-C: they are not "twice in a row"
    pair.wait_for("Done: helped with Help with: plan it")
    pair.ctrl_c()
    pair.wait_for("nothing is running; Ctrl-C again")
    pair.ctrl_c()
    assert pair.wait_exit() == 0
    assert "shutting the team down" in pair.seen


def test_a_member_by_name_commands_and_ctrl_d(pair: Terminal) -> None:
    pair.type("/help")
    screen = pair.wait_for("/team_members")  # the entry agent's own commands are listed
    assert "@Name text" in screen and "/usage" in screen

    pair.type("@Nobody hello")
    pair.wait_for("no member is called @Nobody; members: @Lead")

    pair.type("/team_members")  # not the session's: it goes to the entry agent
    pair.wait_for("@Lead → @Human  [notification]\n@Human — Human (a person)\n@Lead — Lead")

    pair.ctrl_d()
    assert pair.wait_exit() == 0


def test_chat_without_a_team_file(tmp_path: Path) -> None:
    chat = Terminal(["chat", "--model", "function:retinue.cli.demo_models:echo"], tmp_path)
    try:
        chat.wait_for("@Human>")
        chat.type("hello there")
        screen = chat.wait_for("You said: hello there")
        assert "@Human> hello there" in screen and "@Human → @Assistant" not in chat.seen
        chat.type("/help")  # what a one-agent chat can do: no hiring, roster or team budget
        screen = chat.wait_for("/compact")
        assert "/usage" in screen and "/clear" in screen
        for team_only in ("/hire_member", "/team_members", "/budget", "/continue", "/last"):
            assert team_only not in screen
        chat.type("/quit")
        assert chat.wait_exit() == 0
    finally:
        chat.close()


def test_a_message_stopped_by_ctrl_c(tmp_path: Path, fifo: Path) -> None:
    run = Terminal(
        ["run", str(TEAMS / "pair.toml"), "--message", "hold it"], tmp_path, PAIR_HOLD=str(fifo)
    )
    try:
        run.wait_for("working: @Lead")  # the live status line, on the terminal's stderr
        run.ctrl_c()
        run.wait_for("stopping the running work; Ctrl-C again to quit")
        release(fifo)
        assert run.wait_exit() == 130
        assert "Run interrupted." in run.seen  # what reached the person is still printed
    finally:
        run.close()
