"""The pre-split budget spellings still work, warn at the line that uses them, and fold in."""

from __future__ import annotations

import inspect
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from retinue import AgentConfig, ConfigError, RunUsageLimits, UsageLimits
from retinue.llm import UsageLimits as LlmUsageLimits


@contextmanager
def deprecations() -> Iterator[list[warnings.WarningMessage]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield caught
    assert caught, "expected a DeprecationWarning"
    assert {w.category for w in caught} == {DeprecationWarning}


def here(offset: int = 0) -> int:
    """The caller's line number, plus `offset`."""
    frame = inspect.currentframe()
    assert frame is not None and frame.f_back is not None
    return frame.f_back.f_lineno + offset


def assert_points_here(caught: list[warnings.WarningMessage], line: int) -> None:
    for warning in caught:
        assert (warning.filename, warning.lineno) == (__file__, line), str(warning.message)


def test_the_old_class_ships_warns_and_renames_request_limit() -> None:
    assert UsageLimits is LlmUsageLimits
    assert issubclass(UsageLimits, RunUsageLimits)
    with deprecations() as caught:
        line = here(1)
        old = UsageLimits(request_limit=50, total_tokens_limit=100_000)
    assert_points_here(caught, line)
    assert "RunUsageLimits" in str(caught[0].message)
    assert old.run_request_limit == 50 and old.request_limit == 50
    assert old.total_tokens_limit == 100_000


def test_the_spec_migration_example_works_and_keeps_a_plain_run_tier() -> None:
    # `usage_limits=` is the deprecated keyword: accepted and folded, but not in the signature
    with deprecations() as caught:
        line = here(1)
        config = AgentConfig(usage_limits=UsageLimits(request_limit=50, total_tokens_limit=100_000))  # type: ignore[call-arg]
    assert_points_here(caught, line)
    assert len(caught) == 2  # the old class, and the old keyword
    assert type(config.run_usage_limits) is RunUsageLimits
    assert config.run_usage_limits == RunUsageLimits(
        run_request_limit=50, total_tokens_limit=100_000
    )
    assert AgentConfig.model_validate(config.model_dump()) == config


def test_a_mapping_with_request_limit_is_folded() -> None:
    # `usage_limits=` is the deprecated keyword: accepted and folded, but not in the signature
    with deprecations() as caught:
        line = here(1)
        config = AgentConfig(usage_limits={"request_limit": 5, "tool_calls_limit": 2})  # type: ignore[call-arg]
    assert_points_here(caught, line)
    assert config.run_usage_limits == RunUsageLimits(run_request_limit=5, tool_calls_limit=2)

    # the new keyword takes the old mapping too, and warns about the old key
    with deprecations() as caught:
        line = here(1)
        folded = AgentConfig(run_usage_limits={"request_limit": 9})
    assert_points_here(caught, line)
    assert folded.run_usage_limits.run_request_limit == 9


def test_the_old_class_under_the_new_keyword_is_kept_plain() -> None:
    with deprecations():
        config = AgentConfig(run_usage_limits=UsageLimits(request_limit=3))
    assert type(config.run_usage_limits) is RunUsageLimits
    assert config.run_usage_limits.run_request_limit == 3


def test_reading_the_old_attribute_warns_at_the_reader() -> None:
    config = AgentConfig(run_usage_limits=RunUsageLimits(run_request_limit=7))
    with deprecations() as caught:
        line = here(1)
        limits = config.usage_limits
    assert_points_here(caught, line)
    assert limits is config.run_usage_limits


# `usage_limits=` is the deprecated keyword: accepted, but not in the signature
@pytest.mark.parametrize(
    ("build", "expected"),
    [
        (
            lambda: AgentConfig(usage_limits=RunUsageLimits(), run_usage_limits=RunUsageLimits()),  # type: ignore[call-arg]
            "not both",
        ),
        (
            lambda: AgentConfig(usage_limits={"request_limit": 5, "run_request_limit": 6}),  # type: ignore[call-arg]
            "usage_limits.request_limit: give run_request_limit or",
        ),
        (lambda: UsageLimits(request_limit=0), "UsageLimits: run_request_limit: "),
    ],
)
def test_contradictions_are_one_line_errors(build: Callable[[], Any], expected: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        with pytest.raises(ConfigError) as exc:
            build()
    assert expected in str(exc.value)
    assert "\n" not in str(exc.value)
