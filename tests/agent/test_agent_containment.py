"""Real agents on real runs: what a sync tool or model function does stays in its own turn.

- `SystemExit` / `KeyboardInterrupt` from a sync tool or model function fails that turn only.
- A tool that asks its own agent is refused at once instead of deadlocking until the timeout.
- `/stop` ends a run blocked in a worker thread at once; the blocked call's result, when it
  finally comes, is thrown away.
"""

from __future__ import annotations

from collections.abc import Iterator

import containment_cards
import pytest
from containment_cards import HazardTool, card
from retinue import ErrorMessage, FailureNotice
from retinue.testing import TeamHarness


@pytest.fixture(autouse=True)
def _fresh_gate() -> Iterator[None]:
    containment_cards.reset()
    yield
    containment_cards.gate.set()  # never leave a worker thread parked


@pytest.fixture
def patient_team() -> Iterator[TeamHarness]:
    """A team whose asks wait a minute: a deadlock must show as a hang, not as a quick error."""
    team = TeamHarness(ask_timeout=60)
    try:
        yield team
    finally:
        containment_cards.gate.set()
        assert team.shutdown(timeout=10), "an actor was still stuck at the end of the test"


def to_human(team: TeamHarness) -> list[str]:
    """What the person was sent, less the one-line failure notices (tests/agent/test_failures)."""
    return [m.content for m in team.received_by("@Human") if not isinstance(m, FailureNotice)]


# ---------------------------------------------------------------- aborts stay in their turn


@pytest.mark.parametrize(
    ("tool", "raised"), [("exit_process", "SystemExit"), ("press_ctrl_c", "KeyboardInterrupt")]
)
def test_an_abort_in_a_sync_tool_fails_that_turn_only(
    retinue_team: TeamHarness, tool: str, raised: str
) -> None:
    team = retinue_team
    worker = team.add(card("Worker", "calls_then_answers", tools=[HazardTool()]))
    other = team.add(card("Other", "calls_then_answers"))
    team.say(worker, f"call {tool}")
    team.wait_idle(10)
    (error,) = team.of(ErrorMessage)
    assert error.sender == worker
    assert error.exception_type == "LoopTaskAbortedError"
    assert raised in error.exception_value

    team.say(worker, "hello")
    team.say(other, "hello too")
    team.wait_idle(10)
    assert sorted(to_human(team)) == ["done: hello -> nothing", "done: hello too -> nothing"]


@pytest.mark.parametrize(
    ("content", "raised"), [("exit", "SystemExit"), ("interrupt", "KeyboardInterrupt")]
)
def test_an_abort_in_a_sync_model_function_fails_that_turn_only(
    retinue_team: TeamHarness, content: str, raised: str
) -> None:
    team = retinue_team
    worker = team.add(card("Worker", "raises_in_model"))
    team.say(worker, content)
    team.wait_idle(10)
    (error,) = team.of(ErrorMessage)
    assert error.exception_type == "LoopTaskAbortedError"
    assert raised in error.exception_value
    team.say(worker, "hello")
    team.wait_idle(10)
    assert to_human(team) == ["done: hello"]


# ---------------------------------------------------------------- a tool asking its own agent


@pytest.mark.parametrize("tool", ["ask_myself", "ask_myself_async"])
def test_a_tool_asking_its_own_agent_is_refused_at_once(
    patient_team: TeamHarness, tool: str
) -> None:
    team = patient_team
    worker = team.add(card("Worker", "calls_then_answers", tools=[HazardTool()]))
    team.say(worker, f"call {tool}")
    team.wait_idle(10)  # the ask timeout is 60 s: only an immediate refusal gets here
    (error,) = team.of(ErrorMessage)
    assert error.exception_type == "SelfAskError"
    assert "@Worker" in error.exception_value
    assert "get_usage_summary" in error.exception_value

    team.say(worker, "hello")
    team.wait_idle(10)
    assert to_human(team) == ["done: hello -> nothing"]


# ---------------------------------------------------------------- /stop and a blocked worker


@pytest.mark.parametrize(
    ("script", "content"),
    [("blocking_model", "block"), ("calls_then_answers", "call wait_for_gate")],
    ids=["sync-model", "sync-tool"],
)
def test_stop_ends_a_run_blocked_in_a_worker_thread_at_once(
    retinue_team: TeamHarness, script: str, content: str
) -> None:
    team = retinue_team
    worker = team.add(card("Worker", script, tools=[HazardTool()]))
    team.say(worker, content)
    assert containment_cards.entered.wait(10)
    team.say(worker, "/stop")
    team.wait_idle(10)  # the run's own timeout is 600 s: only the stop ends it this soon
    assert to_human(team) == ["Run interrupted."]
    assert team.of(ErrorMessage) == []

    # the blocked call comes back at last; what it produced must go nowhere
    containment_cards.gate.set()
    assert containment_cards.returned.wait(10)
    team.say(worker, "next")
    team.wait_idle(10)
    answer = "done: next" if script == "blocking_model" else "done: next -> nothing"
    assert to_human(team) == ["Run interrupted.", answer]
    transcript = team.proxy(worker).get_context_transcript()
    assert "late: block" not in transcript
    assert "the gate opened" not in transcript
