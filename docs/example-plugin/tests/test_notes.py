"""retinue-notes in a real agent: the model takes a note, sees it again, a person reads it."""

from __future__ import annotations

import importlib.metadata

from retinue import (
    AgentCard,
    AgentConfig,
    BaseAgent,
    ModelConfig,
    StateChangedMessage,
    get_plugin_manager,
)
from retinue.plugins import collect_card_classes
from retinue.testing import TeamHarness
from retinue_notes import NotesTool


def scribe(name: str = "@Ada", tools: list[NotesTool | str] | None = None) -> AgentCard:
    """A role whose agent keeps notes and runs the scripted model `notes_scripts:scribe`."""
    return AgentCard(
        description="Keeps track of what the team decided",
        agent_class=BaseAgent,
        config=AgentConfig(
            name=name,
            role="Scribe",
            model_cfg=ModelConfig(provider="function", model="notes_scripts:scribe"),
            tools=tools if tools is not None else ["notes"],
        ),
    )


def test_a_note_comes_back_in_the_next_context_update(team: TeamHarness) -> None:
    ada = team.add(scribe())

    team.say(ada, "Remember: the launch is on May 3.")
    team.wait_idle()
    team.say(ada, "When is the launch?")
    team.wait_idle()

    assert [content for *_, content in team.transcript()] == [
        "Remember: the launch is on May 3.",
        "Noted as #1.",
        "When is the launch?",
        "From my notes: the launch is on May 3.",
    ]
    context = team.proxy(ada).get_context_transcript()
    assert "### Notes (changed)\nAdded:\n- #1: the launch is on May 3." in context


def test_a_person_reads_the_notebook_with_a_slash_command(team: TeamHarness) -> None:
    ada = team.add(scribe())
    team.say(ada, "Remember: the launch is on May 3.")
    team.wait_idle()

    team.say(ada, "/notes")
    team.wait_idle()

    reply = team.received_by("@Human")[-1]
    assert reply.type == "notification"
    assert reply.content == "Notes of @Ada:\n#1 the launch is on May 3."


def test_each_agent_keeps_its_own_notebook(team: TeamHarness) -> None:
    shared = NotesTool(max_notes=1)  # one blueprint in two configs
    ada = team.add(scribe("@Ada", tools=[shared]))
    bob = team.add(scribe("@Bob", tools=[shared]))

    team.say(ada, "Remember: Ada's note.")
    team.say(bob, "Remember: Bob's note.")
    team.wait_idle()

    # Each agent bound its own copy of the card, so each notebook took its one note.
    assert ("@Ada", "@Human", "response", "Noted as #1.") in team.transcript()
    assert ("@Bob", "@Human", "response", "Noted as #1.") in team.transcript()
    assert not shared.is_bound  # the blueprint itself holds no notebook


def test_the_card_refuses_notes_past_its_limit_in_words(team: TeamHarness) -> None:
    ada = team.add(scribe(tools=[NotesTool(max_notes=1)]))

    for text in ("Remember: first", "Remember: second", "Remember:   "):
        team.say(ada, text)
        team.wait_idle()

    assert [content for *_, content in team.transcript()][1::2] == [
        "Noted as #1.",
        "Nothing was noted: the notebook is full (max_notes=1).",
        "Nothing was noted: the note is empty.",
    ]


def test_the_notes_ride_the_agents_checkpoints(team: TeamHarness) -> None:
    ada = team.add(scribe())
    team.say(ada, "Remember: the launch is on May 3.")
    team.wait_idle()

    checkpoint = [m for m in team.of(StateChangedMessage) if m.sender == ada][-1]
    stored = checkpoint.model_dump(mode="json")["state"]  # as a store keeps it
    assert stored["tool_state"]["cards"]["notes"] == {"notes": ["the launch is on May 3."]}


def test_the_installed_distribution_announces_the_plugin() -> None:
    found = importlib.metadata.entry_points(group="retinue", name="notes")
    assert found, "retinue-notes is not installed: run `pip install -e .` first"
    (entry_point,) = found
    assert entry_point.value == "retinue_notes.hooks"
    assert collect_card_classes(get_plugin_manager())["notes"] is NotesTool
