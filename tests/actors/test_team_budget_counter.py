"""The team budget counter: a run refused only at a limit, the person told once, holders woken."""

from __future__ import annotations

import logging
import threading

import pytest
from retinue import (
    ActorAddress,
    BudgetStatus,
    Charge,
    ConfigError,
    LimitsChange,
    LocalTeamBudget,
    TeamBudget,
    TeamUsageLimits,
)
from retinue.team.budget import render_status


def charge(budget: TeamBudget, member: str, tokens: int = 10, cost: float | None = 0.5) -> None:
    budget.charge(
        member,
        Charge(
            model_name="gpt-4.1" if cost is not None else "local",
            requests=1,
            input_tokens=tokens - 1,
            output_tokens=1,
            total_tokens=tokens,
            cost_usd=cost,
        ),
    )


def test_a_run_is_refused_once_a_limit_is_reached_and_only_the_first_refusal_tells() -> None:
    budget = LocalTeamBudget(TeamUsageLimits(total_tokens_limit=20))
    assert isinstance(budget, TeamBudget)
    for _ in range(2):
        assert budget.admit("@A").admitted
        charge(budget, "@A")
        budget.release("@A")

    first, second = budget.admit("@B"), budget.admit("@A")
    assert (first.admitted, first.first_refusal) == (False, True)
    assert (second.admitted, second.first_refusal) == (False, False)
    assert [str(b) for b in first.breaches] == ["tokens: 20 used of 20 allowed"]

    budget.raise_limits(LimitsChange(total_tokens_limit=10))
    assert budget.limits.total_tokens_limit == 30
    assert budget.admit("@B").admitted
    charge(budget, "@B")
    budget.release("@B")
    assert budget.admit("@A").first_refusal  # a new exhaustion is news again


