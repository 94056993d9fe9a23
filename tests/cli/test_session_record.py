"""Every session is recorded by default, and read back: `retinue run`, `teams`, `log --turns`,
`chat -c`, `resume`, each a real command in its own process and working directory, on a
team whose scripted model sits beside its team file (in no directory the commands run in)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.conftest import command_env

TEAM = """[team]
name = "beside"

[roles.Assistant]
prompt = "You answer the person."
model = "function:beside_script:answer"
"""

SCRIPT = """
import importlib.machinery

from retinue.testing import incoming, send


def answer(messages, info):
    got = incoming(messages)
    return send(info, (got.sender, "response", f"\\x1b]0;owned\\x07heard: {got.content}"))


def where_from(messages, info):
    found = importlib.machinery.PathFinder.find_spec("pydantic_ai")
    return send(info, (incoming(messages).sender, "response", f"pydantic_ai: {found.origin}"))
"""


@pytest.fixture
def team_file(tmp_path: Path) -> Path:
    """A team file in a folder of its own, its scripted model beside it, and beside them a
    `pydantic_ai.py` that would break every import of the real one."""
    folder = tmp_path / "team"
    folder.mkdir()
    (folder / "beside_script.py").write_text(SCRIPT)
    (folder / "pydantic_ai.py").write_text('raise ImportError("the module beside the file")\n')
    path = folder / "team.toml"
    path.write_text(TEAM)
    return path


def retinue_in(
    cwd: Path, *args: str, input: str = "", **env: str
) -> subprocess.CompletedProcess[str]:
    cwd.mkdir(exist_ok=True)
    return subprocess.run(
        [sys.executable, "-m", "retinue", *args],
        capture_output=True,
        text=True,
        input=input,
        cwd=cwd,
        env=command_env(**env),
        timeout=120,
        check=False,
    )


def only_team(cwd: Path, **env: str) -> str:
    done = retinue_in(cwd, "teams", "--json", **env)
    assert done.returncode == 0, done.stderr
    (line,) = done.stdout.splitlines()
    team = json.loads(line)
    assert team["metadata"]["import_path"] == [str((cwd.parent / "team").resolve())]
    team_id: str = team["team_id"]
    return team_id


def test_a_run_with_no_options_is_recorded_in_the_user_store_and_log_shows_the_model_turns(
    team_file: Path, tmp_path: Path
) -> None:
    data = tmp_path / "data"
    here = tmp_path / "elsewhere"
    done = retinue_in(here, "run", str(team_file), "-m", "hi", XDG_DATA_HOME=str(data))
    assert done.returncode == 0, done.stderr
    assert (data / "retinue" / "retinue.sqlite").is_file()  # the per-user store
    team_id = only_team(here, XDG_DATA_HOME=str(data))

    shown = retinue_in(here, "log", team_id[:8], "--turns", XDG_DATA_HOME=str(data))
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    heads = [line.split("] ", 1)[1] for line in lines if line.startswith("[")]
    assert heads[:3] == [
        "@Human → @Assistant (request): hi",
        "@Assistant · model request",
        "@Assistant · model response (beside_script:answer, "
        + heads[2].split(", ", 1)[1],  # its token counts
    ]
    assert heads[-1] == "@Assistant → @Human (response): \\x1b]0;owned\\x07heard: hi"
    told = lines.index(next(line for line in lines if line.startswith("    instructions: ")))
    prompt = lines.index(next(line for line in lines if line.startswith("    user prompt: ")))
    assert "      You answer the person." in lines[told:prompt]  # the role's own prompt
    assert "      hi" in lines[prompt:]  # the person's words, as the model was shown them
    call = next(line for line in lines if line.startswith("    tool call final_result: "))
    assert "\\u001b]0;owned\\u0007heard: hi" in call  # what the model said, as JSON
    assert "\x1b" not in shown.stdout

    as_json = retinue_in(here, "log", team_id, "--turns", "--json", XDG_DATA_HOME=str(data))
    records = [json.loads(line) for line in as_json.stdout.splitlines()]
    turns = [r["model_message"] for r in records if "model_message" in r]
    assert [turn["kind"] for turn in turns] == ["request", "response", "request"]
    (said,) = turns[1]["parts"]
    assert said["args"]["messages"][0]["message"] == "\x1b]0;owned\x07heard: hi"  # exact
    plain = retinue_in(here, "log", team_id, XDG_DATA_HOME=str(data))
    assert "model request" not in plain.stdout  # without --turns: the conversation alone
    everything = retinue_in(here, "log", team_id, "--all", XDG_DATA_HOME=str(data))
    assert "] @Assistant · model request" in everything.stdout  # --all has the turns too
    assert "    user prompt: " in everything.stdout and "\x1b" not in everything.stdout


def test_chat_continue_and_resume_go_on_with_the_recorded_team_from_other_directories(
    team_file: Path, tmp_path: Path
) -> None:
    data = str(tmp_path / "data")
    done = retinue_in(tmp_path / "a", "run", str(team_file), "-m", "one", XDG_DATA_HOME=data)
    assert done.returncode == 0, done.stderr
    team_id = only_team(tmp_path / "a", XDG_DATA_HOME=data)

    chat = retinue_in(tmp_path / "b", "chat", "-c", input="two\n", XDG_DATA_HOME=data)
    assert chat.returncode == 0, chat.stderr
    assert "Traceback" not in chat.stderr
    assert f"resumed team {team_id}: @Assistant, @Human" in chat.stdout
    assert "heard: two" in chat.stdout

    resumed = retinue_in(tmp_path / "c", "resume", team_id[:6], "-m", "three", XDG_DATA_HOME=data)
    assert resumed.returncode == 0, resumed.stderr
    assert "heard: three" in resumed.stdout
    assert resumed.stdout.splitlines()[-1] == (
        "nothing is left owed: every delivered message was handled"
    )
    log = retinue_in(tmp_path / "d", "log", team_id, XDG_DATA_HOME=data)
    said = [line.split("] ", 1)[1] for line in log.stdout.splitlines()]
    assert [line for line in said if line.startswith("@Human")] == [
        "@Human → @Assistant (request): one",
        "@Human → @Assistant (request): two",
        "@Human → @Assistant (request): three",
    ]


def test_store_and_no_record_choose_where_or_whether(team_file: Path, tmp_path: Path) -> None:
    data = tmp_path / "data"
    chosen = tmp_path / "chosen.sqlite"
    here = tmp_path / "here"
    done = retinue_in(
        here, "run", str(team_file), "-m", "x", "--no-record", XDG_DATA_HOME=str(data)
    )
    assert done.returncode == 0, done.stderr
    assert not data.exists()
    none_yet = retinue_in(here, "teams", XDG_DATA_HOME=str(data))
    assert (none_yet.returncode, none_yet.stdout) == (
        0,
        f"no teams in {data}/retinue/retinue.sqlite\n",
    )
    assert not data.exists()  # a reader creates nothing
    done = retinue_in(
        here, "run", str(team_file), "-m", "x", RETINUE_STORE=str(chosen), XDG_DATA_HOME=str(data)
    )
    assert done.returncode == 0, done.stderr
    assert chosen.is_file() and not data.exists()
    assert only_team(here, RETINUE_STORE=str(chosen))
    nothing = retinue_in(here, "chat", "-c", XDG_DATA_HOME=str(data))
    assert nothing.returncode == 1
    assert nothing.stderr.strip().endswith("no such store")


def test_a_module_beside_the_team_file_never_shadows_an_installed_package(
    team_file: Path, tmp_path: Path
) -> None:
    shadow = team_file.with_name("shadow.toml")
    shadow.write_text(TEAM.replace(":answer", ":where_from"))
    done = retinue_in(tmp_path / "here", "run", str(shadow), "-m", "which?", "--no-record")
    assert done.returncode == 0, done.stderr
    origin = done.stdout.strip().removeprefix("pydantic_ai: ")
    assert Path(origin).parent.name == "pydantic_ai"  # the installed package
    assert not origin.startswith(str(team_file.parent))

    checked = retinue_in(tmp_path / "here", "check", str(shadow))
    assert checked.returncode == 0, checked.stderr
    assert checked.stdout.splitlines()[-1] == (
        f"note: imported the code it names: beside_script ({team_file.parent / 'beside_script.py'})"
    )


def test_a_team_whose_code_moved_away_is_one_line_and_resumes_once_it_is_back(
    team_file: Path, tmp_path: Path
) -> None:
    data = str(tmp_path / "data")
    done = retinue_in(tmp_path / "a", "run", str(team_file), "-m", "one", XDG_DATA_HOME=data)
    assert done.returncode == 0, done.stderr
    team_id = only_team(tmp_path / "a", XDG_DATA_HOME=data)
    folder = team_file.parent
    moved = folder.rename(tmp_path / "moved")
    for command in (["resume", team_id, "-m", "two"], ["chat", "-c"]):
        refused = retinue_in(tmp_path / "b", *command, input="two\n", XDG_DATA_HOME=data)
        assert refused.returncode == 1
        (line,) = refused.stderr.splitlines()  # no traceback: one line, naming who and why
        assert line == (
            f"retinue {command[0]}: team {team_id}: @Assistant cannot start: cannot import "
            "module 'beside_script' for 'beside_script:answer': No module named "
            f"'beside_script' (its team file's folder {folder} is no longer there)"
        )
    moved.rename(folder)  # the refused resumes left the whole team in the record: it resumes
    resumed = retinue_in(tmp_path / "b", "resume", team_id, "-m", "three", XDG_DATA_HOME=data)
    assert resumed.returncode == 0, resumed.stderr
    assert "heard: three" in resumed.stdout
