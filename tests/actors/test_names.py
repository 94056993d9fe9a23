"""Which member names the team accepts."""

from __future__ import annotations

import re

import pytest
from retinue.team import MAX_NAME_CHARS, check_member_name
from retinue.team.names import MemberNames


@pytest.mark.parametrize(
    "name", ["@Ada", "@Dev2", "@Ada Lovelace", "@Zoë", "@開発者", "@" + "A" * (MAX_NAME_CHARS - 1)]
)
def test_readable_names_are_accepted(name: str) -> None:
    assert check_member_name(name) == name


@pytest.mark.parametrize(
    ("name", "named"),
    [
        ("@Evil\u202eliveD", "U+202E"),  # right-to-left override
        ("@Ada\u2066x\u2069", "U+2066"),  # left-to-right isolate
        ("@Human\u200b", "U+200B"),  # zero-width space
        ("@Human\ufeff", "U+FEFF"),
        ("@Two\nLines", "U+000A"),
        ("@Tab\there", "U+0009"),
        ("@Sep\u2028", "U+2028"),
        ("@Bell\x07", "U+0007"),
    ],
)
def test_control_invisible_and_direction_characters_are_refused(name: str, named: str) -> None:
    with pytest.raises(ValueError, match=re.escape(named)):
        check_member_name(name)


def test_a_long_name_is_refused() -> None:
    with pytest.raises(ValueError, match=f"at most {MAX_NAME_CHARS} characters"):
        check_member_name("@" + "A" * MAX_NAME_CHARS)


def test_a_released_name_is_given_again_and_a_held_one_gets_a_number() -> None:
    names = MemberNames(reserved=["@Orchestrator"])
    assert names.claim("@Manager") == "@Manager"
    assert names.claim("@Manager") == "@Manager2"

    names.release("@Manager")

    assert names.claim("@Manager") == "@Manager"
    assert names.claim("@Manager") == "@Manager3"


def test_a_resumed_member_claims_its_own_name_or_is_refused() -> None:
    names = MemberNames()
    assert names.claim_exact("@Manager2") == "@Manager2"  # never renumbered
    with pytest.raises(ValueError, match="@Manager2 is already held"):
        names.claim_exact("@Manager2")
