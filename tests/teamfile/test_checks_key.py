"""The team file's `checks` key: paths to functions every message of a role must pass; the
team's apply to every role; a path that does not import is one line of `retinue check`."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import ClassVar

import pytest
from retinue import ActorAddress, AgentConfig, AgentMessage, FailureNotice, HumanProxy
from retinue.cli.check import summary
from retinue.cli.main import main
from retinue.teamfile import TeamFileError, load_team_file
from retinue.testing import FOLLOW

CHECKS = """
from retinue import Outgoing


def verdict_only(message: Outgoing) -> str | None:
    if message.recipient == "@Human" and not message.content.startswith("VERDICT:"):
        return "Answer the person with a verdict only: start with VERDICT:"
    return None


def polite(message: Outgoing) -> str | None:
    return "Say please." if "please" not in message.content else None


NOT_A_FUNCTION = 42
"""

TEAM = f"""
[team]
entry = "QA"
checks = ["qa_team_checks:polite"]

[roles.QA]
model = "function:{FOLLOW}"
checks = ["qa_team_checks:verdict_only"]

[roles.Dev]
model = "function:{FOLLOW}"
"""


class Seat(HumanProxy):
    """The person's seat: keeps what reaches the person."""

    received: ClassVar[list[AgentMessage]] = []
    lock: ClassVar[threading.Lock] = threading.Lock()

    def on_agent_message(self, message: AgentMessage, sender: ActorAddress | None) -> None:
        with self.lock:
            self.received.append(message)


def team_file(folder: Path, text: str = TEAM) -> Path:
    (folder / "qa_team_checks.py").write_text(CHECKS)
    file = folder / "team.toml"
    file.write_text(text)
    return file


def checks_of(config: object) -> list[str]:
    assert isinstance(config, AgentConfig)
    return [str(path) for path in config.checks]


def test_the_team_checks_follow_each_roles_own(tmp_path: Path) -> None:
    spec = load_team_file(team_file(tmp_path))
    qa, dev = (card.config for card in spec.cards())
    assert checks_of(qa) == ["qa_team_checks:verdict_only", "qa_team_checks:polite"]
    assert checks_of(dev) == ["qa_team_checks:polite"]
    lines = summary(spec)
    assert any(
        "@QA (QA, entry)" in line
        and line.endswith("; checks: qa_team_checks:verdict_only, qa_team_checks:polite")
        for line in lines
    )
    assert any(
        line.startswith("note: imported the code it names: qa_team_checks") for line in lines
    )


def test_a_team_files_checks_hold_what_its_role_sends(tmp_path: Path) -> None:
    Seat.received = []
    spec = load_team_file(team_file(tmp_path))
    with spec.start(human_class=Seat) as running:
        running.send("send @Human response: VERDICT: pass, please")
        running.wait_idle(30)
        running.send("send @Human response: looks fine, please")
        running.wait_idle(30)
    first, second = Seat.received
    assert first.content == "VERDICT: pass, please"
    assert isinstance(second, FailureNotice)  # the model said it again, then its turn failed
    assert second.reason == (
        "OutputCheckError: check qa_team_checks:verdict_only refused @QA's message to @Human: "
        "Answer the person with a verdict only: start with VERDICT:"
    )


@pytest.mark.parametrize(
    ("old", "new", "line"),
    [
        (
            '"qa_team_checks:verdict_only"',
            '"qa_team_checks:nothing"',
            "roles.QA.checks[0] (line 8): 'qa_team_checks:nothing': "
            "'qa_team_checks' has no attribute 'nothing'",
        ),
        (
            '"qa_team_checks:polite"',
            '"qa_team_checks:NOT_A_FUNCTION"',
            "team.checks[0] (line 4): 'qa_team_checks:NOT_A_FUNCTION' is not callable "
            "(it is a int)",
        ),
        (
            '"qa_team_checks:verdict_only"',
            '"no_such_module_anywhere:fn"',
            "roles.QA.checks[0] (line 8): cannot import module 'no_such_module_anywhere' for "
            "'no_such_module_anywhere:fn': No module named 'no_such_module_anywhere'",
        ),
        (
            '"qa_team_checks:verdict_only"',
            '"verdict_only"',
            "roles.QA.checks[0] (line 8): expected 'package.module:function', got 'verdict_only'",
        ),
    ],
)
def test_a_bad_check_path_is_one_line(tmp_path: Path, old: str, new: str, line: str) -> None:
    file = team_file(tmp_path, TEAM.replace(old, new))
    with pytest.raises(TeamFileError) as caught:
        load_team_file(file)
    assert caught.value.problems == [line]


def test_retinue_check_names_the_role_and_the_path(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    file = team_file(tmp_path, TEAM.replace(":verdict_only", ":nothing"))
    assert main(["check", str(file)]) == 1
    err = capsys.readouterr().err
    assert err.splitlines() == [
        f"{file}: roles.QA.checks[0] (line 8): 'qa_team_checks:nothing': "
        "'qa_team_checks' has no attribute 'nothing'"
    ]
