"""A failure reaches someone: the agent waiting for the work, and the person, once.

Every test drives a real team on scripted models. The requester's model must be shown the
failure as an incoming message from the failed member; the person gets one line; nothing
waits forever, and no notice ever causes another.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any, NamedTuple

import pytest
from agent_cards import card
from failure_scripts import Hanging
from pydantic import BaseModel
from retinue import (
    ActorAddress,
    AgentCard,
    AgentConfig,
    AgentMessage,
    AgentUsageLimits,
    BaseAgent,
    CancelMessage,
    ErrorMessage,
    FailureNotice,
    ModelConfig,
    PromptTemplate,
    RuntimeConfig,
)
from retinue.agent.custom_agent import TriageMessage
from retinue.agent.failures import awaits_answer
from retinue.testing import Incoming, ModelLike, TeamHarness, incoming, last_prompt

SCRIPTS = "failure_scripts"


def role(
    name: str,
    script: str,
    *,
    agent_class: type[Any] | str = BaseAgent,
    runtime: RuntimeConfig | None = None,
    model: ModelConfig | None = None,
    agent_limits: AgentUsageLimits | None = None,
) -> AgentCard:
    """A card for `@<name>` on `failure_scripts:<script>` (or on `model` when given)."""
    return AgentCard(
        description=f"{name} of the team",
        agent_class=agent_class,
        config=AgentConfig(
            name=f"@{name}",
            role=name,
            prompt=PromptTemplate(template=f"You are the {name}."),
            model_cfg=model or ModelConfig(provider="function", model=f"{SCRIPTS}:{script}"),
            runtime_cfg=runtime or RuntimeConfig(),
            agent_usage_limits=agent_limits or AgentUsageLimits(),
        ),
    )


def notices(team: TeamHarness, to: str) -> list[FailureNotice]:
    return [m for m in team.received_by(to) if isinstance(m, FailureNotice)]


class Seen(NamedTuple):
    """One run of a model: the message it answered (as `incoming()` reads it) and the prompt."""

    incoming: Incoming
    prompt: str


def failure_prompts(team: TeamHarness, name: str) -> list[Seen]:
    """The runs of `name`'s model that answered a failure notice."""
    seen = [Seen(incoming(r), last_prompt(r)) for r in team.model_requests(name)]
    return [s for s in seen if s.incoming.intent == "failure"]


def delegation(
    team: TeamHarness, dev: AgentCard, dev_model: ModelLike | None = None
) -> tuple[ActorAddress, ActorAddress]:
    """`@Manager` hands the person's request to `@Dev` (on `dev_model` when given)."""
    dev_address = team.add(dev, model=dev_model)
    manager = team.add(role("Manager", "delegates_to_dev"))
    return manager, dev_address


def assert_manager_told_of(team: TeamHarness, reason: str) -> FailureNotice:
    """The manager got one notice from @Dev in the request's chain, and its model read it."""
    (request,) = [m for m in team.received_by("@Dev") if m.sender and m.sender.name == "@Manager"]
    (notice,) = notices(team, "@Manager")
    assert notice.sender is not None and notice.sender.name == "@Dev"
    assert notice.failure == "turn" and notice.member == "@Dev"
    assert notice.chain_id == request.chain_id and notice.parent_id == request.id
    assert notice.failed_message_id == request.id
    assert reason in notice.reason
    ((seen, prompt),) = failure_prompts(team, "@Manager")
    assert seen.sender == "@Dev" and reason in seen.content
    assert prompt.startswith("@Dev failed (the framework tells you so, nobody waits for a reply):")
    return notice


def assert_person_told_once(team: TeamHarness, *words: str) -> str:
    """Exactly one line reached the person from the kernel, naming what is given."""
    (line,) = [m.content for m in notices(team, "@Human")]
    assert "\n" not in line and len(line) < 500
    for word in words:
        assert word in line
    return line


# ------------------------------------------------------------------ a member's turn fails


def test_a_model_that_raises_answers_the_manager_and_tells_the_person(
    retinue_team: TeamHarness,
) -> None:
    team = retinue_team
    manager, _ = delegation(team, role("Dev", "explodes"))
    team.say(manager, "ship it")
    team.wait_idle()
    assert_manager_told_of(team, "RuntimeError: model exploded")
    assert_person_told_once(team, "@Dev", "RuntimeError: model exploded")
    # the manager's model decided what the person hears next, as with any answer
    assert [m.content for m in team.received_by("@Human") if m.type == "response"] == [
        "could not get it done (@Dev)"
    ]


