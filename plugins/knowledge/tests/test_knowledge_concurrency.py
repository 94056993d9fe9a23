"""Ten members write one graph at the same time: every write is there."""

from __future__ import annotations

from knowledge_helpers import graph_of, keeper
from retinue.testing import TeamHarness, call_directive, send_directive
from retinue_knowledge.service import GRAPH_ROLE

MEMBERS = 10
STEPS = 5  # writes each member makes in its turn


def script(name: str) -> str:
    """One member's turn: its own entity, linked to the shared one, facts on both."""
    own = f"Module of {name}"
    return "\n".join(
        [
            call_directive("kg_add", {"entities": [{"name": own, "type": "module"}]}),
            call_directive("kg_link", {"source": own, "relation": "part_of", "target": "Project"}),
            call_directive("kg_update", {"name": "Project", "observation": f"first from {name}"}),
            call_directive("kg_update", {"name": own, "properties": {"owner": name}}),
            call_directive("kg_update", {"name": "Project", "observation": f"second from {name}"}),
            send_directive("@Human", "response", "done"),
        ]
    )


def test_ten_members_writing_one_graph_at_once_lose_nothing(retinue_team: TeamHarness) -> None:
    team = retinue_team
    members = [team.add(keeper(f"Member{n}")) for n in range(MEMBERS)]
    names = [member.name for member in members]
    team.say(
        members[0], call_directive("kg_add", {"entities": [{"name": "Project", "type": "project"}]})
    )
    team.wait_idle(20)

    # Every member's turn starts before the others' end: they write the graph concurrently.
    for member in members:
        team.say(member, script(member.name))
    team.wait_idle(60)

    assert [m.content for m in team.received_by("@Human")][-MEMBERS:] == ["done"] * MEMBERS
    for name in names:
        results = team.tool_results(name)[-STEPS:]
        assert len(results) == STEPS, results
        assert not any(r.startswith("Error") for r in results), results

    graph = graph_of(team)
    assert graph.version == 1 + MEMBERS * STEPS
    project = graph.entities["project"]
    recorded = [(o.author, o.text) for o in project.observations]
    assert sorted(recorded) == sorted(
        (name, f"{which} from {name}") for name in names for which in ("first", "second")
    )
    for name in names:  # each member's two observations in the order it made them
        assert [t for a, t in recorded if a == name] == [
            f"first from {name}",
            f"second from {name}",
        ]
        module = graph.entities[f"module of {name}".casefold()]
        assert (module.created_by, dict(module.properties)) == (name, {"owner": name})
    assert sorted(r.source for r in graph.relations.values()) == sorted(
        f"Module of {name}" for name in names
    )
    assert {(r.type, r.target) for r in graph.relations.values()} == {("part_of", "Project")}

    # They all wrote to the one graph actor, which is not a member of the team.
    assert [a.role for a in team.system.actors()].count(GRAPH_ROLE) == 1
    assert "@Knowledge" not in team.roster()
