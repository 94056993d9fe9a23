"""`fork_team` and `retinue resume --at --fork` on a real SQLite file: a new team from a
recorded one as it was at a position, the source's record untouched."""

from __future__ import annotations

import pytest
from retinue import AgentMessage, EventMessage, SentMessage
from retinue.cli.main import main
from retinue.record import decode
from retinue.resume import FORKED_FROM, ResumedTeam, ResumeError, TeamForkedEvent, fork_team
from retinue.resume.lineage import lineage_records
from retinue.store import Store, open_store
from retinue.testing import TeamHarness, scripted_card, send_directive, user_texts
from retinue.testing.histories import model_requests

pytest.importorskip("retinue_planning", reason="the forked board needs retinue-planning")


def answer(text: str) -> str:
    return send_directive("@Human", "response", text)


def snapshot(store: Store, team_id: str) -> list[tuple[int, str, str]]:
    return [(r.position, r.kind, r.data) for r in store.read(team_id)]


def said(store: Store, team_id: str) -> list[str]:
    """What the team's members said to the person, in its own record."""
    return [
        m.message.content
        for m in (decode(r.data) for r in store.read(team_id, kinds=["SentMessage"]))
        if isinstance(m, SentMessage)
        and isinstance(m.message, AgentMessage)
        and m.message.recipient is not None
        and m.message.recipient.name == "@Human"
    ]


def manager_requests(store: Store, team_id: str) -> list[str]:
    """The Manager's model requests as its history stood then, read through the lineage
    (a fork's own record holds only what it did itself); each as its prompts' text."""
    messages = [decode(record.data) for _, record in lineage_records(store, team_id)]
    events = [m.event for m in messages if isinstance(m, EventMessage)]
    return ["\n".join(user_texts(request)) for request in model_requests(events, "@Manager")]


def recorded_team(where: str) -> tuple[str, int]:
    """A manager with a board answers twice; the id, and the position before its 2nd turn."""
    first = TeamHarness(store=where)
    first.add(scripted_card("Worker"))
    lead = first.add(scripted_card("Manager", tools=["planning"]))
    first.command(lead, "/plan_add Write the parser")
    first.say(lead, answer("first answer"))
    first.wait_idle(30)
    store = first.system.store
    assert store is not None
    info = store.team(first.team_id)
    assert info is not None
    position = info.last_position  # the manager's second turn begins after this
    first.command(lead, "/plan_add Test the parser")
    first.say(lead, answer("second answer"))
    first.wait_idle(30)
    assert first.shutdown(10)
    return first.team_id, position


def test_a_fork_goes_on_from_the_position_and_the_source_is_unchanged(where: str) -> None:
    source, position = recorded_team(where)
    with open_store(where, create=False) as store:
        before = snapshot(store, source)
        fork: ResumedTeam = fork_team(store, source, at=position)
        try:
            assert sorted(fork.roster) == ["@Human", "@Manager", "@Worker"]
            spent = fork.team.get_budget_status().usage  # as at the position: one run
            assert (spent.runs, spent.requests) == (1, 1)
            manager = fork.roster["@Manager"]
            fork.send(answer("a changed answer"), to=manager)
            fork.send("/planning_summary", to=manager)
            fork.wait_idle(30)
        finally:
            assert fork.shutdown(10)

        assert snapshot(store, source) == before  # every record, byte for byte
        assert fork.team_id != source
        assert fork.forked_from == TeamForkedEvent(source_team_id=source, position=position)
        (first,) = store.read(fork.team_id, limit=1)
        assert first.position == 1 and first.kind == "TeamForkedEvent"
        forked = decode(first.data)
        assert isinstance(forked, EventMessage) and forked.event == fork.forked_from
        info = store.team(fork.team_id)
        assert info is not None
        assert info.metadata[FORKED_FROM] == {"team_id": source, "position": position}
        *answers, summary = said(store, fork.team_id)
        assert answers == ["a changed answer"]  # the second answer is not in the fork
        assert "Write the parser" in summary and "Test the parser" not in summary  # the board
        # the manager's history came back as it was: its first answer, not its second
        *_, forked_turn = manager_requests(store, fork.team_id)
        assert "first answer" in forked_turn and "a changed answer" in forked_turn
        assert "second answer" not in forked_turn


