"""The team's `ChainLedger`: who is downstream of whom, stops, loop counts, bounded memory.

The cost check is benchmark-free: it counts the work one message costs (fingerprint
comparisons) and the entries a chain keeps, at hop 10 and at hop 5,000.
"""

from __future__ import annotations

import pytest
from retinue import (
    ActorAddress,
    ChainLedger,
    ChainMessageDroppedEvent,
    ChainResumedEvent,
    ChainStop,
    ChainStoppedEvent,
    ConfigError,
    LoopLimits,
    TeamConfig,
)
from retinue.team import chains
from retinue.team.fingerprints import FINGERPRINT_WORDS


def agent(name: str) -> ActorAddress:
    return ActorAddress(name=name, role=name.strip("@"))


HUMAN = ActorAddress(name="@Human", role="Human", is_user_proxy=True)
M, D1, D2, T, LEAD = (agent(n) for n in ("@Manager", "@Dev1", "@Dev2", "@Tester", "@Lead"))


def distinct(n: int) -> str:
    return f"step {n}: wrote part {n} of w{n}a w{n}b w{n}c"


def test_a_stop_reaches_everyone_downstream_and_nobody_else() -> None:
    ledger = ChainLedger()
    for sender, recipient in [(LEAD, M), (M, D1), (M, D2), (D1, T)]:
        assert ledger.admit("c", sender, recipient, "request", f"{sender.name} to {recipient.name}")
    ledger.admit("c", D2, M, "response", "done")  # an answer is no delegation
    stopped = ledger.stop_downstream("c", D1, by="@Human", include_member=True)
    assert [a.name for a in stopped] == ["@Dev1", "@Tester"]
    assert ledger.is_stopped("c", "@Tester") and ledger.is_stopped("c", "@Dev1")
    assert not ledger.is_stopped("c", "@Dev2") and not ledger.is_stopped("c", "@Manager")
    # a stopped member's late reply is refused; the others still talk
    assert not ledger.admit("c", T, D1, "response", "tests pass").allowed
    assert not ledger.admit("c", M, D1, "request", "one more thing").allowed
    assert ledger.admit("c", D2, M, "response", "also done").allowed
    assert ledger.stop_of("c") == ChainStop(
        chain_id="c",
        kind="cancel",
        reason="stopped by @Human",
        members=("@Dev1", "@Tester"),
        by="@Human",
    )


def test_an_idle_member_with_nothing_downstream_closes_nothing() -> None:
    ledger = ChainLedger()
    ledger.admit("c", M, HUMAN, "response", "hello")
    assert ledger.stop_downstream("c", M, by="@Human", include_member=False) == []
    assert ledger.stop_of("c") is None
    assert ledger.latest_delegated("@Manager") is None


def test_the_latest_chain_a_member_delegated_in_is_the_one_an_idle_stop_takes() -> None:
    ledger = ChainLedger()
    ledger.admit("old", M, D1, "request", "first")
    ledger.admit("new", M, D2, "request", "second")
    ledger.admit("other", D1, T, "request", "elsewhere")
    assert ledger.latest_delegated("@Manager") == "new"
    ledger.stop_downstream("new", M, by=None, include_member=False)
    assert ledger.latest_delegated("@Manager") == "old"  # a second /stop walks back


def test_messages_of_people_are_no_hops() -> None:
    ledger = ChainLedger(LoopLimits(max_hops=2))
    for _ in range(10):
        assert ledger.admit("c", M, HUMAN, "response", "same words").allowed
        assert ledger.admit("c", HUMAN, M, "request", "same words").allowed
    assert ledger.stop_of("c") is None


def test_each_limit_names_itself() -> None:
    pair = ChainLedger(LoopLimits(max_pair_messages=3))
    verdicts = [pair.admit("c", M, D1, "request", distinct(n)) for n in range(4)]
    assert [v.allowed for v in verdicts] == [True, True, True, False]
    assert verdicts[-1].stop is not None
    assert "4 messages between @Dev1 and @Manager" in verdicts[-1].stop.reason

    hops = ChainLedger(LoopLimits(max_hops=3))
    members = [M, D1, D2, T, LEAD]
    verdicts = [
        hops.admit("c", members[n], members[n + 1], "request", distinct(n)) for n in range(4)
    ]
    assert [v.allowed for v in verdicts] == [True, True, True, False]
    assert verdicts[-1].stop is not None
    assert verdicts[-1].stop.reason == "4 hops in one chain (the limit is 3)"
    assert verdicts[-1].stop.path == ("@Manager", "@Dev1", "@Dev2", "@Tester", "@Lead")


def test_progress_resets_the_repeat_count_only() -> None:
    ledger = ChainLedger(LoopLimits(max_repeats=2))
    for n in range(20):
        sender, recipient = (M, D1) if n % 2 else (D1, M)
        assert ledger.admit("c", sender, recipient, "request", "same", progress=True).allowed
    verdict = ledger.admit("c", M, D1, "request", "same")
    assert ledger.admit("c", D1, M, "request", "same").allowed is verdict.allowed is True
    refused = ledger.admit("c", M, D1, "request", "same")
    assert not refused.allowed and refused.hold and refused.stop is not None
    assert refused.stop.by == "@Manager"
    # once stopped, every further message of the chain is refused (no second notice)
    later = ledger.admit("c", D2, T, "request", "unrelated words")
    assert not later.allowed and later.stop is None and later.hold
    assert ledger.admit("c", M, HUMAN, "response", "same").allowed  # the person still hears


