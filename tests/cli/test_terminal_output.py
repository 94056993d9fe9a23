"""What the person sees in a real pseudo-terminal: whole answers with their lines, answers
streamed as the model writes them (a loopback OpenAI-compatible server streaming with
server-sent events) in `retinue chat` and `retinue run`, Markdown rendered with its line breaks
kept, a model's escape sequences shown and not obeyed."""

from __future__ import annotations

import runpy
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli.conftest import TEAMS
from tests.cli.sse_model import ANSWER, FIRST_WORDS, LAST_WORDS, StreamingModel, streaming_model
from tests.cli.terminal import Terminal

pytest.importorskip("pexpect", reason="the terminal tests drive a pty with pexpect")
pytest.importorskip("pyte", reason="the terminal tests read the screen through pyte")

ANSWERS = runpy.run_path(str(TEAMS / "answers_script.py"))


@pytest.fixture
def answers(tmp_path: Path) -> Iterator[Terminal]:
    terminal = Terminal(["run", str(TEAMS / "answers.toml")], tmp_path)
    try:
        terminal.wait_for("@Human>")
        yield terminal
    finally:
        terminal.close()


def test_a_long_answer_appears_whole_with_its_lines(answers: Terminal) -> None:
    lines: list[str] = ANSWERS["LONG_LINES"]
    assert len(lines) == 40 and len("\n".join(lines)) >= 3000
    answers.type("long please")
    answers.wait_for(lines[-1])
    screen = answers.wait_for("idle · talking to @Assistant")  # the prompt has redrawn
    rows = screen.splitlines()
    assert "@Assistant → @Human  [response]" in rows
    start = rows.index(lines[0])  # every line whole, on a row of its own, in order
    assert rows[start : start + len(lines)] == lines  # none folded, dropped or split


def test_an_answer_in_markdown_is_rendered_with_its_line_breaks(answers: Terminal) -> None:
    answers.type("markdown")
    answers.wait_for("run --fast")
    screen = answers.wait_for("idle · talking to @Assistant")  # the prompt has redrawn
    rows = [row for row in screen.splitlines() if row.strip()]
    start = rows.index("Here is the plan:")
    assert rows[start : start + 5] == [
        "Here is the plan:",
        "kept on its own line",  # a line break inside a paragraph stays a line break
        " • first step",  # a list, its marks rendered
        " • second step",
        " run --fast",  # a code block, its fences gone
    ]
    assert "**" not in screen and "`" not in screen
    y = answers.screen.display.index(next(r for r in answers.screen.display if "• first" in r))
    x = answers.screen.display[y].index("first")
    assert all(answers.screen.buffer[y][x + i].bold for i in range(5))  # **first**, in bold
    assert not answers.screen.buffer[y][x + 6].bold


def test_a_models_escape_sequences_are_shown_not_obeyed(answers: Terminal) -> None:
    answers.type("escapes")
    screen = answers.wait_for("plain")
    assert "\\x1b]0;pwned\\x07title \\x1b[2Jcleared \\x1b[31mred\\x1b[0m plain" in screen
    assert answers.screen.title != "pwned"  # no window title was set
    assert "team answers: @Human talking to @Assistant" in screen  # nor the screen cleared


@pytest.fixture
def model() -> Iterator[StreamingModel]:
    with streaming_model() as server:
        yield server


def chat_on(model: StreamingModel, cwd: Path, *options: str) -> Terminal:
    chat = Terminal(["chat", "--model", f"openai-chat:streaming@{model.url}", *options], cwd)
    chat.wait_for("@Human>")
    return chat


