"""Answers that queue while an agent is busy reach its model together, in one run.

A manager that asked ten workers would otherwise spend ten runs, each re-reading its whole
history, to collect ten answers that were all waiting. Each answer is still delivered,
admitted to its chain and reported handled, exactly as when it had a turn of its own.
"""

from __future__ import annotations

import threading

from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models.function import AgentInfo
from retinue import ActorAddress, AgentCard, AgentMessage, HandledMessage, SentMessage
from retinue.testing import Incoming, TeamHarness, incoming_messages, scripted_card, send


class Busy:
    """A manager that parks on "hold" until the test has queued its mail, and notes what
    each of its runs was given."""

    def __init__(self) -> None:
        self.parked = threading.Event()
        self.release = threading.Event()
        self.runs: list[list[Incoming]] = []

    def manager(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        given = incoming_messages(messages)
        if given and given[-1].content == "hold":
            self.parked.set()
            assert self.release.wait(10), "the test never released the manager"
            return send(info)
        self.runs.append(given)
        return send(info)


def _team(team: TeamHarness, busy: Busy, *, per_turn: int = 16) -> ActorAddress:
    card = scripted_card("Manager")
    config = card.config.model_copy(update={"answers_per_turn": per_turn})
    return team.add(AgentCard(**{**dict(card), "config": config}), model=busy.manager)


def _queue_while_busy(
    team: TeamHarness, busy: Busy, manager: ActorAddress, mail: list[tuple[str, str, str]]
) -> None:
    """Park the manager, queue (sender role, intent, chain) messages, then let it go on."""
    team.say(manager, "hold")
    assert busy.parked.wait(10)
    workers: dict[str, ActorAddress] = {}
    for index, (role, intent, chain) in enumerate(mail, start=1):
        if role not in workers:
            workers[role] = team.add(scripted_card(role))
        message = AgentMessage(content=f"answer {index}", type=intent, chain_id=chain)
        team.system.post_from_outside(workers[role], manager, message)
    busy.release.set()
    team.wait_idle(20)


def test_ten_answers_queued_before_a_managers_turn_reach_its_model_in_one_request(
    retinue_team: TeamHarness,
) -> None:
    team = retinue_team
    busy = Busy()
    manager = _team(team, busy)
    mail = [(f"Worker{i}", "response", "the-task") for i in range(1, 11)]

    _queue_while_busy(team, busy, manager, mail)

    (run,) = busy.runs
    assert [got.content for got in run] == [f"answer {i}" for i in range(1, 11)]
    assert [got.sender for got in run] == [f"@Worker{i}" for i in range(1, 11)]
    assert len(team.model_requests("@Manager")) == 2  # the hold, then all ten at once
    # Each answer was delivered once and reported handled once, as with a turn of its own.
    answers = [
        m.message.id
        for m in team.of(SentMessage)
        if isinstance(m.message, AgentMessage) and m.message.content.startswith("answer")
    ]
    handled = [m.message_id for m in team.of(HandledMessage)]
    assert len(answers) == 10
    assert all(handled.count(answer) == 1 for answer in answers)


def test_a_turn_takes_in_at_most_answers_per_turn(retinue_team: TeamHarness) -> None:
    team = retinue_team
    busy = Busy()
    manager = _team(team, busy, per_turn=4)

    _queue_while_busy(team, busy, manager, [("Worker", "response", "the-task")] * 10)

    assert [len(run) for run in busy.runs] == [4, 4, 2]


def test_only_answers_of_the_same_chain_at_the_head_of_the_mailbox_join(
    retinue_team: TeamHarness,
) -> None:
    team = retinue_team
    busy = Busy()
    manager = _team(team, busy)
    mail = [
        ("Worker", "response", "one"),
        ("Worker", "response", "one"),
        ("Worker", "response", "other"),  # another chain: a turn of its own
        ("Worker", "response", "one"),  # behind it: does not overtake it
        ("Worker", "request", "one"),  # a request needs its own turn
        ("Worker", "response", "one"),
    ]

    _queue_while_busy(team, busy, manager, mail)

    assert [[got.content for got in run] for run in busy.runs] == [
        ["answer 1", "answer 2"],
        ["answer 3"],
        ["answer 4"],
        ["answer 5"],
        ["answer 6"],
    ]
