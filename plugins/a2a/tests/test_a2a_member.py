"""A team whose @Reviewer is a remote A2A agent (`A2AMember`): a plain a2a-sdk agent, and
another retinue team served in the same test."""

from __future__ import annotations

from pathlib import Path

import pytest
from a2a_helpers import TEAM, TIMEOUT, Heard, free_port, serving
from plain_agent import PlainExecutor
from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models.function import AgentInfo, FunctionModel
from retinue import (
    ActorAddress,
    ActorSystem,
    AgentCard,
    AgentConfig,
    FailureNotice,
    LlmUsageEvent,
    ModelConfig,
)
from retinue.teamfile import TeamFileError, load_team_file
from retinue.testing import TeamHarness, incoming, send
from retinue_a2a import A2AMember, A2AMemberConfig, RemoteProgressEvent
from retinue_a2a.app import build_app
from retinue_a2a.conversations import Conversations


def lead(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """The person's request goes to @Reviewer; whatever comes back goes to the person."""
    got = incoming(messages)
    if got.sender == "@Human":
        return send(info, ("@Reviewer", "request", got.content))
    return send(info, ("@Human", "response", f"{got.sender} said: {got.content}"))


def team_with_reviewer(team: TeamHarness, url: str, **settings: object) -> ActorAddress:
    reviewer = AgentCard(
        description="Reviews, remotely",
        agent_class=A2AMember,
        config=A2AMemberConfig(name="@Reviewer", role="Reviewer", url=url, **settings),
    )
    team.add(reviewer)
    return team_with_reviewer_lead(team)


def ask_the_reviewer(team: TeamHarness, url: str, text: str, **settings: object) -> None:
    """The person asks the Lead `text`, which it asks @Reviewer, the A2A agent at `url`
    (`settings`: more of its config); returns once the team is quiet."""
    team.say(team_with_reviewer(team, url, **settings), text)
    team.wait_idle(TIMEOUT)


def team_with_reviewer_lead(team: TeamHarness) -> ActorAddress:
    """The Lead who asks @Reviewer and tells the person what came back."""
    lead_card = AgentCard(
        description="Asks the reviewer",
        agent_class="retinue.BaseAgent",
        config=AgentConfig(name="@Lead", role="Lead", model_cfg=ModelConfig(provider="test")),
    )
    return team.add(lead_card, model=FunctionModel(lead))


def test_a_plain_a2a_agent_answers_as_the_reviewer(
    retinue_team: TeamHarness, plain: tuple[str, PlainExecutor]
) -> None:
    url, executor = plain
    ask_the_reviewer(retinue_team, url, "check the parser")

    assert executor.received == ["check the parser"]
    assert [m.content for m in retinue_team.received_by("@Human")] == [
        "@Reviewer said: CHECK THE PARSER"
    ]
    assert ("@Reviewer", "@Lead", "response", "CHECK THE PARSER") in retinue_team.transcript()
    progress = retinue_team.events(RemoteProgressEvent)
    assert ("@Reviewer", "working", "reading it") in [
        (p.agent_name, p.state, p.text) for p in progress
    ]
    usage = [e for e in retinue_team.events(LlmUsageEvent) if e.agent_name == "@Reviewer"]
    assert [(u.input_tokens, u.output_tokens) for u in usage] == [(7, 3)]


def test_a_failing_remote_reaches_the_lead_and_the_person(
    retinue_team: TeamHarness, plain: tuple[str, PlainExecutor]
) -> None:
    url, _ = plain
    ask_the_reviewer(retinue_team, url, "fail")

    told = retinue_team.received_by("@Human")
    failures = [m for m in told if isinstance(m, FailureNotice)]
    assert [f.member for f in failures] == ["@Reviewer"]
    assert failures[0].reason == (
        f"RemoteAgentError: the A2A agent at {url} ended its task failed: the disk is full"
    )
    assert told[-1].content.startswith("@Reviewer said: @Reviewer failed")


def test_a_hanging_remote_fails_within_its_timeout_and_its_task_is_cancelled(
    retinue_team: TeamHarness, plain: tuple[str, PlainExecutor]
) -> None:
    url, executor = plain
    ask_the_reviewer(retinue_team, url, "hang", timeout=2)

    failures = [m for m in retinue_team.received_by("@Human") if isinstance(m, FailureNotice)]
    assert [f.reason for f in failures] == [
        f"RemoteAgentError: the A2A agent at {url} did not answer within 2 s"
    ]
    assert executor.cancelled.wait(TIMEOUT)


def test_an_unreachable_remote_is_a_failure(retinue_team: TeamHarness) -> None:
    url = f"http://127.0.0.1:{free_port()}/"  # nobody listens there
    ask_the_reviewer(retinue_team, url, "anyone there?", timeout=30)

    failures = [m for m in retinue_team.received_by("@Human") if isinstance(m, FailureNotice)]
    assert len(failures) == 1 and failures[0].member == "@Reviewer"
    assert failures[0].reason.startswith(f"RemoteAgentError: the A2A agent at {url}: ")


def test_stop_cascades_to_the_remote_task(
    retinue_team: TeamHarness, plain: tuple[str, PlainExecutor]
) -> None:
    url, executor = plain
    the_lead = team_with_reviewer(retinue_team, url)

    working = Heard(lambda e: isinstance(e, RemoteProgressEvent) and e.state == "working")
    retinue_team.orchestrator_proxy.subscribe(working)
    retinue_team.say(the_lead, "hang")
    assert executor.hanging.wait(TIMEOUT)
    # The member knows the remote's task once the remote has said it works on it: only a
    # task the remote has named can be cancelled (A2A has no cancel by message).
    assert working.event.wait(TIMEOUT), "the remote's first update did not come"
    retinue_team.say(the_lead, "/stop")  # the lead waits on @Reviewer: its task is stopped
    retinue_team.wait_idle(TIMEOUT)

    assert executor.cancelled.wait(TIMEOUT)
    told = [m.content for m in retinue_team.received_by("@Human")]
    assert any(line.startswith("Stopped @Lead's task") and "@Reviewer" in line for line in told)
    assert not [m for m in retinue_team.received_by("@Human") if isinstance(m, FailureNotice)]


def test_another_retinue_team_answers_as_the_reviewer(retinue_team: TeamHarness) -> None:
    system = ActorSystem()
    conversations = Conversations(load_team_file(TEAM), system=system)
    port = free_port()
    try:
        app = build_app(conversations, port=port, token="tok")
        with serving(app, port) as url:
            ask_the_reviewer(retinue_team, url, "two times three", bearer_token="tok")
    finally:
        system.shutdown(30)

    assert [m.content for m in retinue_team.received_by("@Human")] == [
        "@Reviewer said: The team's answer: TWO TIMES THREE = 42"
    ]
    states = {p.state for p in retinue_team.events(RemoteProgressEvent)}
    assert "working" in states


def test_a_team_file_role_with_an_a2a_url_is_a_remote_member(
    retinue_team: TeamHarness, plain: tuple[str, PlainExecutor], tmp_path: Path
) -> None:
    url, executor = plain
    (tmp_path / "team.toml").write_text(
        f"""
[team]
entry = "Lead"

[roles.Lead]
model = "test"
routes_to = ["Reviewer"]

[roles.Reviewer]
description = "Reviews, remotely"
a2a = "{url}"
timeout = 30
"""
    )
    spec = load_team_file(tmp_path / "team.toml")
    reviewer = spec.cards()[1]
    assert reviewer.get_agent_class() is A2AMember
    assert isinstance(reviewer.config, A2AMemberConfig)
    assert (reviewer.config.url, reviewer.config.timeout) == (url, 30)
    retinue_team.add(reviewer)
    the_lead = team_with_reviewer_lead(retinue_team)
    retinue_team.say(the_lead, "check the lexer")
    retinue_team.wait_idle(TIMEOUT)
    assert executor.received == ["check the lexer"]
    assert [m.content for m in retinue_team.received_by("@Human")] == [
        "@Reviewer said: CHECK THE LEXER"
    ]


@pytest.mark.parametrize(
    ("role", "problem"),
    [
        (
            'a2a = "http://127.0.0.1:9/"\nagent_class = "retinue.BaseAgent"',
            "roles.Reviewer.a2a (line 3): a2a names the agent class: drop one",
        ),
        (
            'a2a = "ftp://127.0.0.1:9/"',
            "roles.Reviewer.url (line 2): 'ftp://127.0.0.1:9/' is not an http:// or https:// URL",
        ),
    ],
    ids=["also-an-agent-class", "not-http"],
)
def test_a_wrong_a2a_role_is_one_line(tmp_path: Path, role: str, problem: str) -> None:
    (tmp_path / "team.toml").write_text(f"\n[roles.Reviewer]\n{role}\n")
    with pytest.raises(TeamFileError) as caught:
        load_team_file(tmp_path / "team.toml")
    assert caught.value.problems == [problem]
