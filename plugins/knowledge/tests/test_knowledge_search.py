"""Search: words (FTS5, BM25) and meaning (vectors) fused by reciprocal rank fusion.

The corpus is built so that each ranking alone puts a wrong entity in its top two: words
find `Error budget` (it says "errors") but rank `ConfigParserError` third (its name is one
token); meaning, with the test embedder, ranks `Sparse terror` first (its word pieces look
like "parser error"). Fused, the top two are the two entities about parser errors.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from knowledge_helpers import EMBEDDER, add, keeper
from retinue.testing import TeamHarness, call_directive
from retinue_knowledge import KnowledgeGraphState, NewEntity, SearchIndex, fuse, load_embedder
from retinue_knowledge.index import RRF_K
from retinue_knowledge.rules import add_entities

CORPUS = [
    (
        "ConfigParserError",
        "exception",
        "Raised for a configuration file that breaks the grammar; the error names the line.",
    ),
    (
        "Parser",
        "component",
        "Turns configuration text into a tree; on bad input it raises ConfigParserError.",
    ),
    (
        "Error budget",
        "decision",
        "How many errors a week the on-call rotation accepts before it freezes releases and "
        "reviews alerts.",
    ),
    ("Sparse terror", "story", "Sparser terrors, sparrows and mirrors."),
    ("Parsley terrace", "place", "Where the parsley grows, by the terrace mirror."),
    ("Spare parts", "inventory", "Sparse spare parts, sorted by the terrace."),
    ("Release train", "process", "Ships every second Tuesday."),
    ("Ada", "person", "Leads the work on the configuration language."),
]
QUERY = "parser error"
RELEVANT = {"parser", "configparsererror"}


def corpus_graph() -> KnowledgeGraphState:
    drafts = [NewEntity(name=n, type=t, description=d) for n, t, d in CORPUS]
    change = add_entities(KnowledgeGraphState(), drafts, "@Lead", datetime(2025, 1, 1, tzinfo=UTC))
    return KnowledgeGraphState(version=1, entities=change.entities)


@pytest.fixture
def index() -> SearchIndex:
    return SearchIndex(corpus_graph(), load_embedder(EMBEDDER))


def top(index: SearchIndex, mode: str, count: int = 2) -> list[str]:
    return [hit.key for hit in index.search(QUERY, count, mode)]  # type: ignore[arg-type]


def test_hybrid_ranking_beats_words_alone_and_meaning_alone(index: SearchIndex) -> None:
    words, meaning, hybrid = top(index, "text"), top(index, "vector"), top(index, "hybrid")

    assert words == ["parser", "error budget"]
    assert meaning == ["sparse terror", "parser"]
    assert hybrid == ["parser", "configparsererror"]
    precision = {
        name: len(RELEVANT & set(found)) / 2
        for name, found in (("words", words), ("meaning", meaning), ("hybrid", hybrid))
    }
    assert precision == {"words": 0.5, "meaning": 0.5, "hybrid": 1.0}
    # Both halves found ConfigParserError third; fused, that beats one list's second place.
    [_, second, *_] = index.search(QUERY, 5, "hybrid")
    assert (second.text_rank, second.vector_rank) == (3, 3)
    assert second.score == pytest.approx(2 / (RRF_K + 3))


def test_reciprocal_rank_fusion_sums_ranks_and_breaks_ties_by_the_best_one() -> None:
    hits = fuse(["a", "b", "c"], ["c", "b", "d"])

    # c: 1/63 + 1/61 beats b: 1/62 + 1/62; a and d are in one list each, a ranked higher.
    assert [h.key for h in hits] == ["c", "b", "a", "d"]
    assert (hits[1].text_rank, hits[1].vector_rank) == (2, 2)
    assert [h.key for h in fuse(["y", "x"], ["x", "y"])] == ["x", "y"]  # a tie: by key
    assert [h.key for h in fuse(["x", "y"], [])] == ["x", "y"]


def test_a_change_is_searchable_at_once_and_a_removed_entity_is_gone(index: SearchIndex) -> None:
    graph = corpus_graph()
    later = add_entities(
        graph,
        [NewEntity(name="Lexer", type="component", description="Feeds the parser tokens.")],
        "@Ada",
        datetime(2025, 1, 2, tzinfo=UTC),
    )
    grown = KnowledgeGraphState(version=2, entities=graph.entities.evolve(put=later.entities))
    index.update(grown, ["lexer"])
    assert "lexer" in [h.key for h in index.search("lexer tokens", 3, "text")]
    assert "lexer" in [h.key for h in index.search("lexer tokens", 3, "vector")]

    shrunk = KnowledgeGraphState(version=3, entities=grown.entities.evolve(drop=["lexer"]))
    index.update(shrunk, ["lexer"])
    assert "lexer" not in [h.key for h in index.search("lexer tokens", 8, "hybrid")]


def test_query_text_is_never_fts5_syntax(index: SearchIndex) -> None:
    for query in ('"unbalanced', "NEAR(parser error)", "parser* OR -error", "col:parser", "()"):
        index.search(query, 5, "hybrid")  # no sqlite3.OperationalError
    assert index.search("   ", 5, "hybrid") == []


def test_the_models_search_tool_answers_the_fused_ranking(retinue_team: TeamHarness) -> None:
    team = retinue_team
    lead = team.add(keeper("Lead", embedder=EMBEDDER, search_limit=2))
    add(team, lead, *({"name": n, "type": t, "description": d} for n, t, d in CORPUS))

    team.say(lead, call_directive("kg_search", {"query": QUERY}))
    team.wait_idle(20)

    answer = team.tool_results("@Lead")[-1]
    assert answer.splitlines()[:3] == [
        "2 found for 'parser error', best first:",
        "- Parser: [component] Turns configuration text into a tree; on bad input it raises "
        "ConfigParserError",
        "- ConfigParserError: [exception] Raised for a configuration file that breaks the "
        "grammar; the error names the line",
    ]


def test_without_an_embedder_search_is_by_words(retinue_team: TeamHarness) -> None:
    team = retinue_team
    lead = team.add(keeper("Lead"))
    add(team, lead, *({"name": n, "type": t, "description": d} for n, t, d in CORPUS))

    found = team.command(lead, "/kg_search parser error limit=2")
    stats = team.command(lead, "/kg_stats")
    refused = team.command(lead, "/kg_search parser mode=vector")

    assert found.splitlines()[1:] == [
        "- Parser: [component] Turns configuration text into a tree; on bad input it raises "
        "ConfigParserError",
        "- Error budget: [decision] How many errors a week the on-call rotation accepts "
        "before it freezes releases and reviews alerts",
    ]
    assert stats.endswith("Search: words (SQLite FTS5, BM25) and no vectors (no embedder).")
    assert refused.endswith("cannot search by meaning: no embedder is configured")