@pytest.mark.parametrize(
    "script",
    [
        "wrong_types",
        "text_only",
        # pydantic-ai itself spends seconds estimating the usage of 10 MB of text
        pytest.param("ten_megabytes", marks=pytest.mark.slow),
    ],
)
def test_output_that_never_validates_is_a_failure(retinue_team: TeamHarness, script: str) -> None:
    team = retinue_team
    manager, _ = delegation(team, role("Dev", script))
    team.say(manager, "ship it")
    team.wait_idle()
    notice = assert_manager_told_of(team, "Exceeded maximum output retries")
    assert len(notice.content) < 500
    assert_person_told_once(team, "@Dev", "output retries")


def test_a_run_timeout_is_a_failure(retinue_team: TeamHarness) -> None:
    team = retinue_team
    dev = role("Dev", "unscripted", runtime=RuntimeConfig(run_timeout=0.3))
    manager, _ = delegation(team, dev, Hanging())
    team.say(manager, "ship it")
    team.wait_idle()
    assert_manager_told_of(team, "exceeded its timeout of 0.3s")
    assert_person_told_once(team, "@Dev", "RunTimeoutError")


class Brittle(BaseAgent):
    """A custom agent whose own handler raises before any model is asked."""

    def receiveMsg_AgentMessage(self, message: AgentMessage, sender: ActorAddress | None) -> None:
        raise ValueError("the handler broke")


def test_a_custom_handler_that_raises_is_a_failure(retinue_team: TeamHarness) -> None:
    team = retinue_team
    manager, _ = delegation(team, role("Dev", "explodes", agent_class=Brittle))
    team.say(manager, "ship it")
    team.wait_idle()
    assert_manager_told_of(team, "ValueError: the handler broke")
    assert_person_told_once(team, "@Dev", "the handler broke")


def test_when_the_person_asked_the_notice_is_their_one_line(retinue_team: TeamHarness) -> None:
    team = retinue_team
    dev = team.add(role("Dev", "explodes"))
    team.say(dev, "ship it")
    team.wait_idle()
    (only,) = team.received_by("@Human")
    assert isinstance(only, FailureNotice) and only.type == "response"
    assert only.sender == dev and only.failed_message_id is not None
    assert only.content == ("@Dev failed on a request from @Human: RuntimeError: model exploded")


def test_a_custom_message_from_the_person_is_answered_too(retinue_team: TeamHarness) -> None:
    team = retinue_team
    triage = team.add(
        role("Triage", "explodes", agent_class="retinue.agent.custom_agent.CustomAgent")
    )
    team.system.proxy_tell(team.human).send(triage, TriageMessage(content="sort the backlog"))
    team.wait_idle()
    line = assert_person_told_once(team, "@Triage", "TriageMessage", "model exploded")
    assert line.startswith("@Triage failed on a TriageMessage from @Human")


class Verdict(BaseModel):
    """An output type with a required field: `act()` cannot answer an interruption with it."""

    approved: bool


class Strict(BaseAgent):
    """Runs its model for a `Verdict`, so an interruption is re-raised out of its handler."""

    def receiveMsg_AgentMessage(self, message: AgentMessage, sender: ActorAddress | None) -> None:
        self.act(message.content, Verdict)


def test_an_interruption_re_raised_by_act_is_no_failure(retinue_team: TeamHarness) -> None:
    team = retinue_team
    hanging = Hanging()
    manager, dev = delegation(team, role("Dev", "unscripted", agent_class=Strict), hanging)
    team.say(manager, "ship it")
    assert hanging.started.wait(10)
    team.say(dev, "/stop")
    team.wait_idle()
    assert [e.exception_type for e in team.of(ErrorMessage)] == ["RunInterruptedError"]
    assert [n for n in team.sent() if isinstance(n, FailureNotice)] == []
    assert [m.content for m in team.received_by("@Human")] == ["Run interrupted."]


def test_a_notification_that_fails_tells_only_the_person(retinue_team: TeamHarness) -> None:
    team = retinue_team
    manager, dev = delegation(team, role("Dev", "explodes"))
    team.system.proxy_ask(manager).send(dev, AgentMessage(content="fyi", type="notification"))
    team.wait_idle()
    assert notices(team, "@Manager") == []
    assert_person_told_once(team, "@Dev", "a notification from @Manager")


