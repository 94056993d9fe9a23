"""Checks on what a role sends: a refused message never goes out; the model is sent back
with what is wrong while its output retries remain, then the turn fails naming the check."""

from __future__ import annotations

from typing import Any

import check_scripts
import pytest
from check_scripts import COMPLAINT, retry_texts
from retinue import (
    AgentCard,
    AgentConfig,
    BaseAgent,
    ErrorMessage,
    FailureNotice,
    ModelConfig,
    RuntimeConfig,
    RunUsageLimits,
)
from retinue.testing import PingTool, TeamHarness
from retinue.validation import ConfigError

SCRIPTS = "check_scripts"


def member(
    name: str, script: str, checks: list[object], runtime: RuntimeConfig | None = None, **more: Any
) -> AgentCard:
    """`@<name>` on `check_scripts:<script>` (or a `module:function`), its messages under
    `checks`; `more` are further config fields."""
    model = script if ":" in script else f"{SCRIPTS}:{script}"
    return AgentCard(
        description=f"{name} of the team",
        agent_class=BaseAgent,
        config=AgentConfig(
            name=f"@{name}",
            role=name,
            model_cfg=ModelConfig(provider="function", model=model),
            runtime_cfg=runtime or RuntimeConfig(),
            checks=checks,
            **more,
        ),
    )


def qa(script: str, *checks: object, runtime: RuntimeConfig | None = None) -> AgentCard:
    """The QA, whose answers to the person must be verdicts unless other checks are given."""
    return member("QA", script, list(checks) or [check_scripts.verdict_only], runtime)


def lead() -> AgentCard:
    return member("Lead", "delegates_review", [])


def contents(team: TeamHarness, name: str) -> list[str]:
    return [m.content for m in team.received_by(name)]


def test_a_refused_answer_is_retried_and_only_the_right_one_delivered(
    retinue_team: TeamHarness,
) -> None:
    team = retinue_team
    address = team.add(qa("wrong_then_right"))
    team.say(address, "review it")
    team.wait_idle()
    assert contents(team, "@Human") == ["VERDICT: pass"]
    first, second = team.model_requests("@QA")  # one run, two requests
    assert COMPLAINT not in str(first)
    assert any(text.startswith(COMPLAINT) for text in retry_texts(second))
    assert team.of(ErrorMessage) == []


def test_a_config_given_a_function_keeps_its_path() -> None:
    config = qa("always_wrong").config
    assert isinstance(config, AgentConfig)
    assert config.checks == ["check_scripts:verdict_only"]
    again = AgentConfig.model_validate(config.model_dump(mode="json"))
    assert again == config and again.checks == ["check_scripts:verdict_only"]


def test_a_model_that_never_passes_fails_the_turn_naming_the_check(
    retinue_team: TeamHarness,
) -> None:
    team = retinue_team
    team.add(qa("always_wrong"))
    boss = team.add(lead())
    team.say(boss, "get a review")
    team.wait_idle()
    assert len(team.model_requests("@QA")) == 2  # the one retry of the default runtime
    (notice,) = [m for m in team.received_by("@Lead") if isinstance(m, FailureNotice)]
    assert notice.member == "@QA" and notice.failure == "turn"
    expected = (
        "OutputCheckError: check check_scripts:verdict_only refused @QA's message to @Human: "
        + COMPLAINT
    )
    assert notice.reason == expected
    told = [m for m in team.received_by("@Human") if isinstance(m, FailureNotice)]
    assert [m.content for m in told] == [f"@QA failed on a request from @Lead: {expected}"]
    # nothing of the refused output went out; the lead passed the failure on itself
    assert [m.sender.name for m in team.received_by("@Human") if m.sender] == ["@QA", "@Lead"]
    assert contents(team, "@Human")[1].startswith("failure: @QA failed while working")


def test_more_retries_give_more_tries(retinue_team: TeamHarness) -> None:
    team = retinue_team
    address = team.add(qa("always_wrong", runtime=RuntimeConfig(output_retries=3)))
    team.say(address, "review it")
    team.wait_idle()
    assert len(team.model_requests("@QA")) == 4
    (told,) = team.received_by("@Human")
    assert isinstance(told, FailureNotice) and "verdict_only" in told.content