def test_near_identical_ignores_case_punctuation_and_names() -> None:
    words = chains.content_words
    assert words("Thanks, @Alpha!") == words("thanks @Beta")
    assert chains.near_identical(words("a b c d e"), words("a b c d e f"), 0.8)
    assert not chains.near_identical(words("run the tests"), words("run the linter"), 0.8)
    assert chains.near_identical(words(""), words("@Alpha"), 0.8)  # nothing but names
    assert len(words(" ".join(f"w{n}" for n in range(1000)))) == FINGERPRINT_WORDS


def test_reopen_gives_fresh_counts_an_allowance_and_the_held_messages() -> None:
    ledger = ChainLedger(LoopLimits(max_repeats=1))
    ledger.admit("c", M, D1, "request", "same")
    ledger.admit("c", D1, M, "request", "same")
    refused = ledger.admit("c", M, D1, "request", "same")
    assert refused.stop is not None
    assert ledger.hold("c", "the refused message")
    assert ledger.stopped_chains_of("@Dev1") == ["c"]
    stop, held = ledger.reopen("c", grace=3)
    assert stop == refused.stop and held == ["the refused message"]
    assert ledger.stopped_chains_of("@Dev1") == []
    allowed = [ledger.admit("c", M, D1, "request", "same").allowed for _ in range(6)]
    assert allowed == [True, True, True, True, True, False]  # 3 unchecked, then 2 counted
    assert ledger.reopen("unknown") == (None, [])


def test_held_messages_are_bounded() -> None:
    ledger = ChainLedger(LoopLimits(max_repeats=1))
    for _ in range(3):
        ledger.admit("c", M, D1, "request", "same")
    kept = [ledger.hold("c", n) for n in range(chains.MAX_HELD + 5)]
    assert kept.count(True) == chains.MAX_HELD
    assert not ledger.hold("open chain", "x")


# ---------------------------------------------------------------------- the cost check
def test_one_message_costs_the_same_at_hop_10_and_at_hop_5000(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    compared: list[int] = []
    original = chains.near_identical

    def counting(a: frozenset[str], b: frozenset[str], threshold: float) -> bool:
        compared[-1] += 1
        return original(a, b, threshold)

    monkeypatch.setattr(chains, "near_identical", counting)
    limits = LoopLimits(max_hops=10**9, max_pair_messages=10**9)
    ledger = ChainLedger(limits)
    footprints = {}
    for n in range(1, 5001):
        compared.append(0)
        sender, recipient = (M, D1) if n % 2 else (D1, M)
        assert ledger.admit("c", sender, recipient, "request", distinct(n)).allowed
        if n in (10, 5000):
            footprints[n] = ledger.footprint("c")
    assert max(compared) == limits.window  # never more comparisons than the window holds
    assert compared[9] == compared[4999]
    assert footprints[10] == footprints[5000]
    assert footprints[5000]["window"] == limits.window
    assert footprints[5000]["path"] == chains.PATH_LENGTH
    assert footprints[5000]["pairs"] == 1


def test_the_ledger_forgets_the_least_recently_active_chains() -> None:
    ledger = ChainLedger(LoopLimits(max_chains=100))
    ledger.admit("kept", M, D1, "request", "first")
    ledger.stop_downstream("closed", M, by=None, include_member=True)
    for n in range(3000):
        ledger.admit(f"c{n}", M, D1, "request", "work")
        if n % 50 == 0:
            ledger.admit("kept", M, D1, "request", f"more {n}")  # active: stays
    assert len(ledger) == 100
    assert ledger.footprint("kept") != {}
    assert ledger.stop_of("closed") is None  # a closed chain is forgotten like any other
    ledger.limits = LoopLimits(max_chains=10)
    assert len(ledger) == 10


# ---------------------------------------------------------------------- round trips
def test_settings_stops_and_events_round_trip() -> None:
    stop = ChainStop(chain_id="c", kind="loop", reason="r", members=("@A",), path=("@A", "@B"))
    for value in [
        LoopLimits(max_repeats=2, similarity=0.5),
        TeamConfig(name="@Orchestrator", loops=LoopLimits(enabled=False)),
        stop,
        ChainStoppedEvent(agent=M, stop=stop),
        ChainResumedEvent(agent=M, stop=stop, delivered=2, grace=5),
        ChainMessageDroppedEvent(agent=M, chain_id="c", message_id="m", sender="@A", reason="r"),
    ]:
        assert type(value).model_validate(value.model_dump(mode="json")) == value
    assert stop.render_path() == "@A → @B"


def test_bad_thresholds_are_one_clear_error_each() -> None:
    with pytest.raises(ConfigError) as caught:
        TeamConfig(loops={"max_repeats": 0, "window": 500, "colour": "red"})
    text = str(caught.value)
    assert "max_repeats" in text and "window" in text and "colour" in text
