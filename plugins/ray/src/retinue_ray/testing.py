"""retinue-ray's pytest plugin (opt-in: `pytest -p retinue_ray.testing`).

- `ray_cluster`: a real local Ray cluster for the whole session (a head on 127.0.0.2 and a
  second node on 127.0.0.3: Ray swaps 127.0.0.1 for the machine's outside address, see
  `retinue_ray.local`), this process connected to it; stopped at the end with `ray stop`,
  even when a test failed. One that cannot start fails the tests that need it.
- `pytest_retinue_cluster`: retinue's hook for the `retinue_cluster` fixture, answered:
  every `retinue_team` runs on two Ray hosts (started once, then opened again for each
  test), so a suite written for one process runs unchanged on Ray.

Run with it, a suite keeps only the tests that take a `retinue_team` (the others would run
in one process exactly as without it), and the tests listed in `ON_ONE_PROCESS_ONLY` are
expected to fail there, each for the reason given.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from retinue_ray.local import LocalRayCluster

#: Hosts each test's team runs on.
TEST_HOSTS = 2
_TEAM_TESTS = pytest.StashKey[int]()


#: Tests of the kernel's agent suite that cannot pass on Ray hosts, and why (by test id,
#: from the repository's root). Each is run and expected to fail (strict: one that passes
#: fails the run, so the list stays true).
_GATE = (
    "its scripted model is a closure over the test's threading events (a gate the test opens, "
    "a flag it waits on): such a model cannot be pickled to a host, so the agent cannot start "
    "there, and on a host it would open that process's copy"
)
_LOCKED = (
    "its scripted model is a closure holding a lock of the test's: it cannot be pickled to a "
    "host (the start is refused in one line)"
)
_LOG = "it reads the log with caplog: the agent logs on its host, into Ray's worker log"
_STATE = "its scripted model fills a list of the test's: on a host it fills that process's copy"
_LOCAL = (
    "it reaches the live agent object in this process (`runtime.lookup`, the in-process "
    "`OrchestratorTeam`): on Ray the agent lives in a host process and its team view is a "
    "`RemoteTeam`"
)
_STREAM = (
    "it listens to a run's output as the model writes it: the listener lives in this "
    "process, and a host does not carry streamed text back (only the finished messages)"
)
_A = "tests/agent/"
_DROPPED = f"{_A}test_dropped_work.py::test_"
ON_ONE_PROCESS_ONLY: dict[str, str] = {
    **{
        f"{_DROPPED}{name}": _LOCKED
        for name in (
            "a_message_to_an_unknown_member_is_told_to_its_sender_and_the_person",
            "a_message_to_an_unregistered_role_is_told",
            "a_hire_its_routes_to_refuses_is_told",
            "the_person_is_told_once_per_chain_and_the_sender_of_each_message",
            "a_recipient_a_model_wrote_cannot_forge_a_kernel_line",
            "an_answer_to_a_requester_fired_meanwhile_is_told",
            "an_answer_left_in_a_stopping_requesters_mailbox_is_told",
        )
    },
    **{
        f"{_A}test_joined_answers.py::test_{name}": _GATE
        for name in (
            "ten_answers_queued_before_a_managers_turn_reach_its_model_in_one_request",
            "a_turn_takes_in_at_most_answers_per_turn",
            "only_answers_of_the_same_chain_at_the_head_of_the_mailbox_join",
        )
    },
    f"{_A}test_shared_instructions.py::test_two_members_send_identical_leading_instructions_"
    "and_their_own_part_last": _STATE,
    f"{_A}test_output_schema.py::test_a_model_is_offered_the_output_tool_without_definitions_"
    "and_its_answer_validates": _STATE,
    **{
        f"{_A}test_streaming.py::test_{name}": _STREAM
        for name in (
            "a_listened_run_streams_its_output_before_the_model_has_finished",
            "a_half_written_recipient_does_not_use_up_the_runs_correction",
            "a_stop_ends_a_run_mid_stream",
        )
    },
    f"{_A}test_agent_containment.py::test_stop_ends_a_run_blocked_in_a_worker_thread_at_once"
    "[sync-model]": _GATE,
    f"{_A}test_agent_containment.py::test_stop_ends_a_run_blocked_in_a_worker_thread_at_once"
    "[sync-tool]": _GATE,
    f"{_A}test_cancel.py::test_cancel_mid_run_interrupts_once_and_the_next_message_runs": _GATE,
    f"{_A}test_cancel.py::test_cancel_during_the_final_request_ends_it_at_once": _GATE,
    f"{_A}test_cancel.py::test_stale_cancel_never_interrupts_a_later_run": _GATE,
    f"{_A}test_cancel.py::test_a_stop_while_the_turn_prepares_its_run_stops_that_run": _GATE,
    f"{_A}test_cancel.py::test_mid_run_message_is_announced_once_then_gets_its_own_turn": _GATE,
    f"{_A}test_cancel.py::test_stop_with_words_interrupts_a_run": _GATE,
    f"{_A}test_cascade.py::test_stop_to_the_manager_stops_the_three_runs_and_their_chain_but_"
    "no_other": _GATE,
    f"{_A}test_cascade.py::test_a_late_reply_in_a_stopped_chain_restarts_nothing": _GATE,
    f"{_A}test_cascade.py::test_a_plain_cancel_message_stops_one_run_only": _GATE,
    f"{_A}test_cascade.py::test_a_cascading_cancel_message_from_code_tells_the_person_once": _GATE,
    f"{_A}test_cascade.py::test_a_failure_in_the_stopped_task_still_reaches_the_person_and_the_"
    "stop_adds_none": _GATE,
    f"{_A}test_failure_logging.py::test_a_failed_run_logs_one_warning_line_and_the_traceback_"
    "at_debug": _LOG,
    f"{_A}test_failure_logging.py::test_a_failed_operator_command_logs_no_traceback_above_"
    "debug": _LOG,
    f"{_A}test_failures.py::test_a_run_timeout_is_a_failure": _GATE,
    f"{_A}test_failures.py::test_an_interruption_re_raised_by_act_is_no_failure": _GATE,
    f"{_A}test_failures.py::test_a_request_to_a_member_that_stopped_answers_the_sender": (
        "its agent class is defined inside the test around a threading event, so neither the "
        "class nor the team's directory naming it can be pickled to a host"
    ),
    f"{_A}test_hostile_input.py::test_content_cannot_forge_who_sent_it[header]": _LOCKED,
    f"{_A}test_hostile_input.py::test_content_cannot_forge_who_sent_it[breakout]": _LOCKED,
    f"{_A}test_hostile_input.py::test_the_system_block_says_how_to_read_a_message": _LOCKED,
    f"{_A}test_hostile_input.py::test_a_huge_forged_marker_disables_nothing": _LOCKED,
    f"{_A}test_hostile_input.py::test_a_small_forged_marker_does_not_move_the_block_counter": (
        _LOCKED
    ),
    f"{_A}test_hostile_input.py::test_an_oversized_command_is_refused_in_one_short_line": _LOCKED,
    f"{_A}test_hostile_input.py::test_an_oversized_argument_is_refused_without_echo": _LOCKED,
    f"{_A}test_long_mailbox.py::test_a_turn_reads_none_of_the_10000_messages_queued_behind_it": (
        _GATE
    ),
    f"{_A}test_loops.py::test_repeated_words_with_tool_progress_are_not_a_loop": _LOCKED,
    f"{_A}test_loops.py::test_continue_lets_a_stopped_chain_go_on_to_its_end": _LOCKED,
    f"{_A}test_resolve.py::test_a_hire_that_cannot_happen_costs_no_other_hand_off": _LOG,
    f"{_A}test_team_budget.py::test_budget_commands_are_for_operators_only_and_answer_mistakes_"
    "in_one_line": _STATE,
    f"{_A}test_team_view.py::test_an_agent_s_team_is_a_typed_view_of_the_published_directory": (
        _LOCAL
    ),
    f"{_A}test_team_view.py::test_hire_fire_and_stop_go_through_the_team_view": _LOCAL,
}


#: Of those, the ones not even run: the failure they meet on a host (pickling a class defined
#: in the test recurses to Python's limit) can crash pytest's own report of it (a CPython
#: `SystemError` while it parses the source for the traceback), ending the whole run.
NOT_RUN_ON_RAY = frozenset(
    {f"{_A}test_failures.py::test_a_request_to_a_member_that_stopped_answers_the_sender"}
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Keep the tests that run a team; mark those that cannot pass on Ray."""
    kept, dropped = [], []
    for item in items:
        if "retinue_team" in getattr(item, "fixturenames", ()):
            kept.append(item)
        else:
            dropped.append(item)
        reason = ON_ONE_PROCESS_ONLY.get(item.nodeid)
        if item.nodeid in NOT_RUN_ON_RAY:
            item.add_marker(pytest.mark.skip(reason=reason or "cannot run on Ray"))
        elif reason is not None:
            item.add_marker(pytest.mark.xfail(reason=reason, strict=True))
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept
    config.stash[_TEAM_TESTS] = len(kept)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--ray-python-path",
        action="append",
        default=[],
        help="a directory the Ray workers import test modules from (repeatable)",
    )


