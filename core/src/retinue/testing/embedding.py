"""`hashing_embedder`: a deterministic text embedder for tests, with no model behind it.

A card that searches by meaning takes an embedder, a callable from texts to vectors; tests
need one that answers at once, offline, the same on every machine and every run. This one
hashes each word and each word's character trigrams into a fixed number of dimensions (a
stable hash, never Python's salted `hash`) and scales the vector to length 1. Texts sharing
words or word pieces ("parser", "parsing") get close vectors; it knows no synonyms.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

_WORD = re.compile(r"\w+")


@dataclass(frozen=True, slots=True)
class HashingEmbedder:
    """Texts as unit vectors of `dimensions` floats: hashed words and character trigrams."""

    dimensions: int = 256
    trigram_weight: float = 0.5
    """A trigram's weight next to a whole word's 1.0."""

    def __post_init__(self) -> None:
        if self.dimensions < 1:
            raise ValueError(f"dimensions must be at least 1, not {self.dimensions}")

    def __call__(self, texts: Sequence[str]) -> list[list[float]]:
        return [self.embed(text) for text in texts]

    def embed(self, text: str) -> list[float]:
        """One text's vector (all zeros for a text without a word)."""
        vector = [0.0] * self.dimensions
        for word in _WORD.findall(text.casefold()):
            self._add(vector, "w:" + word, 1.0)
            padded = f"#{word}#"
            for start in range(len(padded) - 2):
                self._add(vector, "t:" + padded[start : start + 3], self.trigram_weight)
        norm = math.sqrt(sum(x * x for x in vector))
        return vector if norm == 0 else [x / norm for x in vector]

    def _add(self, vector: list[float], feature: str, weight: float) -> None:
        digest = hashlib.blake2b(feature.encode(), digest_size=8).digest()
        number = int.from_bytes(digest, "big")
        vector[number % self.dimensions] += weight if number >> 63 else -weight


hashing_embedder = HashingEmbedder()
"""The embedder with the default 256 dimensions: `hashing_embedder(["a text"])`."""
