"""Slash commands: honoured from people and code, ordinary content from other agents."""

from __future__ import annotations

from agent_cards import card, prompts
from retinue import AgentMessage, CommandsAnnouncedEvent
from retinue.testing import TeamHarness


def test_commands_are_announced_once_with_the_builtins(retinue_team: TeamHarness) -> None:
    team = retinue_team
    worker = team.add(card("Worker", "silent"))
    team.wait_idle()
    (announced,) = [e for e in team.events(CommandsAnnouncedEvent) if e.agent == worker]
    names = {c.name for c in announced.commands}
    assert {"compact", "clear"} <= names
    assert not any(n.startswith("_") for n in names)


def test_human_command_runs_replies_and_is_remembered(retinue_team: TeamHarness) -> None:
    team = retinue_team
    worker = team.add(card("Worker", "silent"))
    team.say(worker, "hello")
    team.say(worker, "/compact")
    team.say(worker, "and now?")
    team.wait_idle()
    replies = [m for m in team.received_by("@Human")]
    assert [m.type for m in replies] == ["notification"]
    assert "compact" in replies[0].content.lower()
    assert len(prompts(team, "@Worker")) == 2  # the command never reached the model
    assert "[operator] @Human ran /compact" in team.proxy(worker).get_context_transcript()


def test_unknown_command_falls_through_to_the_model(retinue_team: TeamHarness) -> None:
    team = retinue_team
    worker = team.add(card("Worker", "silent"))
    team.say(worker, "/usr/bin is where it lives")
    team.wait_idle()
    (prompt,) = prompts(team, "@Worker")
    assert prompt.endswith("\n/usr/bin is where it lives\n</message>")
    assert team.received_by("@Human") == []


def test_command_errors_come_back_as_results(retinue_team: TeamHarness) -> None:
    team = retinue_team
    worker = team.add(card("Worker", "silent"))
    team.say(worker, "/compact now please")
    team.wait_idle()
    (reply,) = team.received_by("@Human")
    assert "compact" in reply.content and "argument" in reply.content


def test_agent_written_command_is_ordinary_content(retinue_team: TeamHarness) -> None:
    team = retinue_team
    target = team.add(card("Target", "silent"))
    writer = team.add(card("Writer", "clear_writer"))
    team.say(target, "remember this")
    team.say(writer, "go")
    team.wait_idle()
    shown = prompts(team, "@Target")
    assert len(shown) == 2
    assert shown[1].endswith(" waits for your response:\n<message>\n/clear\n</message>")
    assert "remember this" in team.proxy(target).get_context_transcript()


def test_command_from_code_is_honoured(retinue_team: TeamHarness) -> None:
    team = retinue_team
    worker = team.add(card("Worker", "silent"))
    team.say(worker, "remember this")
    team.wait_idle()
    team.system.send(worker, AgentMessage(content="/clear"))
    team.wait_idle()
    assert "remember this" not in team.proxy(worker).get_context_transcript()


def test_usage_summary_through_proxy_ask(retinue_team: TeamHarness) -> None:
    team = retinue_team
    worker = team.add(card("Worker", "silent"))
    team.say(worker, "one")
    team.say(worker, "two")
    team.wait_idle()
    summary = team.proxy(worker).get_usage_summary()
    assert summary.runs == 2 and summary.requests == 2
    by_run = team.proxy(worker).get_usage_summary(by_run=True)
    assert len(by_run.by_run) == 2