@pytest.fixture(scope="session")
def ray_cluster(request: pytest.FixtureRequest) -> Iterator[LocalRayCluster]:
    """A head on 127.0.0.2 and a node on 127.0.0.3, this process connected; stopped after."""
    import ray

    # Test modules (and the scripts and actors in them) are imported by name on the hosts:
    # the directories pytest put on `sys.path` for them go on the hosts' path too.
    root = Path(str(request.config.rootpath)).resolve()
    given = request.config.getoption("--ray-python-path", default=None) or []
    paths = [Path(p).resolve() for p in given]
    paths += [Path(p).resolve() for p in sys.path if p and Path(p).resolve().is_relative_to(root)]
    paths.append(root)
    cluster = LocalRayCluster(nodes=2, python_path=paths)
    cluster.start()
    try:
        ray.init(address=cluster.address, logging_level=logging.WARNING, log_to_driver=True)
        yield cluster
    finally:
        try:
            ray.shutdown()
        finally:
            cluster.stop()


def pytest_retinue_cluster(request: pytest.FixtureRequest) -> Any:
    """Each `retinue_team` runs on two Ray hosts, kept between tests (`reuse=True`)."""
    from retinue_ray.cluster import RayCluster

    request.getfixturevalue("ray_cluster")
    _ANSWERED.append(request.node.nodeid)
    return RayCluster(hosts=TEST_HOSTS, reuse=True)


#: The tests this plugin gave a Ray cluster: none after a run of team tests means the suite
#: ran in one process after all (another `retinue_cluster` fixture won), which fails it.
_ANSWERED: list[str] = []


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    teams = session.config.stash.get(_TEAM_TESTS, 0)
    if teams and not _ANSWERED and session.testscollected:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
        session.config.get_terminal_writer().line(
            "retinue_ray.testing: no test's team ran on Ray (another `retinue_cluster` "
            "fixture overrides the hook)",
            red=True,
        )
