"""The store's errors: each names the store (or the team) and the problem in one line."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from retinue.store.lease import Lease


class StoreError(Exception):
    """A store could not be opened or used: the message names the store and the problem."""


class SchemaVersionError(StoreError):
    """The store was written by a newer retinue than this one; nothing was changed."""


class StoreFullError(StoreError):
    """The disk holding the store is full; nothing of the write that failed was kept."""


class LeaseHeldError(StoreError):
    """Another process runs the team: `holder` says which (see `retinue.store.lease`)."""

    def __init__(self, message: str, team_id: str, holder: Lease) -> None:
        super().__init__(message)
        self.team_id = team_id
        self.holder = holder