def test_the_error_message_keeps_the_traceback(retinue_team: TeamHarness) -> None:
    team = retinue_team
    dev = team.add(role("Dev", "explodes"))
    team.say(dev, "ship it")
    team.wait_idle()
    (error,) = team.of(ErrorMessage)
    assert error.exception_type == "RuntimeError"
    assert error.traceback is not None
    assert error.traceback.startswith("Traceback (most recent call last)")
    assert "in explodes" in error.traceback
    assert error.traceback.rstrip().endswith("RuntimeError: model exploded")


# ------------------------------------------------------------------ the usage guard


def test_a_spent_budget_answers_the_manager_and_tells_the_person_once(
    retinue_team: TeamHarness,
) -> None:
    team = retinue_team
    team.add(card("Worker", "silent", agent_limits=AgentUsageLimits(agent_request_limit=1)))
    manager = team.add(role("Manager", "delegates_to_worker_twice"))
    team.say(manager, "two things")
    team.wait_idle()
    (notice,) = notices(team, "@Manager")
    assert notice.member == "@Worker" and "WarningError" in notice.reason
    # the guard told the person; the failure path does not tell them again
    kernel_lines = [m.content for m in team.received_by("@Human") if m.type == "notification"]
    assert len(kernel_lines) == 1 and kernel_lines[0].startswith("@Worker stopped:")


# ------------------------------------------------------------------ hires that cannot start


class FailsToStart(BaseAgent):
    """An agent class whose start raises (a missing workspace, a bad plugin, ...)."""

    def on_start(self) -> None:
        raise RuntimeError("no workspace")


@pytest.fixture
def hiring(retinue_team: TeamHarness) -> TeamHarness:
    pytest.importorskip("retinue_team", reason="hiring by role needs retinue-team")
    return retinue_team


def test_a_hired_agent_whose_start_raises_is_reported(hiring: TeamHarness) -> None:
    team = hiring
    team.register(role("Developer", "explodes", agent_class=FailsToStart))
    manager = team.add(role("Manager", "hires_developer"))
    team.say(manager, "build it")
    team.wait_idle()
    # the hiring agent's model is told, once, by the member that could not start
    ((seen, _),) = failure_prompts(team, "@Manager")
    assert seen.sender == "@Developer"
    assert "could not start" in seen.content and "RuntimeError: no workspace" in seen.content
    (start,) = [n for n in notices(team, "@Manager") if n.failure == "start"]
    (request,) = [m for m in team.received_by("@Manager") if m.sender == team.human]
    assert start.chain_id == request.chain_id and start.parent_id == request.id
    # and the person, in one line
    line = assert_person_told_once(team, "@Developer", "no workspace")
    assert line == "@Developer could not start (hired by @Manager): RuntimeError: no workspace"
    assert [m.content for m in team.received_by("@Human") if m.type == "response"] == [
        "could not get it done (@Developer)"
    ]


