"""What a team's record says about its hosts."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel


class HostLostEvent(BaseModel):
    """A host of the team's cluster died; `members` ran on it and were lost with it.

    Recorded by each orchestrator that had members there (they leave its roster, and mail
    to them is a dead letter from then on); the team's people are told in one line.
    """

    event_type: Literal["host_lost"] = "host_lost"
    host: str
    members: list[str]


class MembersRestoredEvent(BaseModel):
    """Members lost with `host` started again from the record: `members` maps each `@name`
    to the host it runs on now; `redelivered` counts the messages given to them again."""

    event_type: Literal["members_restored"] = "members_restored"
    host: str
    members: dict[str, str]
    redelivered: int = 0
