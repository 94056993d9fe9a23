"""Nearest vectors, by `sqlite-vec` where it loads and by an exact scan everywhere."""

from __future__ import annotations

import math
import sqlite3

import pytest
from retinue_knowledge.vectors import VectorStore, load_sqlite_vec

EXTENSION = load_sqlite_vec(sqlite3.connect(":memory:"))
BACKENDS = [False, True] if EXTENSION else [False]


def unit(*values: float) -> list[float]:
    norm = math.sqrt(sum(v * v for v in values))
    return [v / norm for v in values]


@pytest.mark.parametrize("extension", BACKENDS, ids=lambda on: "sqlite-vec" if on else "scan")
def test_the_closest_come_first_and_a_dropped_vector_is_gone(extension: bool) -> None:
    store = VectorStore(sqlite3.connect(":memory:"), extension=extension)
    assert store.backend == ("sqlite-vec" if extension else "exact scan")
    for rowid, vector in {
        1: unit(1, 0, 0),
        2: unit(1, 1, 0),
        3: unit(0, 0, 1),
        4: unit(0, 1, 0),
    }.items():
        store.put(rowid, vector)
    store.put(5, [0.0, 0.0, 0.0])  # close to nothing: not kept

    assert store.nearest(unit(1, 0.2, 0), 3) == [1, 2, 4]
    store.drop(2)
    assert store.nearest(unit(1, 0.2, 0), 3) == [1, 4, 3]
    store.put(2, unit(0, 0.5, 1))  # replaced
    assert store.nearest(unit(0, 0.1, 1), 2) == [3, 2]
    assert store.nearest([0.0, 0.0, 0.0], 2) == []


def test_vectors_of_another_size_are_refused() -> None:
    store = VectorStore(sqlite3.connect(":memory:"), extension=False)
    store.put(1, unit(1, 0))

    with pytest.raises(RuntimeError, match="a vector of 3 dimensions after ones of 2"):
        store.put(2, unit(1, 0, 0))