def test_each_refused_message_is_named_and_none_of_the_output_goes_out(
    retinue_team: TeamHarness,
) -> None:
    team = retinue_team
    team.add(member("Dev", "silent", []))
    address = team.add(qa("two_messages", check_scripts.verdict_only, check_scripts.no_shouting))
    team.say(address, "review it")
    team.wait_idle()
    _, second = team.model_requests("@QA")
    assert f"Nothing was sent.\nMessage 2: {COMPLAINT}" in retry_texts(second)
    assert contents(team, "@Human") == ["VERDICT: ok"]
    assert contents(team, "@Dev") == ["thanks"]  # once: the first output never went out


def test_an_async_check_may_raise_model_retry(retinue_team: TeamHarness) -> None:
    team = retinue_team
    address = team.add(qa("shouts_then_speaks", check_scripts.no_shouting))
    team.say(address, "review it")
    team.wait_idle()
    assert contents(team, "@Human") == ["VERDICT: fine"]
    _, second = team.model_requests("@QA")
    assert any(text.startswith("No shouting.") for text in retry_texts(second))


def test_a_check_sees_who_sends_and_what_the_turn_answers(retinue_team: TeamHarness) -> None:
    team = retinue_team
    address = team.add(qa("wrong_then_right", check_scripts.knows_its_turn))
    team.say(address, "review it")
    team.wait_idle()
    assert contents(team, "@Human") == ["Looks fine to me."]  # passed at once
    assert len(team.model_requests("@QA")) == 1


@pytest.mark.parametrize(
    ("check", "reason"),
    [
        (
            check_scripts.broken,
            "OutputCheckError: check check_scripts:broken failed: KeyError: 'verdicts'",
        ),
        (
            check_scripts.answers_a_number,
            "OutputCheckError: check check_scripts:answers_a_number returned a int; "
            "a check returns None or a string",
        ),
    ],
)
def test_a_check_that_breaks_fails_the_turn_at_once(
    retinue_team: TeamHarness, check: object, reason: str
) -> None:
    team = retinue_team
    address = team.add(qa("wrong_then_right", check))
    team.say(address, "review it")
    team.wait_idle()
    assert len(team.model_requests("@QA")) == 1  # no retry for a check's own bug
    (told,) = team.received_by("@Human")
    assert isinstance(told, FailureNotice)
    assert told.reason == reason
    (error,) = team.of(ErrorMessage)  # the record keeps it; the agent goes on serving
    assert error.exception_type == "OutputCheckError"
    team.say(address, "again")
    team.wait_idle()
    assert len(team.model_requests("@QA")) == 2


def test_checks_that_cannot_be_recorded_or_imported_are_one_line_each() -> None:
    with pytest.raises(ConfigError, match="cannot be imported by its path"):
        AgentConfig(name="@QA", role="QA", checks=[lambda message: None])
    with pytest.raises(ConfigError, match=r"expected 'package\.module:function'"):
        AgentConfig(name="@QA", role="QA", checks=["no_colon"])
    with pytest.raises(ConfigError, match="a check is a function"):
        AgentConfig(name="@QA", role="QA", checks=[42])


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        ("check_scripts:missing", "'check_scripts' has no attribute 'missing'"),
        ("check_scripts:NOT_A_FUNCTION", "is not callable (it is a int)"),
        ("no_such_module_here:fn", "cannot import module 'no_such_module_here'"),
    ],
)
def test_a_check_that_does_not_import_fails_the_agents_creation(
    retinue_team: TeamHarness, path: str, reason: str
) -> None:
    with pytest.raises(ConfigError, match="checks: ") as caught:
        retinue_team.add(qa("always_wrong", path))
    assert reason in str(caught.value)


def test_a_refused_conclusion_is_not_retried_and_nothing_goes_out(
    retinue_team: TeamHarness,
) -> None:
    """After a run-tier breach the model has one tool-free request: a refusal ends it."""
    team = retinue_team
    card = member(
        "QA",
        "agent_scripts:tool_looper",  # its conclusion answers the person in prose
        [check_scripts.verdict_only],
        run_usage_limits=RunUsageLimits(run_request_limit=3),
        tools=[PingTool()],
    )
    address = team.add(card)
    team.say(address, "dig deep")
    team.wait_idle()
    assert len(team.model_requests("@QA")) == 4  # three in the run, one conclusion
    (told,) = team.received_by("@Human")
    assert told.type == "notification" and told.content.startswith("@QA stopped:")