def test_retinue_log_shows_where_a_fork_began_and_the_forks_of_a_team(
    where: str, capsys: pytest.CaptureFixture[str]
) -> None:
    source, position = recorded_team(where)
    with open_store(where, create=False) as store:
        fork = fork_team(store, source, at=position)
        fork.send(answer("a changed answer"), to=fork.roster["@Manager"])
        fork.wait_idle(30)
        assert fork.shutdown(10)

    assert main(["log", source, "--store", where]) == 0
    lines = [line.split("] ", 1)[-1] for line in capsys.readouterr().out.splitlines()]
    assert lines[lines.index(f"⑂ forked at position {position} into team {fork.team_id}") - 1 :][
        :3
    ] == [
        "@Manager → @Human (response): first answer",
        f"⑂ forked at position {position} into team {fork.team_id}",
        "@Human → @Manager (request): /plan_add Test the parser",
    ]
    assert main(["log", fork.team_id, "--store", where]) == 0
    lines = [line.split("] ", 1)[-1] for line in capsys.readouterr().out.splitlines()]
    assert lines[0] == f"⑂ forked from team {source} at position {position}"
    assert lines[-1] == "@Manager → @Human (response): a changed answer"


def test_retinue_resume_fork_says_where_it_began_and_bad_input_is_one_error(
    where: str, capsys: pytest.CaptureFixture[str]
) -> None:
    source, position = recorded_team(where)

    code = main(
        [
            "resume",
            source,
            "--store",
            where,
            "--at",
            str(position),
            "--fork",
            "-m",
            "/planning_summary",
        ]
    )
    out = capsys.readouterr().out.splitlines()
    assert code == 0
    assert out[0].startswith("forked team ") and out[0].endswith(
        f" from {source} at position {position}: @Human, @Manager, @Worker"
    )

    for args, error in [
        (["--at", "99999", "--fork"], f"team {source} has no position 99999: its record runs"),
        (["--at", "0", "--fork"], f"team {source} has no position 0: its record runs"),
        (["--at", str(position)], "--at needs --fork (a team's record is never cut)"),
    ]:
        assert main(["resume", source, "--store", where, *args]) == 2
        err = capsys.readouterr().err.strip()
        assert error in err and len(err.splitlines()) == 1, err
    assert main(["resume", "no-such-team", "--store", where, "--fork"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"retinue resume: {where} has no team no-such-team (see `retinue teams`)"
    with pytest.raises(SystemExit) as exited:
        main(["resume", source, "--store", where, "--at", "two", "--fork"])
    assert exited.value.code == 2
    assert "--at: invalid int value: 'two'" in capsys.readouterr().err
    with open_store(where, create=False) as store:  # the failures left no team behind
        assert len(store.list_teams()) == 2


def test_a_team_this_process_runs_is_not_forked_here(where: str) -> None:
    running = TeamHarness(store=where)
    running.add(scripted_card("Manager"))
    running.wait_idle(30)
    try:
        store = running.system.store
        assert store is not None
        with pytest.raises(ResumeError) as caught:
            fork_team(store, running.team_id)
        assert str(caught.value) == (
            f"team {running.team_id} runs in this process (@Human, @Manager): fork it from "
            "another process, or once it has stopped"
        )
        assert [t.team_id for t in store.list_teams()] == [running.team_id]
    finally:
        assert running.shutdown(10)


def test_a_fork_of_a_fork_reads_through_both(where: str) -> None:
    source, position = recorded_team(where)
    with open_store(where, create=False) as store:
        fork = fork_team(store, source, at=position)
        fork.send(answer("from the fork"), to=fork.roster["@Manager"])
        fork.wait_idle(30)
        assert fork.shutdown(10)
        again = fork_team(store, fork.team_id)  # at its end
        try:
            again.send(answer("from the fork's fork"), to=again.roster["@Manager"])
            again.wait_idle(30)
        finally:
            assert again.shutdown(10)
        assert said(store, again.team_id) == ["from the fork's fork"]
        *_, last = manager_requests(store, again.team_id)
        assert "first answer" in last and "from the fork" in last
        assert "second answer" not in last
        with pytest.raises(ResumeError, match="has no position"):
            fork_team(store, fork.team_id, at=10_000)
