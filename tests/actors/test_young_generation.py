"""The collector's young generation grows with the actors running, and is given back."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from typing import Any

import pytest
from retinue.actors import Actor, BaseConfig
from retinue.actors.young_generation import PER_ACTOR, YoungGeneration


class Idle(Actor[BaseConfig, Any]):
    """An actor that only exists."""


@pytest.fixture
def thresholds() -> Iterator[tuple[int, int, int]]:
    """The process's thresholds, put back after the test whatever it did to them."""
    before = gc.get_threshold()
    yield before
    gc.set_threshold(*before)


def test_a_team_of_hundreds_gets_a_young_generation_to_match_and_gives_it_back(
    make_team: Any, thresholds: tuple[int, int, int]
) -> None:
    team = make_team()
    for n in range(300):
        team.spawn(Idle, f"@Idle{n}")
    team.system.wait_idle()

    grown = gc.get_threshold()
    assert grown[0] >= PER_ACTOR * 300 and grown[1:] == thresholds[1:]

    assert team.system.shutdown(timeout=10)
    after = gc.get_threshold()  # the process's own again, unless other tests left actors
    assert thresholds[0] <= after[0] <= max(thresholds[0], grown[0] - PER_ACTOR * 300)


def test_the_sizing_never_lowers_the_process_threshold_and_yields_to_whoever_sets_one(
    thresholds: tuple[int, int, int],
) -> None:
    gc.set_threshold(5000, *thresholds[1:])
    sizing = YoungGeneration()
    for _ in range(10):
        sizing.started()
    assert gc.get_threshold()[0] == 5000  # 10 actors want 70: the process's own stays
    for _ in range(1000):
        sizing.started()
    assert gc.get_threshold()[0] == PER_ACTOR * 1010
    for _ in range(1010):
        sizing.stopped()
    assert gc.get_threshold()[0] == 5000  # given back with the last actor

    for _ in range(2000):
        sizing.started()
    gc.set_threshold(900, *thresholds[1:])  # the application decides from now on
    for _ in range(500):
        sizing.started()
    for _ in range(2500):
        sizing.stopped()
    assert gc.get_threshold()[0] == 900


def test_it_can_be_turned_off(thresholds: tuple[int, int, int]) -> None:
    sizing = YoungGeneration(enabled=False)
    for _ in range(1000):
        sizing.started()
    assert gc.get_threshold() == thresholds