@pytest.mark.parametrize(
    "model",
    [
        ModelConfig(provider="function", model=f"{SCRIPTS}:no_such_function"),
        ModelConfig(provider="openai", model="gpt-4o", api_key_env="RETINUE_TEST_UNSET_KEY"),
    ],
    ids=["missing-function", "missing-key-or-sdk"],
)
def test_a_hire_whose_model_cannot_be_built_is_reported(
    hiring: TeamHarness, model: ModelConfig, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("RETINUE_TEST_UNSET_KEY", raising=False)
    team = hiring
    team.register(role("Developer", "explodes", model=model))
    manager = team.add(role("Manager", "hires_developer"))
    team.say(manager, "build it")
    team.wait_idle()
    ((seen, _),) = failure_prompts(team, "@Manager")
    assert seen.sender == "@Developer" and "ConfigError" in seen.content
    line = assert_person_told_once(team, "@Developer", "ConfigError")
    assert line.startswith("@Developer could not start (hired by @Manager): ConfigError")
    assert [m.content for m in team.received_by("@Human") if m.type == "response"] == [
        "could not get it done (@Developer)"
    ]


# ------------------------------------------------------------------ unreachable recipients


def test_the_person_is_told_when_their_message_finds_the_member_gone(
    retinue_team: TeamHarness,
) -> None:
    team = retinue_team
    dev = team.add(role("Dev", "explodes"))
    assert team.system.stop_actor(dev)
    team.say(dev, "are you there?")
    team.wait_idle()
    (only,) = team.received_by("@Human")
    assert isinstance(only, FailureNotice) and only.failure == "delivery"
    assert only.sender == dev
    assert only.content == (
        "A request from @Human to @Dev was not delivered: @Dev is no longer running"
    )


class PausesAfterResolving(BaseAgent):
    """Stops between finding its recipient and sending, so the test can stop the recipient."""

    resolved: threading.Event
    release: threading.Event

    def _locate(self, recipient: str) -> tuple[ActorAddress | None, str | None]:
        found = super()._locate(recipient)
        self.resolved.set()
        self.release.wait(10)
        return found


@pytest.fixture
def pauses() -> Iterator[type[PausesAfterResolving]]:
    """A `PausesAfterResolving` class with this test's own events, released at its end."""
    fresh: type[PausesAfterResolving] = type(
        "PausesAfterResolving",
        (PausesAfterResolving,),
        {"resolved": threading.Event(), "release": threading.Event()},
    )
    yield fresh
    fresh.release.set()


def test_a_request_to_a_member_that_stopped_answers_the_sender(
    retinue_team: TeamHarness, pauses: type[PausesAfterResolving]
) -> None:
    team = retinue_team
    dev = team.add(role("Dev", "explodes"))
    manager = team.add(role("Manager", "delegates_to_dev", agent_class=pauses))
    team.say(manager, "ship it")
    assert pauses.resolved.wait(10)
    assert team.system.stop_actor(dev)
    pauses.release.set()
    team.wait_idle()
    (notice,) = notices(team, "@Manager")
    assert notice.failure == "delivery" and notice.sender == dev
    (request,) = [m for m in team.received_by("@Manager") if m.sender == team.human]
    assert notice.chain_id == request.chain_id
    ((seen, _),) = failure_prompts(team, "@Manager")
    assert seen.sender == "@Dev" and "no longer running" in seen.content
    assert team.of(ErrorMessage) == []
    # the manager's own model told the person; the kernel adds no line for a dead letter
    assert notices(team, "@Human") == []
    assert [m.content for m in team.received_by("@Human")] == ["could not get it done (@Dev)"]


# ------------------------------------------------------------------ no loops


def test_failing_on_a_failure_notice_sends_no_further_notice(
    retinue_team: TeamHarness,
) -> None:
    team = retinue_team
    team.add(role("Dev", "explodes"))
    boss = team.add(role("Boss", "fails_on_failure"))
    team.say(boss, "ship it")
    team.wait_idle()
    # @Dev failed on @Boss's request; @Boss then failed on the notice, and that is all
    to_agents = [
        n for n in team.sent() if isinstance(n, FailureNotice) and n.recipient != team.human
    ]
    assert [(n.member, n.recipient.name if n.recipient else None) for n in to_agents] == [
        ("@Dev", "@Boss")
    ]
    lines = [m.content for m in notices(team, "@Human")]
    assert len(lines) == 2
    assert lines[0].startswith("@Dev failed on a request from @Boss")
    assert lines[1].startswith("@Boss failed on a failure notice from @Dev")
    assert len(team.of(ErrorMessage)) == 2


def test_retrying_after_a_notice_gets_no_second_notice_turn(retinue_team: TeamHarness) -> None:
    team = retinue_team
    team.add(role("Dev", "explodes"))
    manager = team.add(role("Manager", "retries_dev"))
    team.say(manager, "ship it")
    team.wait_idle()
    # the retry failed too: the manager hears of it in its history, not as a new turn
    assert len(notices(team, "@Manager")) == 2
    assert len(failure_prompts(team, "@Manager")) == 1
    assert "[retinue] @Dev failed on a request from @Manager" in (
        team.proxy(manager).get_context_transcript()
    )
    lines = [m.content for m in notices(team, "@Human")]
    assert len(lines) == 2 and all(line.startswith("@Dev failed") for line in lines)


def test_a_rehire_after_a_failed_hire_is_not_answered_again(hiring: TeamHarness) -> None:
    team = hiring
    team.register(role("Developer", "explodes", agent_class=FailsToStart))
    manager = team.add(role("Manager", "hires_again_on_failure"))
    team.say(manager, "build it")
    team.wait_idle()
    assert len(failure_prompts(team, "@Manager")) == 1  # the second failed hire made no turn
    lines = [m.content for m in notices(team, "@Human")]
    assert len(lines) == 2 and all("could not start" in line for line in lines)


def test_a_failure_notice_is_never_owed_a_notice() -> None:
    notice = FailureNotice(failure="turn", member="@Dev", reason="boom", content="x")
    assert not awaits_answer(notice)
    assert awaits_answer(AgentMessage(content="do it"))
    assert awaits_answer(AgentMessage(content="do it", type="instruction"))
    assert not awaits_answer(AgentMessage(content="fyi", type="notification"))
    assert awaits_answer(TriageMessage(content="sort"))
    assert not awaits_answer(CancelMessage())
