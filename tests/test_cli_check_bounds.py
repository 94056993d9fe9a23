"""`retinue check` on hostile team files: one bounded line per problem, never a traceback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from retinue.cli.main import main
from retinue.teamfile.loader import MAX_DEPTH

HUGE = 1_000_000
LINE_BOUND = 800  # a key, its line and a few values, each echoed at most ~200 characters


def check(tmp_path: Path, text: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, list[str]]:
    file = tmp_path / "team.toml"
    file.write_text(text)
    code = main(["check", str(file)])
    out = capsys.readouterr()
    lines = [line.removeprefix(f"{file}: ") for line in (out.out + out.err).splitlines()]
    assert lines and all(len(line) < LINE_BOUND for line in lines), [line[:300] for line in lines]
    return code, lines


def test_inline_tables_nested_5000_deep_are_one_line(tmp_path: Path) -> None:
    file = tmp_path / "deep.toml"
    file.write_text('[roles.Dev]\nmodel = "test"\nx = ' + "{a = " * 5000 + "1" + "}" * 5000 + "\n")
    assert file.stat().st_size < 40_000
    done = subprocess.run(
        [sys.executable, "-m", "retinue", "check", str(file)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr.splitlines() == [
        f"{file}: (file): values nested too deeply; "
        f"a team file nests tables and arrays at most {MAX_DEPTH} deep"
    ]


def test_nesting_python_can_read_is_still_bounded(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = '[roles.Dev]\nmodel = "test"\nskills = ' + "[" * 100 + "]" * 100 + "\n"
    code, lines = check(tmp_path, text, capsys)
    assert code == 1
    assert lines == [
        f"roles.Dev.skills{'[0]' * (MAX_DEPTH - 3)} (line 3): nested too deeply; "
        f"a team file nests tables and arrays at most {MAX_DEPTH} deep"
    ]


def test_a_30_mb_team_name_is_echoed_shortened(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    name = "n" * 30_000_000
    code, lines = check(tmp_path, f'[team]\nname = "{name}"\n[roles.Dev]\nmodel = "test"\n', capsys)
    assert code == 0
    assert lines[0] == f"ok: team {'n' * 200!r}… (30,000,000 characters), 1 role(s); " + (
        "@Human talks to @Dev (Dev)"
    )


@pytest.mark.parametrize(
    ("text", "start"),
    [
        (f'[roles.Dev]\nmodel = "test"\ntools = ["{"c" * HUGE}"]\n', "roles.Dev.tools[0] (line 3)"),
        (f'[roles."{"r" * HUGE}"]\nmodel = "test"\n', f"roles.{'r' * 200}… (1,000,000 characters)"),
        (f'[roles.Dev]\nmodel = "test"\nagent_class = "{"a" * HUGE}"\n', "roles.Dev.agent_class"),
        (f'[roles.Dev]\nmodel = "{"m" * HUGE}"\n', "roles.Dev.model (line 2)"),
        (f'[roles.Dev]\nmodel = "test"\nroutes_to = ["{"t" * HUGE}"]\n', "roles.Dev.routes_to[0]"),
        (f'[team]\nentry = "{"e" * HUGE}"\n[roles.Dev]\nmodel = "test"\n', "team.entry (line 2)"),
        (f'[roles.Dev]\nmodel = "function:{"f" * HUGE}:g"\n', "roles.Dev.model (line 2)"),
        (f'[roles.Dev]\nmodel = "openaii:{"m" * HUGE}"\n', "roles.Dev.model (line 2)"),
        (f'[roles.Dev]\nmodel = "gpt-{"4" * HUGE}"\n', "roles.Dev.model (line 2)"),
    ],
    ids=[
        "card name",
        "role key",
        "agent class",
        "model string",
        "route",
        "entry",
        "function",
        "provider typo",
        "bare model",
    ],
)
def test_a_huge_value_is_one_shortened_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, start: str
) -> None:
    code, lines = check(tmp_path, text, capsys)
    assert code == 1
    assert any(line.startswith(start) for line in lines), [line[:300] for line in lines]
    assert all("characters)" in line for line in lines), [line[:300] for line in lines]


def test_an_agent_class_that_is_no_actor_is_its_only_problem(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = '[roles.Dev]\nmodel = "test"\nagent_class = "os.system"\n'
    code, lines = check(tmp_path, text, capsys)
    assert code == 1
    assert lines == [
        "roles.Dev.agent_class (line 3): 'os.system' is not a retinue Actor class "
        "(subclass retinue.Actor)"
    ]


def test_a_key_in_the_path_of_a_base_url_is_not_echoed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    key = "sk-proj-4fT9xQ2mZ7bW1cR8vK3nL6pY"
    text = f'[roles.Dev]\nmodel = "openai-chat:m@https://gw.example/v1/{key}"\n'
    code, lines = check(tmp_path, text, capsys)
    assert code == 0
    assert "  @Dev (Dev, entry): openai-chat:m@https://gw.example/v1/***" in lines
    assert not [line for line in lines if key in line]
