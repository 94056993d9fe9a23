"""A team's graph lives in its record: resumed from a real SQLite file, it is the same graph."""

from __future__ import annotations

from pathlib import Path

from knowledge_helpers import EMBEDDER, PARSER, add, graph_of, keeper, link
from retinue import AgentMessage
from retinue.resume import resume_team
from retinue.store import open_store
from retinue.testing import Recorder, TeamHarness, call_directive
from retinue_knowledge import open_graph


def test_the_graph_after_a_resume_equals_the_graph_before(tmp_path: Path) -> None:
    where = str(tmp_path / "team.sqlite")
    first = TeamHarness(store=where)
    lead = first.add(keeper("Lead", embedder=EMBEDDER))
    dev = first.add(keeper("Dev", embedder=EMBEDDER))
    add(first, lead, PARSER, {"name": "Ada", "type": "person"})
    link(first, dev, "Ada", "works_on", "Parser")
    first.say(dev, call_directive("kg_update", {"name": "Parser", "observation": "tabs fixed"}))
    first.wait_idle(20)
    first.say(dev, call_directive("kg_search", {"query": "config parser"}))
    first.wait_idle(20)
    before = graph_of(first)
    searched = first.tool_results("@Dev")[-1]
    assert before.version == 3
    assert first.shutdown(10)

    with open_store(where, create=False) as store:
        team = resume_team(store, first.team_id)
        try:
            recorder = Recorder()
            team.team.subscribe(recorder)
            after = open_graph(team.system, team.team_id, team.orchestrator)
            assert after.current == before
            assert after.embedder == EMBEDDER  # the graph's config came back with it

            # The search index is made again from the state, and answers as before.
            team.send("/kg_search config parser", to=team.roster["@Dev"])
            team.send("/kg_show Ada", to=team.roster["@Dev"])
            team.wait_idle(30)
        finally:
            assert team.shutdown(10)
    sent = [getattr(m, "message", None) for m in recorder.messages]  # SentMessage wrappers
    answers = [m.content for m in sent if isinstance(m, AgentMessage) and m.recipient == team.human]
    assert answers[0] == searched
    assert "- Ada —works_on→ Parser" in answers[1].splitlines()