def test_concurrent_runs_overshoot_by_at_most_the_runs_in_flight() -> None:
    limit, workers = 50, 8
    budget = LocalTeamBudget(TeamUsageLimits(request_limit=limit))
    admitted = [0] * workers
    gate = threading.Barrier(workers, timeout=30)

    def work(n: int) -> None:
        gate.wait()
        while budget.admit(f"@W{n}").admitted:
            admitted[n] += 1
            charge(budget, f"@W{n}")
            budget.release(f"@W{n}")

    threads = [threading.Thread(target=work, args=(n,)) for n in range(workers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)

    status = budget.status()
    assert status.in_flight == 0
    assert status.usage.requests == status.usage.runs == sum(admitted)
    assert {name: m.runs for name, m in status.usage.by_member.items()} == {
        f"@W{n}": admitted[n] for n in range(workers) if admitted[n]
    }
    # Every admitted run saw fewer than `limit` requests charged; at most the others in
    # flight then could still add theirs.
    assert limit <= status.usage.requests <= limit - 1 + status.peak_in_flight
    assert status.peak_in_flight <= workers


def test_a_change_of_limits_wakes_every_holder_once_and_is_reported() -> None:
    woken: list[list[str]] = []
    reported: list[object] = []
    budget = LocalTeamBudget(
        TeamUsageLimits(request_limit=1),
        wake=lambda holders: woken.append([h.name for h in holders]),
        report=reported.append,
    )
    a, b = ActorAddress(name="@A", role="A"), ActorAddress(name="@B", role="B")
    assert not budget.hold(a)  # nothing is spent: no reason to hold
    assert budget.admit("@A").admitted
    charge(budget, "@A")
    assert budget.hold(a) and budget.hold(b) and budget.hold(a)
    assert budget.status().holders == ["@A", "@B"]

    budget.set_limits(TeamUsageLimits(request_limit=5), changed_by="@Human")
    budget.set_limits(TeamUsageLimits(request_limit=6))
    assert woken == [["@A", "@B"]]
    assert [type(e).__name__ for e in reported] == ["BudgetLimitsChangedEvent"] * 2


def test_limits_are_plain_data_and_a_mistake_reads_as_one_line() -> None:
    limits = TeamUsageLimits(request_limit=100, total_tokens_limit=10_000, cost_limit_usd=2.5)
    assert TeamUsageLimits.model_validate(limits.model_dump()) == limits
    assert TeamUsageLimits.model_validate_json(limits.model_dump_json()) == limits
    assert not TeamUsageLimits().is_set
    with pytest.raises(ConfigError) as caught:
        TeamUsageLimits(total_tokens_limit=0)
    assert str(caught.value).count("\n") == 0
    assert "total_tokens_limit" in str(caught.value)
    with pytest.raises(ConfigError):
        TeamUsageLimits(cost_limit_usd=float("inf"))
    with pytest.raises(ConfigError):
        TeamUsageLimits(tokens=5)  # type: ignore[call-arg]


def test_a_raise_adds_to_limits_that_are_on_and_set_switches_them() -> None:
    limits = TeamUsageLimits(request_limit=10, cost_limit_usd=1.0)
    raised = LimitsChange(request_limit=5, total_tokens_limit=100, cost_limit_usd=0.5).raised(
        limits
    )
    assert raised == TeamUsageLimits(request_limit=15, cost_limit_usd=1.5)
    applied = LimitsChange(total_tokens_limit=100, off=frozenset({"cost_limit_usd"})).applied(
        limits
    )
    assert applied == TeamUsageLimits(request_limit=10, total_tokens_limit=100)


def test_the_status_survives_a_round_trip_and_names_the_models_without_a_price() -> None:
    budget = LocalTeamBudget(TeamUsageLimits(cost_limit_usd=1.0))
    assert budget.admit("@A").admitted
    charge(budget, "@A", cost=None)
    charge(budget, "@A", cost=None)
    charge(budget, "@B", cost=0.25)
    status = budget.status()
    assert status.usage.unpriced_models == ["local"]
    assert status.usage.unpriced_requests == 2
    assert status.usage.cost_usd == 0.25
    assert BudgetStatus.model_validate(status.model_dump(mode="json")) == status


def test_a_raise_that_is_not_enough_wakes_nobody() -> None:
    woken: list[list[str]] = []
    budget = LocalTeamBudget(
        TeamUsageLimits(request_limit=2), wake=lambda h: woken.append([a.name for a in h])
    )
    for _ in range(3):
        if budget.admit("@A").admitted:
            charge(budget, "@A")
            budget.release("@A")
    assert budget.hold(ActorAddress(name="@A", role="A"))
    assert budget.admit("@A").first_refusal is False  # told at the first refusal above

    budget.raise_limits(LimitsChange(request_limit=0))
    assert woken == []
    assert budget.status().holders == ["@A"]
    budget.raise_limits(LimitsChange(request_limit=1))
    assert woken == [["@A"]]


def request(budget: LocalTeamBudget, member: str) -> bool:
    """One model request's reservation, answered at once (as the model loop awaits it)."""
    return budget.reserve_now(member).admitted


def test_requests_are_reserved_and_what_a_run_did_not_use_comes_back() -> None:
    woken: list[list[str]] = []
    budget = LocalTeamBudget(
        TeamUsageLimits(request_limit=3), wake=lambda h: woken.append([a.name for a in h])
    )
    first = budget.admit("@A")  # reserves its first request
    assert first.remaining == TeamUsageLimits(request_limit=3)
    assert request(budget, "@A")  # that one, already reserved
    assert request(budget, "@A") and budget.status().reserved_requests == 2
    second = budget.admit("@B")  # the third request
    assert second.remaining == TeamUsageLimits(request_limit=1)
    assert "runs: 2 (2 in flight, 3 requests reserved)" in render_status(budget.status())
    refused = budget.reserve_now("@A")
    assert (refused.admitted, refused.first_refusal) == (False, True)
    assert not budget.admit("@C").admitted
    assert budget.hold(ActorAddress(name="@C", role="C"))

    charge(budget, "@A")  # @A's two requests are reported: reservations become the tally
    charge(budget, "@A")
    budget.release("@A")
    assert woken == []  # still spent: @B holds the last request
    assert (budget.status().usage.requests, budget.status().reserved_requests) == (2, 1)
    budget.release("@B")  # interrupted before it sent it: the request comes back
    assert woken == [["@C"]]
    status = budget.status()
    assert (status.usage.requests, status.reserved_requests, status.in_flight) == (2, 0, 0)
    assert budget.admit("@C").admitted


def test_responses_count_as_they_arrive_and_are_not_counted_twice() -> None:
    told: list[tuple[str, list[str]]] = []
    budget = LocalTeamBudget(
        TeamUsageLimits(total_tokens_limit=25),
        announce=lambda member, found: told.append((member, [str(b) for b in found])),
    )
    response = Charge(
        model_name="m", requests=1, input_tokens=9, output_tokens=1, total_tokens=10, cost_usd=None
    )
    assert budget.admit("@A").admitted and budget.admit("@B").admitted
    for member in ("@A", "@B"):
        assert request(budget, member)
        budget.spend(member, response)
    assert request(budget, "@A")  # 20 of 25 spent: one more request may start
    budget.spend("@A", response)
    assert not request(budget, "@B")  # 30: no request starts
    assert told == [("@A", ["tokens: 30 used of 25 allowed"])]  # once, by who reached it
    for member, times in (("@A", 2), ("@B", 1)):
        for _ in range(times):
            charge(budget, member)  # the runs report: moved to the tally, not added again
        budget.release(member)
    status = budget.status()
    assert status.usage.total_tokens == 30
    assert (status.reserved_requests, status.in_flight) == (0, 0)


def test_runs_on_many_threads_and_a_racing_raise_lose_and_double_nothing() -> None:
    """Reservations from 8 threads while another raises the limit 40 times, by one each."""
    workers, raises = 8, 40
    budget = LocalTeamBudget(TeamUsageLimits(request_limit=10))
    sent = [0] * workers
    gate = threading.Barrier(workers + 1, timeout=30)
    raised = threading.Event()

    def work(n: int) -> None:
        member = f"@W{n}"
        gate.wait()
        while True:
            if not budget.admit(member).admitted:
                if raised.is_set():  # spent for good: no reservation is ever given back
                    return
                continue
            while request(budget, member):  # each granted request is sent and reported
                sent[n] += 1
                charge(budget, member, tokens=3)
                if sent[n] % 3 == 0:
                    break
            budget.release(member)

    def raise_limit() -> None:
        gate.wait()
        for _ in range(raises):
            budget.raise_limits(LimitsChange(request_limit=1))
        raised.set()

    threads = [threading.Thread(target=work, args=(n,)) for n in range(workers)]
    threads.append(threading.Thread(target=raise_limit))
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)

    status = budget.status()
    assert status.limits.request_limit == 10 + raises
    assert status.usage.requests == sum(sent) == 10 + raises  # never past the limit
    assert status.usage.total_tokens == 3 * sum(sent)
    assert {name: m.requests for name, m in status.usage.by_member.items()} == {
        f"@W{n}": sent[n] for n in range(workers) if sent[n]
    }
    assert (status.in_flight, status.reserved_requests) == (0, 0)


def test_a_model_without_a_price_is_news_once_and_a_scripted_one_never(
    caplog: pytest.LogCaptureFixture,
) -> None:
    budget = LocalTeamBudget(TeamUsageLimits(cost_limit_usd=1.0))
    with caplog.at_level(logging.WARNING, logger="retinue"):
        for model, scripted in [("lead_script:lead", True), ("in-house", False)] * 2:
            budget.charge(
                "@A",
                Charge(
                    model_name=model,
                    requests=1,
                    input_tokens=9,
                    output_tokens=1,
                    total_tokens=10,
                    cost_usd=None,
                    scripted=scripted,
                ),
            )
    assert [r.getMessage() for r in caplog.records] == [
        "the team's USD figure leaves out in-house: genai-prices has no price for it "
        "(its tokens and requests still count)"
    ]
    usage = budget.status().usage
    assert usage.unpriced_models == ["lead_script:lead", "in-house"]  # /budget still says so
    assert usage.unpriced_requests == 4
