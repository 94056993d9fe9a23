"""Embedders: what turns texts into vectors for search by meaning, named in the card's settings.

`embedder` names one of:

* `"package.module:name"`: an importable callable from a list of texts to a list of vectors
  (`list[str] -> list[list[float]]`), or a pydantic-ai `Embedder` object;
* `"pydantic-ai:<model>"`: pydantic-ai's `Embedder` over that model
  (`"pydantic-ai:openai:text-embedding-3-small"`), documents and queries embedded as such;
* `""` (the default): no vectors; search is by words alone.

Every embedding is done on the graph actor's thread, one batch at a time, so an embedder
with an HTTP client always runs on one thread and one event loop.
"""

from __future__ import annotations

import importlib
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

EmbedTexts = Callable[[Sequence[str]], Sequence[Sequence[float]]]
"""Texts in, one vector per text out."""

PYDANTIC_AI = "pydantic-ai:"
_IMPORT_PATH = re.compile(r"[A-Za-z_][\w.]*:[A-Za-z_][\w.]*")


def check_spec(spec: str) -> str:
    """`spec` if it is a form `embedder` takes, else a `ValueError` saying the forms."""
    spec = spec.strip()
    if not spec or _IMPORT_PATH.fullmatch(spec):
        return spec
    if spec.startswith(PYDANTIC_AI) and len(spec) > len(PYDANTIC_AI):
        return spec
    raise ValueError(
        f"{spec[:80]!r} is not an embedder; name a callable as 'package.module:function', "
        "or a pydantic-ai model as 'pydantic-ai:openai:text-embedding-3-small'"
    )


@dataclass(frozen=True, slots=True)
class Embedder:
    """Documents and queries to vectors (a plain callable does both the same way)."""

    spec: str
    documents: EmbedTexts
    query: EmbedTexts

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        """One unit vector per text (a zero vector stays zero)."""
        return self._checked(texts, self.documents(list(texts)))

    def embed_query(self, text: str) -> list[float]:
        """The unit vector of one query."""
        return self._checked([text], self.query([text]))[0]

    def _checked(
        self, texts: Sequence[str], vectors: Sequence[Sequence[float]]
    ) -> list[list[float]]:
        if len(vectors) != len(texts):
            raise RuntimeError(
                f"the embedder {self.spec} gave {len(vectors)} vectors for {len(texts)} texts"
            )
        return [_unit([float(x) for x in vector]) for vector in vectors]


def load_embedder(spec: str) -> Embedder | None:
    """The embedder `spec` names (None for ""); `ValueError` naming what is wrong."""
    spec = check_spec(spec)
    if not spec:
        return None
    if spec.startswith(PYDANTIC_AI):
        from pydantic_ai.embeddings import Embedder as PydanticEmbedder

        return _from_pydantic_ai(spec, PydanticEmbedder(spec[len(PYDANTIC_AI) :]))
    module_name, _, attribute = spec.partition(":")
    try:
        found: Any = importlib.import_module(module_name)
        for part in attribute.split("."):
            found = getattr(found, part)
    except (ImportError, AttributeError) as exc:
        raise ValueError(f"the embedder {spec} cannot be imported: {exc}") from None
    if _is_pydantic_ai_embedder(found):
        return _from_pydantic_ai(spec, found)
    if not callable(found):
        raise ValueError(f"the embedder {spec} is a {type(found).__name__}, not a callable")
    return Embedder(spec, found, found)


def _is_pydantic_ai_embedder(value: object) -> bool:
    try:
        from pydantic_ai.embeddings import Embedder as PydanticEmbedder
    except ImportError:  # an older pydantic-ai without embeddings
        return False
    return isinstance(value, PydanticEmbedder)


def _from_pydantic_ai(spec: str, embedder: Any) -> Embedder:
    def documents(texts: Sequence[str]) -> Sequence[Sequence[float]]:
        return list(embedder.embed_documents_sync(list(texts)).embeddings)

    def query(texts: Sequence[str]) -> Sequence[Sequence[float]]:
        return list(embedder.embed_query_sync(list(texts)).embeddings)

    return Embedder(spec, documents, query)


def _unit(vector: list[float]) -> list[float]:
    norm = math.sqrt(sum(x * x for x in vector))
    if not math.isfinite(norm):
        raise RuntimeError("the embedder gave a vector that is not finite")
    return vector if norm == 0 else [x / norm for x in vector]
