"""The model's tools and the person's commands: what they do, and one clear error for bad input.

A mistake the model can correct is a `ModelRetry` with the reason while its retries remain:
the scripted model here reads the reason and calls again with the mistake fixed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from knowledge_helpers import PARSER, add, graph_of, keeper, link
from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models.function import AgentInfo
from retinue.testing import TeamHarness, call_directive, call_tool, run_messages, send, tool_returns
from retinue_knowledge.text import MAX_DESCRIPTION, MAX_OBSERVATION

LONG = "x" * (MAX_OBSERVATION + 1)


def correcting(tool: str, bad: dict[str, Any], good: dict[str, Any], seen: list[str]) -> Any:
    """A model that calls `tool` with `bad`, reads the retry, then calls it with `good`."""

    def model(messages: Sequence[ModelMessage], info: AgentInfo) -> ModelResponse:
        answers = [p for p in tool_returns(run_messages(messages, info)) if p.tool_name == tool]
        if not answers:
            return call_tool(tool, bad)
        if answers[-1].outcome == "retried":  # pydantic-ai's answer to a `ModelRetry`
            seen.append(str(answers[-1].content))
            return call_tool(tool, good)
        return send(info, ("@Human", "response", "done"))

    return model


SEED = (
    {"name": "Parser", "type": "component"},
    {"name": "Ada", "type": "person"},
)


@pytest.mark.parametrize(
    ("tool", "calls", "reason", "expected"),
    [
        (
            "kg_link",
            (
                {"source": "Ada", "relation": "works on!", "target": "Parser"},
                {"source": "Ada", "relation": "works on", "target": "Parser"},
            ),
            "'works on!' is not a relation type; use a word or a few, such as works_on or "
            "depends_on (letters, digits, underscores)",
            "Linked Ada —works_on→ Parser.",
        ),
        (
            "kg_link",
            (
                {"source": "Ada", "relation": "works_on", "target": "Parsr"},
                {"source": "Ada", "relation": "works_on", "target": "parser"},
            ),
            "there is no entity 'Parsr'; kg_search finds entities",
            "Linked Ada —works_on→ Parser.",
        ),
        (
            "kg_update",
            (
                {"name": "parse", "observation": "fails on tabs"},
                {"name": "Parser", "observation": "fails on tabs"},
            ),
            "there is no entity 'parse'; did you mean Parser?",
            "Updated Parser.",
        ),
        (
            "kg_update",
            (
                {"name": "Parser", "observation": LONG},
                {"name": "Parser", "observation": "fails on tabs"},
            ),
            f"an observation is {MAX_OBSERVATION + 1:,} characters long; the most is "
            f"{MAX_OBSERVATION:,}",
            "Updated Parser.",
        ),
        (
            "kg_link",
            (
                {"source": "Ada", "relation": "knows", "target": "ada"},
                {"source": "Ada", "relation": "knows", "target": "Parser"},
            ),
            "Ada cannot be related to itself; link two entities",
            "Linked Ada —knows→ Parser.",
        ),
    ],
)
def test_a_mistake_comes_back_as_a_retry_the_model_corrects(
    retinue_team: TeamHarness,
    tool: str,
    calls: tuple[dict[str, Any], dict[str, Any]],
    reason: str,
    expected: str,
) -> None:
    team = retinue_team
    lead = team.add(keeper("Lead"))
    add(team, lead, *SEED)
    seen: list[str] = []
    fixer = team.add(keeper("Fixer"), model=correcting(tool, *calls, seen))

    team.say(fixer, "Go.")
    team.wait_idle(20)

    assert seen == [reason]
    answers = team.tool_results("@Fixer")
    assert answers[-1:] != [] and not answers[-1].startswith("Error")
    assert answers[-1] == expected
    assert [m.content for m in team.received_by("@Human")] == ["done"]


def test_a_refused_change_changes_nothing_and_the_turn_goes_on(
    retinue_team: TeamHarness,
) -> None:
    team = retinue_team
    lead = team.add(keeper("Lead"))
    add(team, lead, *SEED)
    big = {"name": "Parser", "description": "d" * (MAX_DESCRIPTION + 1)}

    # `follow` takes the retry as the call's answer and goes on to its `send`.
    team.say(lead, call_directive("kg_update", big) + "\nsend @Human response: still here")
    team.wait_idle(20)

    [answer] = [
        p for p in tool_returns(team.model_requests("@Lead")[-1]) if p.tool_name == "kg_update"
    ]
    assert (answer.outcome, answer.content) == (
        "retried",
        f"the description is {MAX_DESCRIPTION + 1:,} characters long; the most is "
        f"{MAX_DESCRIPTION:,}",
    )
    assert [m.content for m in team.received_by("@Human")] == ["still here"]
    assert graph_of(team).entities["parser"].description == ""


def test_add_update_link_unlink_and_remove(retinue_team: TeamHarness) -> None:
    team = retinue_team
    lead = team.add(keeper("Lead"))
    add(team, lead, *SEED, {"name": "Lexer", "type": "component"})
    steps = [
        ("kg_add", {"entities": [{"name": "parser", "type": "x"}]}),
        ("kg_update", {"name": "Parser", "properties": {"language": "Python", "owner": "Ada"}}),
        ("kg_update", {"name": "Parser", "properties": {"owner": ""}, "description": "Reads."}),
        ("kg_link", {"source": "Ada", "relation": "Works-On", "target": "Parser"}),
        ("kg_link", {"source": "Ada", "relation": "works_on", "target": "Parser"}),
        ("kg_link", {"source": "Lexer", "relation": "feeds", "target": "Parser"}),
        ("kg_link", {"source": "Ada", "relation": "knows", "target": "Lexer", "remove": True}),
        ("kg_remove", {"name": "Lexer"}),
        ("kg_show", {"name": "ada", "depth": 4}),
    ]
    for tool, args in steps:
        team.say(lead, call_directive(tool, args))
        team.wait_idle(20)

    assert team.tool_results("@Lead")[1:] == [
        "Parser already exists; kg_update changes it",
        "Updated Parser.",
        "Updated Parser.",
        "Linked Ada —works_on→ Parser.",
        "Ada —works_on→ Parser already exists; nothing changed.",
        "Linked Lexer —feeds→ Parser.",
        "there is no relation Ada —knows→ Lexer; kg_show Ada lists them",
        "Removed Lexer and 1 relation.",
        "the depth is 1 to 3, not 4",
    ]
    graph = graph_of(team)
    parser = graph.entities["parser"]
    assert (parser.description, dict(parser.properties)) == ("Reads.", {"language": "Python"})
    assert [(r.source, r.type, r.target) for r in graph.relations.values()] == [
        ("Ada", "works_on", "Parser")
    ]
    assert parser.updated_by == "@Lead"


def test_the_persons_commands(retinue_team: TeamHarness) -> None:
    team = retinue_team
    lead = team.add(keeper("Lead"))
    add(
        team,
        lead,
        PARSER,
        {"name": "Ada", "type": "person"},
        {"name": "Grammar", "type": "document"},
    )
    link(team, lead, "Ada", "works_on", "Parser")
    link(team, lead, "Parser", "follows", "Grammar")

    found = team.command(lead, "/kg_search config files")
    shown = team.command(lead, "/kg_show Ada depth=2").splitlines()
    near = team.command(lead, "/kg_show Ada").splitlines()

    assert found == (
        "1 found for 'config files', best first:\n"
        "- Parser: [component] Reads config files; 1 observation"
    )
    assert shown[0] == "Ada [person]"
    assert shown[shown.index("relations (to depth 2):") + 1 :][:2] == [
        "- Ada —works_on→ Parser",
        "- Parser —follows→ Grammar",
    ]
    assert "- Grammar: [document]" in shown
    assert "- Grammar: [document]" not in near  # two relations away
    assert team.command(lead, "/kg_show Nobody").endswith(
        "there is no entity 'Nobody'; kg_search finds entities"
    )
    assert team.command(lead, "/kg_search").endswith("the query is empty; give one")
    assert team.command(lead, "/kg_stats") == (
        "Knowledge graph, version 3: 3 entities, 2 relations. "
        "Search: words (SQLite FTS5, BM25) and no vectors (no embedder)."
    )
    person = graph_of(team).entities["ada"]
    assert person.created_by == "@Lead"
