"""`SearchIndex`: the graph's entities searched by words (FTS5, BM25) and by meaning (vectors),
the two rankings fused into one (reciprocal rank fusion).

The index is derived data: an in-memory SQLite database made from the graph's state, kept
up to date change by change, and made again from the state when a team is resumed. The
state is what the team's record keeps; nothing here needs saving.

Each entity is one document: its name, its type, and a body of its description, properties,
observations and relations (`works_on Parser`). Words are matched with the Porter stemmer
(`parsers` finds `parser`), each query word OR-ed with the others and quoted, so no query
text is FTS5 syntax. Vectors are made lazily: a change marks its entities, and the next
search by meaning embeds every marked entity in one batch, so writers never wait on the
embedder.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from retinue_knowledge.embedders import Embedder
from retinue_knowledge.graph import KnowledgeGraphState, entity_key
from retinue_knowledge.vectors import VectorStore

SearchMode = Literal["hybrid", "text", "vector"]
RRF_K = 60
"""The constant of reciprocal rank fusion: a document's score is the sum of 1/(RRF_K + rank)."""
_BATCH = 64
_MAX_WORDS = 32
_WORD = re.compile(r"\w+")


@dataclass(frozen=True, slots=True)
class Hit:
    """One entity found: its key, its fused score, and its rank in each list (None: absent)."""

    key: str
    score: float
    text_rank: int | None
    vector_rank: int | None


class SearchIndex:
    """Full text and vectors over one graph's entities. Not thread-safe: the graph actor
    alone uses it, one message at a time."""

    def __init__(self, graph: KnowledgeGraphState, embedder: Embedder | None) -> None:
        self._db = sqlite3.connect(":memory:", check_same_thread=False)
        self._db.execute(
            "CREATE VIRTUAL TABLE documents USING "
            "fts5(name, type, body, tokenize='porter unicode61')"
        )
        self._embedder = embedder
        self._vectors = VectorStore(self._db) if embedder is not None else None
        self._rowids: dict[str, int] = {}
        self._keys: dict[int, str] = {}
        self._pending: set[str] = set()
        self._next_rowid = 1
        self.update(graph, graph.entities.keys())

    @property
    def vector_backend(self) -> str | None:
        """`sqlite-vec`, `exact scan`, or None without an embedder."""
        return None if self._vectors is None else self._vectors.backend

    def close(self) -> None:
        self._db.close()

    def update(self, graph: KnowledgeGraphState, keys: Iterable[str]) -> None:
        """Index the entities `keys` as `graph` has them (gone from it: out of the index)."""
        wanted = set(keys)
        related = _relation_lines(graph, wanted)
        for key in wanted:
            rowid = self._rowids.pop(key, None)
            if rowid is not None:
                del self._keys[rowid]
                self._db.execute("DELETE FROM documents WHERE rowid = ?", (rowid,))
                if self._vectors is not None:
                    self._vectors.drop(rowid)
            self._pending.discard(key)
            entity = graph.entities.get(key)
            if entity is None:
                continue
            rowid, self._next_rowid = self._next_rowid, self._next_rowid + 1
            self._rowids[key], self._keys[rowid] = rowid, key
            body = "\n".join(
                [
                    entity.description,
                    *(f"{k}: {v}" for k, v in entity.properties.items()),
                    *(o.text for o in entity.observations),
                    *related.get(key, ()),
                ]
            )
            self._db.execute(
                "INSERT INTO documents(rowid, name, type, body) VALUES (?, ?, ?, ?)",
                (rowid, entity.name, entity.type, body),
            )
            self._pending.add(key)

    def search(self, query: str, limit: int, mode: SearchMode = "hybrid") -> list[Hit]:
        """The best `limit` entities for `query`, best first."""
        pool = max(limit * 3, 30)
        text = self._by_words(query, pool) if mode != "vector" else []
        vector = self._by_meaning(query, pool) if mode != "text" else []
        return fuse(text, vector)[:limit]

    def _by_words(self, query: str, count: int) -> list[str]:
        words = _WORD.findall(query)[:_MAX_WORDS]
        if not words:
            return []
        match = " OR ".join('"' + word.replace('"', '""') + '"' for word in words)
        rows = self._db.execute(
            "SELECT rowid FROM documents WHERE documents MATCH ? "
            "ORDER BY bm25(documents, 10.0, 3.0, 1.0) LIMIT ?",
            (match, count),
        )
        return [self._keys[rowid] for (rowid,) in rows]

    def _by_meaning(self, query: str, count: int) -> list[str]:
        if self._embedder is None or self._vectors is None or not query.strip():
            return []
        self._embed_pending()
        found = self._vectors.nearest(self._embedder.embed_query(query), count)
        return [self._keys[rowid] for rowid in found if rowid in self._keys]

    def _embed_pending(self) -> None:
        assert self._embedder is not None and self._vectors is not None
        pending = sorted(self._pending)
        for start in range(0, len(pending), _BATCH):
            keys = pending[start : start + _BATCH]
            texts = [self._document(key) for key in keys]
            for key, vector in zip(keys, self._embedder.embed_documents(texts), strict=True):
                self._vectors.put(self._rowids[key], vector)
                self._pending.discard(key)

    def _document(self, key: str) -> str:
        row = self._db.execute(
            "SELECT name, type, body FROM documents WHERE rowid = ?", (self._rowids[key],)
        ).fetchone()
        return "\n".join(row)


def fuse(*rankings: list[str]) -> list[Hit]:
    """Reciprocal rank fusion of `rankings` (each best first): summed 1/(RRF_K + rank),
    ties broken by the best single rank, then by key."""
    scores: dict[str, float] = {}
    ranks: dict[str, list[int | None]] = {}
    for which, ranking in enumerate(rankings):
        for rank, key in enumerate(ranking, start=1):
            scores[key] = scores.get(key, 0.0) + 1.0 / (RRF_K + rank)
            ranks.setdefault(key, [None] * len(rankings))[which] = rank
    order = sorted(
        scores,
        key=lambda k: (-scores[k], min(r for r in ranks[k] if r is not None), k),
    )
    padded = [(ranks[k] + [None, None])[:2] for k in order]
    return [
        Hit(key, scores[key], text, vector)
        for key, (text, vector) in zip(order, padded, strict=True)
    ]


def _relation_lines(graph: KnowledgeGraphState, keys: set[str]) -> dict[str, list[str]]:
    """For each of `keys`, its relations as words: `works_on Parser`, `Ada works_on`."""
    lines: dict[str, list[str]] = {}
    if not keys:
        return lines
    for relation in graph.relations.values():
        source, target = entity_key(relation.source), entity_key(relation.target)
        if source in keys:
            lines.setdefault(source, []).append(f"{relation.type} {relation.target}")
        if target in keys:
            lines.setdefault(target, []).append(f"{relation.source} {relation.type}")
    return lines
