"""The `embedder` setting: an importable callable or a pydantic-ai `Embedder`, checked early."""

from __future__ import annotations

import sqlite3

import pytest
from knowledge_helpers import EMBEDDER, add, keeper
from retinue.kit import ConfigValidationError
from retinue.testing import TeamHarness, call_directive, hashing_embedder
from retinue_knowledge import KnowledgeTool, load_embedder
from retinue_knowledge.vectors import load_sqlite_vec

BACKEND = "sqlite-vec" if load_sqlite_vec(sqlite3.connect(":memory:")) else "exact scan"
"""Which one this Python can have: sqlite-vec needs the extra and a sqlite3 that loads it."""


def test_a_callable_by_import_path_embeds_documents_and_queries_alike() -> None:
    embedder = load_embedder(EMBEDDER)

    assert embedder is not None
    assert embedder.embed_query("parser") == pytest.approx(hashing_embedder(["parser"])[0])
    a, b = embedder.embed_documents(["a", "b"])
    assert (a, b) == (
        pytest.approx(hashing_embedder(["a"])[0]),
        pytest.approx(hashing_embedder(["b"])[0]),
    )
    assert load_embedder("") is None


def test_a_pydantic_ai_embedder_object_is_used_through_its_documents_and_queries() -> None:
    embedder = load_embedder("knowledge_helpers:pydantic_ai_embedder")

    assert embedder is not None
    [vector] = embedder.embed_documents(["anything"])
    assert len(vector) == 8
    assert vector == pytest.approx([8**-0.5] * 8)  # all ones, scaled to length 1


@pytest.mark.parametrize(
    ("spec", "error"),
    [
        (
            "not a path",
            "'not a path' is not an embedder; name a callable as 'package.module:function', or "
            "a pydantic-ai model as 'pydantic-ai:openai:text-embedding-3-small'",
        ),
        (
            "no_such_module_here:embed",
            "the embedder no_such_module_here:embed cannot be "
            "imported: No module named 'no_such_module_here'",
        ),
        ("retinue.testing:FOLLOW", "the embedder retinue.testing:FOLLOW is a str, not a callable"),
    ],
)
def test_a_bad_embedder_is_one_clear_error(spec: str, error: str) -> None:
    with pytest.raises(ValueError) as caught:
        load_embedder(spec)
    assert str(caught.value) == error


def test_a_card_refuses_a_malformed_embedder_when_it_is_configured() -> None:
    with pytest.raises(ConfigValidationError, match="'not a path' is not an embedder"):
        KnowledgeTool(embedder="not a path")


def test_searching_by_meaning_runs_the_embedder_on_the_graphs_thread(
    retinue_team: TeamHarness,
) -> None:
    team = retinue_team
    lead = team.add(keeper("Lead", embedder="knowledge_helpers:pydantic_ai_embedder"))
    add(team, lead, {"name": "Parser", "type": "component"}, {"name": "Ada", "type": "person"})

    team.say(lead, call_directive("kg_search", {"query": "who"}))
    team.wait_idle(20)

    # Every vector is the same, so meaning ranks both; words match neither.
    assert team.tool_results("@Lead")[-1].splitlines()[0] == "2 found for 'who', best first:"
    stats = team.command(lead, "/kg_stats")
    assert stats.endswith(f"vectors by knowledge_helpers:pydantic_ai_embedder ({BACKEND}).")


def test_an_embedder_that_cannot_be_imported_leaves_search_by_words(
    retinue_team: TeamHarness,
) -> None:
    team = retinue_team
    lead = team.add(keeper("Lead", embedder="no_such_module_here:embed"))
    add(team, lead, {"name": "Parser", "type": "component"})

    assert team.command(lead, "/kg_search parser").splitlines()[1].startswith("- Parser:")
    assert team.command(lead, "/kg_search parser mode=vector").endswith(
        "cannot search by meaning: the embedder no_such_module_here:embed cannot be imported: "
        "No module named 'no_such_module_here'"
    )
