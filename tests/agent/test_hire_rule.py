"""`may_hire`: which roles an agent may hire, stated once for routing, the check and the cards."""

from __future__ import annotations

from retinue import ActorAddress, FrozenMap, TeamDirectory, may_hire
from retinue.testing import scripted_card

LEAD = ActorAddress(name="@Lead", role="Lead")


def _directory() -> TeamDirectory:
    cards = [
        scripted_card("Lead", routes_to=["QA", "Developer"]),
        scripted_card("Developer"),
        scripted_card("QA"),
        scripted_card("Auditor"),
    ]
    return TeamDirectory(version=1, profiles=FrozenMap({c.role: c for c in cards}))


def test_a_role_with_routes_to_may_hire_only_those_roles() -> None:
    directory = _directory()

    assert may_hire(directory, LEAD, "Developer") is None
    assert may_hire(directory, LEAD, " QA ") is None
    assert may_hire(directory, LEAD, "Auditor") == (
        "@Lead may not hire 'Auditor'; it may hire: Developer, QA"
    )
    assert may_hire(directory, LEAD, "Ghost") == (
        "@Lead may not hire 'Ghost'; it may hire: Developer, QA"
    )


def test_an_empty_routes_to_or_no_profile_may_hire_any_role() -> None:
    directory = _directory()
    developer = ActorAddress(name="@Dev", role="Developer")  # registered, routes_to empty
    stranger = ActorAddress(name="@Stray", role="Stray")  # started from code, no profile

    assert may_hire(directory, developer, "Auditor") is None
    assert may_hire(directory, stranger, "Lead") is None
    assert may_hire(TeamDirectory(), LEAD, "Anything") is None
