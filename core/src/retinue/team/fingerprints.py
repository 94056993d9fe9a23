"""A message's content as the loop detector compares it: a bounded set of its words.

Two contents are near-identical when their fingerprints share most of their words, so
"Thanks, @Alpha!" and "thanks @Beta" count as one repeat, whatever their length: a
fingerprint reads a bounded prefix and keeps a bounded number of words.
"""

from __future__ import annotations

import re
from itertools import islice

#: How many distinct words of a content its fingerprint keeps (the first ones).
FINGERPRINT_WORDS = 64
#: How much of a content is read for its fingerprint.
FINGERPRINT_CHARS = 2000

_MENTION = re.compile(r"@\S+")
_WORD = re.compile(r"[^\W_]+")


def content_words(text: str) -> frozenset[str]:
    """A content's fingerprint: its first distinct words, case-folded, names left out.

    Bounded by `FINGERPRINT_WORDS` and `FINGERPRINT_CHARS`, so comparing two costs the same
    whatever was written. Member names (`@Beta`) are dropped: "Thanks, @Alpha!" and
    "Thanks, @Beta!" are the same words.
    """
    text = _MENTION.sub(" ", text[:FINGERPRINT_CHARS]).casefold()
    return frozenset(islice(dict.fromkeys(_WORD.findall(text)), FINGERPRINT_WORDS))


def near_identical(a: frozenset[str], b: frozenset[str], threshold: float) -> bool:
    """Whether two fingerprints share at least `threshold` of their words (Jaccard)."""
    if not a and not b:
        return True
    return len(a & b) >= threshold * len(a | b)
