"""retinue-notes in a real team on a scripted model: the model calls the tool, a person runs
the command, the notes survive a resume, and the installed entry point is found."""

from __future__ import annotations

import importlib.metadata
import re
from pathlib import Path

import pluggy
from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models.function import AgentInfo
from retinue import AgentCard, AgentConfig, BaseAgent, get_plugin_manager
from retinue.plugins import collect_card_classes
from retinue.resume import resume_team
from retinue.store import open_store
from retinue.testing import (
    TeamHarness,
    call_tool,
    incoming,
    run_messages,
    send,
    tool_returns,
    user_texts,
)
from retinue_notes import NotesTool
from retinue_notes.card import SECTION

NOTE = re.compile(r"^- #\d+: (?P<note>.+)$", re.MULTILINE)  # a note in a context update


def scribe_model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Plays the model: notes what follows "Remember:" and passes on what take_note said;
    answers anything else from the notes its context updates showed it."""
    got = incoming(messages)  # the message this run answers: intent, sender, content
    noted = [r for r in tool_returns(run_messages(messages, info)) if r.tool_name == "take_note"]
    if noted:  # take_note answered in this run: pass its answer on
        return send(info, (got.sender, "response", str(noted[-1].content)))
    if got.content.startswith("Remember:"):
        return call_tool("take_note", {"text": got.content.removeprefix("Remember:").strip()})
    notes = [match["note"] for text in user_texts(messages) for match in NOTE.finditer(text)]
    return send(info, (got.sender, "response", "From my notes: " + "; ".join(notes)))


def scribe(card: NotesTool | str = "notes") -> AgentCard:
    """A role whose agent carries the card, named as a team file names it, or with settings."""
    return AgentCard(
        description="Keeps track of what the team decided",
        agent_class=BaseAgent,
        config=AgentConfig(name="@Ada", role="Scribe", tools=[card]),
    )


def test_the_model_takes_a_note_and_sees_it_again(retinue_team: TeamHarness) -> None:
    ada = retinue_team.add(scribe(), model=scribe_model)

    retinue_team.say(ada, "Remember: the launch is on May 3.")
    retinue_team.wait_idle()
    retinue_team.say(ada, "When is the launch?")
    retinue_team.wait_idle()

    assert [content for *_, content in retinue_team.transcript()] == [
        "Remember: the launch is on May 3.",
        "Noted as #1.",
        "When is the launch?",
        "From my notes: the launch is on May 3.",
    ]
    context = retinue_team.proxy(ada).get_context_transcript()
    assert f"### {SECTION} (changed)\nAdded:\n- #1: the launch is on May 3." in context


def test_a_person_reads_the_notes_with_the_command(retinue_team: TeamHarness) -> None:
    ada = retinue_team.add(scribe(), model=scribe_model)
    for note in ("the launch is on May 3", "the venue is booked", "the launch moved to May 10"):
        retinue_team.say(ada, f"Remember: {note}")
        retinue_team.wait_idle()

    assert retinue_team.command(ada, "/notes launch last=1") == (
        "Notes of @Ada:\n#3 the launch moved to May 10"
    )
    assert retinue_team.command(ada, "/notes venue") == "Notes of @Ada:\n#2 the venue is booked"
    assert retinue_team.command(ada, "/notes budget") == "@Ada has no notes holding budget."
    # Typed: what is not an int is refused by the registry, naming the parameter.
    refused = retinue_team.command(ada, "/notes last=many")
    assert refused.startswith("/notes: argument 'last': ")
    assert refused.endswith("Usage: /notes [last=<last>] [<words>...]")
    assert retinue_team.command(ada, "/notes last=0") == (
        "/notes: last= takes a count of notes, 1 or more (got 0)."
    )


def test_the_tool_refuses_in_words(retinue_team: TeamHarness) -> None:
    ada = retinue_team.add(scribe(NotesTool(max_notes=1)), model=scribe_model)

    for text in ("Remember: first", "Remember: second", "Remember:   "):
        retinue_team.say(ada, text)
        retinue_team.wait_idle()

    assert [message.content for message in retinue_team.received_by("@Human")] == [
        "Noted as #1.",
        "Nothing was noted: the notebook is full (max_notes=1).",
        "Nothing was noted: the note is empty.",
    ]


def test_the_notes_survive_a_resume(
    tmp_path: Path, retinue_plugin_manager: pluggy.PluginManager
) -> None:
    record = tmp_path / "team.sqlite"
    team = TeamHarness(plugin_manager=retinue_plugin_manager, store=record)
    ada = team.add(scribe(), model=scribe_model)
    team.say(ada, "Remember: the launch is on May 3.")
    team.wait_idle()
    assert team.shutdown()

    with open_store(record, create=False) as store:  # a new team, from the record alone
        resumed = resume_team(store, team.team_id, plugin_manager=retinue_plugin_manager)
        try:
            agent = resumed.system.proxy_ask(resumed.roster["@Ada"])
            answer = agent.command_registry.dispatch("/notes")
        finally:
            assert resumed.shutdown()
    assert answer == "Notes of @Ada:\n#1 the launch is on May 3."


def test_the_installed_distribution_announces_the_plugin() -> None:
    found = importlib.metadata.entry_points(group="retinue", name="notes")
    assert found, "retinue-notes is not installed: run `pip install -e .` first"
    (entry_point,) = found
    assert entry_point.value == "retinue_notes.hooks"
    assert entry_point.dist is not None and entry_point.dist.name == "retinue-notes"
    assert collect_card_classes(get_plugin_manager())["notes"] is NotesTool
