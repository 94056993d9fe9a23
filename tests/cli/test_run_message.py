"""`retinue run TEAM.toml --message`, `--json`, `--model`, and `retinue chat` through a pipe:
run as a script runs them, to their exit status."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.conftest import EXAMPLES, TEAMS, Run
from tests.cli.sse_model import ANSWER, streaming_model

ECHO = "function:retinue.cli.demo_models:echo"
COMMON_KEYS = {"record", "id", "time", "chain_id", "parent_id", "sender", "recipient"}


def no_traceback(text: str) -> None:
    assert "Traceback" not in text, text


def test_an_example_team_answers_one_message_offline(retinue: Run) -> None:
    done = retinue("run", str(EXAMPLES / "solo.toml"), "--message", "what is an actor?")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "You asked: 'what is an actor?'. (scripted answer)\n"
    # the flow goes to stderr, so stdout holds the answer alone
    assert "@Human → @Assistant  [request] what is an actor?" in done.stderr


def test_the_product_team_as_json_lines(retinue: Run, tmp_path: Path) -> None:
    for plugin in ("retinue_team", "retinue_planning", "retinue_workspace"):
        pytest.importorskip(plugin, reason="the product team hires, plans and writes files")
    done = retinue(
        "run", str(EXAMPLES / "product_team.toml"), "--json", "--message", "a photo renamer"
    )
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert all(set(line) >= COMMON_KEYS for line in lines[:-1])
    messages = [line for line in lines if line["record"] == "message"]
    assert messages[0]["sender"] == "@Human" and messages[0]["recipient"] == "@Manager"
    assert messages[0]["intent"] == "request" and messages[0]["content"] == "a photo renamer"
    assert all(set(m) >= {"type", "intent", "content"} for m in messages)
    hires = {line["member"]: line["parent"] for line in lines if line["record"] == "start"}
    assert hires["@Developer"] == "@Manager" and hires["@QA"] == "@Manager"
    events = {line["event"] for line in lines if line["record"] == "event"}
    assert {"run_started", "run_finished", "llm_usage", "tool_call"} <= events
    result = lines[-1]
    assert result["record"] == "result" and result["status"] == "answered" and result["exit"] == 0
    (answer,) = result["answers"]
    assert answer["sender"] == "@Manager" and answer["content"].startswith("Done: the Developer")
    # the cards really ran: the developer's file is in the team's workspace, and its journal
    found = sorted(p.name for p in (tmp_path / "workspace").glob("*/*"))
    assert found == [".git", "rename_photos.py"]


def test_a_failure_exits_non_zero_and_says_why(retinue: Run) -> None:
    done = retinue("run", str(TEAMS / "pair.toml"), "--message", "fail now")
    assert done.returncode == 1
    assert done.stdout == ""
    assert "@Lead failed on a request from @Human: RuntimeError: the lead's model broke" in (
        done.stderr
    )
    no_traceback(done.stderr)
    as_json = retinue("run", str(TEAMS / "pair.toml"), "--json", "--message", "fail now")
    result = json.loads(as_json.stdout.splitlines()[-1])
    assert as_json.returncode == 1 and result["status"] == "failed"
    assert "the lead's model broke" in result["failures"][0]["content"]


def test_model_overrides_every_role(retinue: Run) -> None:
    done = retinue("run", str(TEAMS / "pair.toml"), "--model", ECHO, "-q", "--message", "hi")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "You said: hi\n"
    assert done.stderr == ""  # -q: the answer only


def test_a_missing_api_key_is_one_line_naming_the_variable(retinue: Run) -> None:
    done = retinue("run", str(TEAMS / "pair.toml"), "--model", "openai:gpt-4.1", "-m", "hi")
    assert done.returncode == 2
    no_traceback(done.stderr)
    (line,) = done.stderr.splitlines()
    try:
        import openai  # noqa: F401
    except ImportError:
        assert "pip install 'retinue[openai]'" in line
    else:
        assert "set the OPENAI_API_KEY environment variable" in line
    assert "(roles Lead, Helper)" in line


def test_bad_input_is_named_in_one_line_each(retinue: Run, tmp_path: Path) -> None:
    bad_model = retinue("run", str(TEAMS / "pair.toml"), "--model", "gpt", "-m", "hi")
    assert bad_model.returncode == 2 and bad_model.stderr.startswith("retinue run: --model: ")
    assert len(bad_model.stderr.splitlines()) == 1
    broken = tmp_path / "broken.toml"
    broken.write_text('[team]\nentry = "Nobody"\n\n[roles.A]\ndescription = "a"\n')
    bad_file = retinue("run", str(broken), "-m", "hi")
    assert bad_file.returncode == 2
    assert "team.entry" in bad_file.stderr and "Nobody" in bad_file.stderr
    no_traceback(bad_model.stderr + bad_file.stderr)
    no_message = retinue("run", str(TEAMS / "pair.toml"), "--json")
    assert no_message.returncode == 2 and "--json needs --message" in no_message.stderr


def test_verbose_adds_detail_and_says_nothing_twice(retinue: Run) -> None:
    pytest.importorskip("retinue_team", reason="the lead hires its helper through retinue-team")
    done = retinue("run", str(TEAMS / "pair.toml"), "-v", "--message", "plan it")
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    # each delivery, hire and run end once: the flow's line, not the log's echo of it too
    assert lines.count("@Human → @Lead  [request] plan it") == 1
    assert lines.count("+ @Lead hired @Helper (Helper)") == 1
    echoes = (" -> ", " hired ", " completed: ")
    assert not [x for x in lines if x.startswith("info:") and any(e in x for e in echoes)]
    ends = [line for line in lines if " run completed (1 request, " in line]
    assert [line.split(" run ")[0].strip() for line in ends] == ["@Lead", "@Helper", "@Lead"]
    # and the detail -v is for: the members joining, the log of what the team does
    assert "+ @Lead joined (Lead)" in lines
    assert [line for line in lines if line.startswith("info: @Lead: run ")]  # its starts
    no_traceback(done.stderr)


def test_chat_reads_lines_from_a_pipe(retinue: Run) -> None:
    done = retinue("chat", "--model", ECHO, input="hello there\n/usage\n")
    assert done.returncode == 0, done.stderr
    assert "@Assistant → @Human  [response] You said: hello there" in done.stdout
    assert "usage (tokens" in done.stdout and "@Assistant" in done.stdout.split("usage", 1)[1]


def test_chat_needs_a_model_and_says_where_to_give_it(retinue: Run) -> None:
    done = retinue("chat")
    assert done.returncode == 2
    assert "--model" in done.stderr and "RETINUE_MODEL" in done.stderr
    from_env = retinue("chat", input="hi\n", RETINUE_MODEL=ECHO)
    assert from_env.returncode == 0 and "You said: hi" in from_env.stdout


def test_chat_cards_and_rules_are_checked_before_anything_starts(retinue: Run) -> None:
    done = retinue(
        "chat", "--model", ECHO, "--tool", "nope", "--approve", "bad.", "--approve", "x.y"
    )
    assert done.returncode == 2
    lines = done.stderr.splitlines()
    assert lines[0].startswith("retinue chat: --tool: unknown card 'nope'; installed cards: ")
    assert lines[1].startswith("retinue chat: --approve: approval rule 'bad.' must be CARD.TOOL")
    assert lines[2] == "retinue chat: --approve: rule 'x.y' names no installed card 'x'"
    no_traceback(done.stderr)


def test_a_models_escape_sequences_are_escaped_on_stdout_and_exact_in_json(retinue: Run) -> None:
    done = retinue("run", str(TEAMS / "answers.toml"), "-m", "escapes")
    escaped = "\\x1b]0;pwned\\x07title \\x1b[2Jcleared \\x1b[31mred\\x1b[0m plain"
    assert done.returncode == 0, done.stderr
    assert done.stdout == escaped + "\n"
    assert f"@Assistant → @Human  [response] {escaped}" in done.stderr  # the console's line
    assert "\x1b" not in done.stdout + done.stderr and "\x07" not in done.stdout + done.stderr
    as_json = retinue("run", str(TEAMS / "answers.toml"), "--json", "-m", "escapes")
    (answer,) = json.loads(as_json.stdout.splitlines()[-1])["answers"]
    assert answer["content"] == "\x1b]0;pwned\x07title \x1b[2Jcleared \x1b[31mred\x1b[0m plain"


def test_a_run_stopped_by_loop_detection_is_no_success(retinue: Run) -> None:
    pytest.importorskip("retinue_team", reason="@Alpha hires @Beta through retinue-team")
    done = retinue("run", str(TEAMS / "thanks.toml"), "-m", "go")
    assert done.returncode == 1
    assert done.stdout == ""  # the loop's notice is news, not an answer
    assert "retinue run: Loop stopped: @Alpha → @Beta → @Alpha" in done.stderr
    as_json = retinue("run", str(TEAMS / "thanks.toml"), "--json", "-m", "go")
    result = json.loads(as_json.stdout.splitlines()[-1])
    assert as_json.returncode == 1 and (result["status"], result["exit"]) == ("loop", 1)
    assert result["answers"] == [] and result["failures"][0]["content"].startswith("Loop stopped")


def test_a_pipe_gets_the_whole_answer_from_one_plain_request(retinue: Run) -> None:
    pytest.importorskip("openai", reason="the OpenAI-compatible model needs the openai SDK")
    with streaming_model() as model:
        done = retinue("chat", "--model", f"openai-chat:streaming@{model.url}", input="hi\n")
    assert done.returncode == 0, done.stderr
    assert f"@Assistant → @Human  [response] {ANSWER}" in done.stdout
    assert (model.streamed, model.whole) == (0, 1)


def test_the_otel_console_exporter_writes_to_stderr(retinue: Run) -> None:
    pytest.importorskip("retinue_otel", reason="the spans come from retinue-otel")
    done = retinue(
        "run",
        str(EXAMPLES / "solo.toml"),
        "-m",
        "what is an actor?",
        OTEL_TRACES_EXPORTER="console",
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "You asked: 'what is an actor?'. (scripted answer)\n"
    assert '"trace_id"' in done.stderr  # the spans, as JSON
