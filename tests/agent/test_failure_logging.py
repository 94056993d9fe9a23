"""What a failure writes to the log: one WARNING line with the cause, tracebacks at DEBUG.

The traceback belongs in the record (`ErrorMessage.traceback`) and at DEBUG; a log read by a
person gets one line per failure. A shutdown that interrupts runs is a clean end, not a
failure, and logs no error at all.
"""

from __future__ import annotations

import logging

import pytest
from failure_scripts import Hanging
from retinue import (
    AgentCard,
    AgentConfig,
    BaseAgent,
    ModelConfig,
    PromptTemplate,
    RuntimeConfig,
)
from retinue.testing import TeamHarness


def role(name: str, script: str, runtime: RuntimeConfig | None = None) -> AgentCard:
    return AgentCard(
        description=f"{name} of the team",
        agent_class=BaseAgent,
        config=AgentConfig(
            name=f"@{name}",
            role=name,
            prompt=PromptTemplate(template=f"You are the {name}."),
            model_cfg=ModelConfig(provider="function", model=f"failure_scripts:{script}"),
            runtime_cfg=runtime or RuntimeConfig(),
        ),
    )


def loud(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    """retinue's records above DEBUG."""
    return [r for r in caplog.records if r.name.startswith("retinue") and r.levelno > logging.DEBUG]


def test_a_failed_run_logs_one_warning_line_and_the_traceback_at_debug(
    retinue_team: TeamHarness, caplog: pytest.LogCaptureFixture
) -> None:
    team = retinue_team
    dev = team.add(role("Dev", "explodes"))
    with caplog.at_level(logging.DEBUG, logger="retinue"):
        team.say(dev, "ship it")
        team.wait_idle()
    (line,) = [r for r in loud(caplog) if r.levelno >= logging.WARNING]
    assert line.levelno == logging.WARNING and line.exc_info is None
    message = line.getMessage()
    assert message.startswith("@Dev failed on AgentMessage ")
    assert message.endswith("from @Human: RuntimeError: model exploded")
    assert "\n" not in message
    tracebacks = [r for r in caplog.records if r.exc_info]
    assert tracebacks and all(r.levelno == logging.DEBUG for r in tracebacks)


def test_a_failed_operator_command_logs_no_traceback_above_debug(
    retinue_team: TeamHarness, caplog: pytest.LogCaptureFixture
) -> None:
    pytest.importorskip("retinue_team", reason="the failing command is retinue-team's")
    team = retinue_team
    dev = team.add(role("Dev", "explodes"))
    with caplog.at_level(logging.DEBUG, logger="retinue"):
        answer = team.command(dev, "/hire_member Ghost")
    assert answer.startswith("/hire_member failed: ValueError: no role 'Ghost' is registered")
    assert [r.exc_info for r in loud(caplog) if r.exc_info] == []
    (line,) = [r for r in loud(caplog) if r.levelno >= logging.WARNING]
    assert line.getMessage().startswith("command /hire_member failed: ValueError: no role")


def test_shutdown_with_runs_in_flight_logs_no_error(caplog: pytest.LogCaptureFixture) -> None:
    agents = 40
    team = TeamHarness()
    hanging = Hanging(agents)
    try:
        members = [team.add(role(f"W{i}", "unscripted"), model=hanging) for i in range(agents)]
        for member in members:
            team.say(member, "wait for ever")
        assert hanging.started.wait(20), "the runs did not all start"
    finally:
        with caplog.at_level(logging.DEBUG, logger="retinue"):
            assert team.shutdown(timeout=10)
    assert [r.getMessage() for r in loud(caplog) if r.levelno >= logging.ERROR] == []
    assert [r.getMessage() for r in loud(caplog) if r.exc_info] == []
    # nobody is told of a run that shutdown interrupted: it ended cleanly
    assert [m.content for m in team.received_by("@Human")] == []
