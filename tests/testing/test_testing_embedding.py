"""`hashing_embedder`: the same unit vectors everywhere, close for texts sharing words."""

from __future__ import annotations

import math

import pytest
from retinue.testing import HashingEmbedder, hashing_embedder


def cosine(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


def test_vectors_are_unit_length_and_the_same_on_every_call() -> None:
    first, second = hashing_embedder(["The parser fails on tabs", "The parser fails on tabs"])

    assert len(first) == 256
    assert math.isclose(math.sqrt(sum(x * x for x in first)), 1.0)
    assert first == second
    # blake2b, never the salted `hash`: a fixed value for a fixed text, in every process.
    assert HashingEmbedder(dimensions=8).embed("parser") == [
        -0.25,
        0.75,
        -0.5,
        0.0,
        0.25,
        0.0,
        -0.25,
        0.0,
    ]


def test_shared_words_and_word_pieces_bring_texts_closer() -> None:
    query, near, piece, far = hashing_embedder(
        ["parser errors", "errors of the parser", "parsing error", "kitchen recipes"]
    )

    assert cosine(query, near) > cosine(query, piece) > cosine(query, far)


def test_a_text_without_words_is_the_zero_vector_and_bad_sizes_are_refused() -> None:
    assert HashingEmbedder(dimensions=4)(["  ... "]) == [[0.0, 0.0, 0.0, 0.0]]
    with pytest.raises(ValueError, match="dimensions must be at least 1, not 0"):
        HashingEmbedder(dimensions=0)
