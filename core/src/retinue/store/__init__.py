"""The team record's storage: the `Store` protocol, its records and three stores.

This layer sits just above `actors` in docs/architecture.md's table (it imports nothing of
retinue's other layers): it stores records, each a message the recorder
(`retinue.team.recorder`) already turned into JSON. See docs/record.md.

    from retinue.store import open_store
    store = open_store("team.sqlite")          # or ":memory:", or "postgresql://..."
    system = ActorSystem(store=store)         # every team of the system is recorded

`PostgresStore` is imported from `retinue.store.postgres` (it needs `retinue[postgres]`).
"""

from retinue.store.lease import Lease
from retinue.store.memory import MemoryStore
from retinue.store.opening import default_store_path, open_store, store_location
from retinue.store.protocol import (
    APPLICATION,
    SCHEMA_VERSION,
    LeaseHeldError,
    SchemaVersionError,
    Store,
    StoreError,
    StoreFullError,
)
from retinue.store.records import MemberInfo, Record, TeamInfo
from retinue.store.retention import DEFAULT_TELEMETRY, KEEP_ALL, PROTECTED_KINDS, Retention
from retinue.store.sqlite import SQLiteStore

__all__ = [
    "APPLICATION",
    "DEFAULT_TELEMETRY",
    "KEEP_ALL",
    "PROTECTED_KINDS",
    "SCHEMA_VERSION",
    "Lease",
    "LeaseHeldError",
    "MemberInfo",
    "MemoryStore",
    "Record",
    "Retention",
    "SQLiteStore",
    "SchemaVersionError",
    "Store",
    "StoreError",
    "StoreFullError",
    "TeamInfo",
    "default_store_path",
    "open_store",
    "store_location",
]