def test_a_streamed_answer_shows_before_the_model_has_finished(
    model: StreamingModel, tmp_path: Path
) -> None:
    pytest.importorskip("openai", reason="the OpenAI-compatible model needs the openai SDK")
    chat = chat_on(model, tmp_path)
    try:
        chat.type("tell me")
        screen = chat.wait_for(FIRST_WORDS)
        assert model.holding.is_set()  # the server still holds the answer's last chunk
        assert "@Assistant is writing:" in screen and LAST_WORDS not in screen
        model.release()
        chat.wait_for("@Assistant → @Human  [response]")
        screen = chat.wait_for("idle · talking to @Assistant")
        assert screen.count(FIRST_WORDS) == 1  # the draft gave way to the answer, whole
        assert ANSWER in screen and "is writing" not in screen
        assert (model.streamed, model.whole) == (1, 0)
    finally:
        chat.close()


def test_ctrl_c_mid_stream_stops_the_run_and_the_chat_goes_on(
    model: StreamingModel, tmp_path: Path
) -> None:
    pytest.importorskip("openai", reason="the OpenAI-compatible model needs the openai SDK")
    chat = chat_on(model, tmp_path)
    try:
        chat.type("tell me")
        chat.wait_for(FIRST_WORDS)
        chat.ctrl_c()
        screen = chat.wait_for("Run interrupted.")
        assert "stopping @Assistant; Ctrl-C again to quit" in screen
        chat.wait_for("idle · talking to @Assistant")
        assert LAST_WORDS not in chat.seen  # the held rest never came
        model.release()

        chat.type("and now?")  # the next request streams straight through
        chat.wait_for(LAST_WORDS)
        chat.type("/quit")
        assert chat.wait_exit() == 0
        assert model.streamed == 2
    finally:
        chat.close()


@pytest.mark.parametrize("message", [False, True], ids=["at-the-prompt", "with-message"])
def test_retinue_run_streams_too(model: StreamingModel, tmp_path: Path, message: bool) -> None:
    pytest.importorskip("openai", reason="the OpenAI-compatible model needs the openai SDK")
    args = ["run", str(TEAMS / "answers.toml"), "--model", f"openai-chat:streaming@{model.url}"]
    run = Terminal([*args, "-m", "tell me"] if message else args, tmp_path)
    try:
        if not message:
            run.wait_for("@Human>")
            run.type("tell me")
        screen = run.wait_for(FIRST_WORDS)
        assert model.holding.is_set()  # the server still holds the answer's last chunk
        assert "@Assistant is writing:" in screen and LAST_WORDS not in screen
        model.release()
        if message:  # the flow's line on stderr, then the answer alone on stdout, at its end
            assert run.wait_exit() == 0
            rows = [row for row in run.text().splitlines() if row.strip()]
            assert rows[-2:] == [f"@Assistant → @Human  [response] {ANSWER}", ANSWER]
            assert "is writing" not in run.text()
        else:
            run.wait_for(LAST_WORDS)
            run.type("/quit")
            assert run.wait_exit() == 0
        assert (model.streamed, model.whole) == (1, 0)
    finally:
        run.close()


def test_no_stream_asks_for_the_whole_answer(model: StreamingModel, tmp_path: Path) -> None:
    pytest.importorskip("openai", reason="the OpenAI-compatible model needs the openai SDK")
    chat = chat_on(model, tmp_path, "--no-stream")
    try:
        chat.type("tell me")
        chat.wait_for(LAST_WORDS)
        assert (model.streamed, model.whole) == (0, 1)
    finally:
        chat.close()


def test_flow_lines_fold_to_the_width_and_last_shows_the_last_whole(tmp_path: Path) -> None:
    pytest.importorskip("retinue_team", reason="the lead hires its helper through retinue-team")
    pair = Terminal(["run", str(TEAMS / "pair.toml")], tmp_path, columns=48)
    try:
        pair.wait_for("@Human>")
        pair.type("plan the release")
        screen = pair.wait_for("Done: helped with")
        (asked,) = [row for row in screen.splitlines() if row.startswith("@Lead → @Helper")]
        assert asked == "@Lead → @Helper  [request] Help with: plan the …"  # one row, cut
        pair.type("/last")
        screen = pair.wait_for(
            "@Helper → @Lead  [response]\nhelped with Help with: plan the release"
        )
    finally:
        pair.close()
