"""Which cards an agent gets: names and classes resolved, installed defaults prepended."""

from __future__ import annotations

from typing import ClassVar

import pytest
from retinue.tools import ToolCard, UnknownToolCardError, resolve_cards, with_default_cards


class TeamCard(ToolCard):
    name: ClassVar[str] = "team"
    default: ClassVar[bool] = True
    label: str = "installed"


class MailboxCard(ToolCard):
    name: ClassVar[str] = "mailbox"
    default: ClassVar[bool] = True


class PlanningCard(ToolCard):
    name: ClassVar[str] = "planning"


AVAILABLE: dict[str, type[ToolCard]] = {
    "team": TeamCard,
    "mailbox": MailboxCard,
    "planning": PlanningCard,
}


def names(cards: list[ToolCard]) -> list[str]:
    return [type(card).name for card in cards]


def test_defaults_are_prepended_in_their_order() -> None:
    configured: list[ToolCard] = [PlanningCard()]
    cards = with_default_cards(configured, [TeamCard, MailboxCard])
    assert names(cards) == ["team", "mailbox", "planning"]
    assert cards[2] is configured[0]


def test_a_configured_card_wins_and_keeps_its_position() -> None:
    mine = TeamCard(label="configured")
    configured: list[ToolCard] = [PlanningCard(), mine]
    cards = with_default_cards(configured, [TeamCard, MailboxCard])
    assert names(cards) == ["mailbox", "planning", "team"]
    assert cards[2] is mine
    assert mine.label == "configured"


def test_the_configured_list_is_never_mutated() -> None:
    configured: list[ToolCard] = [PlanningCard()]
    before = list(configured)
    cards = with_default_cards(configured, [TeamCard])
    assert configured == before
    assert cards is not configured


def test_each_default_is_a_fresh_instance() -> None:
    first = with_default_cards([], [TeamCard])
    second = with_default_cards([], [TeamCard])
    assert first[0] is not second[0]


def test_a_default_named_twice_is_prepended_once() -> None:
    assert names(with_default_cards([], [TeamCard, TeamCard, MailboxCard])) == [
        "team",
        "mailbox",
    ]


def test_resolve_by_name_class_and_instance() -> None:
    instance = PlanningCard()
    cards = resolve_cards(["team", MailboxCard, instance], AVAILABLE)
    assert isinstance(cards[0], TeamCard)
    assert isinstance(cards[1], MailboxCard)
    assert cards[2] is instance


def test_unknown_names_are_one_error_listing_what_is_available() -> None:
    with pytest.raises(UnknownToolCardError) as info:
        resolve_cards(["team", "plannig", "workspce"], AVAILABLE)
    message = str(info.value)
    assert "'plannig'" in message
    assert "'workspce'" in message
    assert "available: mailbox, planning, team" in message
    assert isinstance(info.value, ValueError)


def test_resolve_refuses_what_is_not_a_card() -> None:
    with pytest.raises(TypeError, match="not int"):
        resolve_cards([3], AVAILABLE)  # type: ignore[list-item]
