"""Nearest vectors: a `sqlite-vec` table when the extension loads, an exact scan otherwise.

`sqlite-vec` comes with the `vectors` extra (`pip install retinue-knowledge[vectors]`). It is
loaded into the index's own in-memory database, which needs a Python whose `sqlite3` can
load extensions (`sqlite3.Connection.enable_load_extension`); some builds cannot. Without
it, the same query is answered by an exact cosine scan in Python: the same answers, in
time linear in the number of entities (a few milliseconds for thousands).
"""

from __future__ import annotations

import logging
import sqlite3
from typing import Literal

logger = logging.getLogger(__name__)

Backend = Literal["sqlite-vec", "exact scan"]


def load_sqlite_vec(db: sqlite3.Connection) -> bool:
    """Whether `sqlite-vec` is now loaded into `db` (False: not installed, or no loading)."""
    try:
        import sqlite_vec  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        return False
    enable = getattr(db, "enable_load_extension", None)
    if enable is None:
        logger.info("sqlite-vec is installed, but this Python's sqlite3 cannot load it")
        return False
    try:
        enable(True)
        try:
            sqlite_vec.load(db)
        finally:
            enable(False)
    except sqlite3.Error as exc:
        logger.warning("sqlite-vec did not load (%s); vectors are scanned in Python", exc)
        return False
    return True


class VectorStore:
    """Unit vectors by row id; `nearest` answers the closest first."""

    def __init__(self, db: sqlite3.Connection, *, extension: bool = True) -> None:
        """`extension=False` scans in Python even where `sqlite-vec` would load."""
        self._db = db
        loaded = extension and load_sqlite_vec(db)
        self.backend: Backend = "sqlite-vec" if loaded else "exact scan"
        self._dimensions: int | None = None
        self._scan: dict[int, list[float]] = {}

    def put(self, rowid: int, vector: list[float]) -> None:
        """Keep `vector` for `rowid` (a zero vector is not kept: it is close to nothing)."""
        self.drop(rowid)
        if not any(vector):
            return
        self._check(vector)
        if self.backend == "exact scan":
            self._scan[rowid] = vector
            return
        self._db.execute(
            "INSERT INTO vectors(rowid, embedding) VALUES (?, ?)", (rowid, _blob(vector))
        )

    def drop(self, rowid: int) -> None:
        if self.backend == "exact scan":
            self._scan.pop(rowid, None)
        elif self._dimensions is not None:
            self._db.execute("DELETE FROM vectors WHERE rowid = ?", (rowid,))

    def nearest(self, vector: list[float], count: int) -> list[int]:
        """The row ids of the `count` vectors closest to `vector` (cosine), closest first."""
        if not any(vector) or self._dimensions is None:
            return []
        self._check(vector)
        if self.backend == "exact scan":
            scored = sorted(
                (
                    (-sum(a * b for a, b in zip(vector, v, strict=True)), rowid)
                    for rowid, v in self._scan.items()
                ),
            )
            return [rowid for _, rowid in scored[:count]]
        rows = self._db.execute(
            "SELECT rowid FROM vectors WHERE embedding MATCH ? AND k = ? ORDER BY distance",
            (_blob(vector), count),
        )
        return [int(rowid) for (rowid,) in rows]

    def _check(self, vector: list[float]) -> None:
        if self._dimensions is None:
            self._dimensions = len(vector)
            if self.backend == "sqlite-vec":
                self._db.execute(
                    "CREATE VIRTUAL TABLE vectors USING "
                    f"vec0(embedding float[{len(vector)}] distance_metric=cosine)"
                )
        elif len(vector) != self._dimensions:
            raise RuntimeError(
                f"the embedder gave a vector of {len(vector)} dimensions after ones of "
                f"{self._dimensions}"
            )


def _blob(vector: list[float]) -> bytes:
    import struct

    return struct.pack(f"{len(vector)}f", *vector)
