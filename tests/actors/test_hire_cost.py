"""A hire costs the same in a team of a thousand as in a team of two.

Hiring agent after agent took longer per agent the bigger the team was: each hire tried
every numbered name of its role (`@Worker2`, `@Worker3`, ...) before a free one, and
published a directory holding a fresh copy of the whole roster. Nothing here times
anything: the tests count names tried and copies of the roster made, with real actors.
"""

from __future__ import annotations

import gc
import random
import re
from collections.abc import Iterator
from typing import Any

import pytest
from retinue.actors import Actor, ActorAddress, ActorSystem, BaseConfig, runtime
from retinue.team import Orchestrator, TeamDirectory
from retinue.team.names import MemberNames, check_member_name

TEAM = 60
HIRES = 100


class Member(Actor[BaseConfig, Any]):
    """A member that does nothing: only its hire is looked at."""


class CountingSet(set[str]):
    """The names held, counting how often one is looked up."""

    looks = 0

    def __contains__(self, name: object) -> bool:
        self.looks += 1
        return super().__contains__(name)


def test_the_thousandth_worker_tries_one_name_not_a_thousand() -> None:
    names = MemberNames(reserved=["@Orchestrator"])
    taken = names._taken = CountingSet(names._taken)

    claimed = [names.claim("@Worker") for _ in range(1_000)]

    assert claimed[:3] == ["@Worker", "@Worker2", "@Worker3"]
    assert claimed[-1] == "@Worker1000"
    looks = taken.looks
    assert looks <= 3 * len(claimed), f"{looks:,} names looked up for 1,000 hires"


_TRAILING_NUMBER = re.compile(r"\d+$")


class FirstFree:
    """The naming rule stated plainly: `wanted`, else the first free `stem2`, `stem3`, ..."""

    def __init__(self, reserved: list[str]) -> None:
        self.taken = set(reserved)

    def claim(self, wanted: str) -> str:
        name = wanted
        if name in self.taken:
            stem = _TRAILING_NUMBER.sub("", name) or name
            n = 2
            while f"{stem}{n}" in self.taken:
                n += 1
            name = check_member_name(f"{stem}{n}")
        self.taken.add(name)
        return name


def test_names_follow_the_first_free_rule_through_releases_and_resumes() -> None:
    rng = random.Random(7)
    wanted = ["@W", "@W2", "@W3", "@W12", "@W1", "@W02", "12", "122", "1", "2", "@Q"]
    for _ in range(300):
        names, rule = MemberNames(["@O"]), FirstFree(["@O"])
        for _ in range(40):
            pick = rng.random()
            if pick < 0.6:
                name = rng.choice(wanted)
                assert names.claim(name) == rule.claim(name)
            elif pick < 0.7:  # a resumed member takes its own name back
                name = rng.choice([*wanted, "@W5", "@W7"])
                if name not in rule.taken:
                    rule.taken.add(names.claim_exact(name))
            elif rule.taken:
                name = rng.choice(sorted(rule.taken))
                names.release(name)
                rule.taken.discard(name)
        assert all(name in names for name in rule.taken)


@pytest.fixture
def system() -> Iterator[ActorSystem]:
    made = ActorSystem(ask_timeout=30)
    yield made
    assert made.shutdown(timeout=10)


def _roster_copies(member: ActorAddress) -> int:
    """How many maps by name hold `member`: each copy of the roster is one."""
    gc.collect()
    return sum(
        1 for ref in gc.get_referrers(member) if isinstance(ref, dict) and member.name in ref
    )


def test_hiring_in_a_row_copies_the_roster_once_not_once_per_hire(system: ActorSystem) -> None:
    orchestrator = system.createActor(
        Orchestrator, BaseConfig(name="@Orchestrator", role="Orchestrator")
    )
    team: Any = system.proxy_ask(orchestrator, Orchestrator)
    for n in range(TEAM):
        team.createActor(Member, BaseConfig(name=f"@Member{n}", role="Member"))
    board = runtime.lookup(orchestrator.agent_id).directory_board  # type: ignore[union-attr]
    first = board.current.members["@Member0"]  # read, as a turn would read it
    published: list[TeamDirectory] = []
    board.watch(published.append)  # every directory the hires publish, all kept

    for _ in range(HIRES):
        team.createActor(Member, BaseConfig(name="@Worker", role="Worker"))

    assert len(published) == HIRES
    # the roster read before, and the one the hires changed in place: not one per hire
    copies = _roster_copies(first)
    assert copies <= 2, f"{copies} copies of the roster for {HIRES} hires"
    latest = board.current.members
    assert list(latest) == [
        *(f"@Member{n}" for n in range(TEAM)),
        "@Worker",
        *(f"@Worker{n}" for n in range(2, HIRES + 1)),
    ]
    middle = published[HIRES // 2].members  # an older version still reads as it was
    assert len(middle) == TEAM + HIRES // 2 + 1
    assert list(middle)[-1] == f"@Worker{HIRES // 2 + 1}"
