"""Starting a team for the command: one line per problem, never a traceback.

What `retinue run` and `retinue chat` share: the `--model` string, a check that every
role's model can be built before anything starts (a missing API key is one line naming
the variable), the start itself, and the console subscribed with the record so far.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable

from retinue.llm.config import ModelConfig
from retinue.llm.errors import ConfigError
from retinue.llm.models import get_model
from retinue.store import StoreError
from retinue.team.subscriber import EventSubscriber
from retinue.teamfile import RunningTeam, TeamFile

#: The exit status of a command whose input is wrong (arguments, team file, model, key).
BAD_INPUT = 2


class LaunchError(Exception):
    """The team cannot start; each line of `lines` is one problem, for the person."""

    def __init__(self, lines: Iterable[str]) -> None:
        self.lines = list(lines)
        super().__init__("; ".join(self.lines))


def parse_model(text: str | None, option: str = "--model") -> ModelConfig | None:
    """The `--model` string as a `ModelConfig` (None when not given)."""
    if text is None:
        return None
    try:
        return ModelConfig.from_string(text)
    except (ConfigError, ValueError) as exc:
        raise LaunchError([f"{option}: {exc}"]) from None


def check_models(spec: TeamFile, model: ModelConfig | None) -> None:
    """Build every role's model now, so a missing key or SDK stops the launch in one line.

    Models are shared per configuration, so the agents started later reuse these. Roles
    that fail the same way are named together.
    """
    failing: dict[str, list[str]] = {}
    for card in spec.cards(model):
        config = getattr(card.config, "model_cfg", None)
        if not isinstance(config, ModelConfig):
            continue
        try:
            get_model(config)
        except (ConfigError, ValueError) as exc:
            failing.setdefault(str(exc), []).append(card.role)
    if failing:
        raise LaunchError(
            f"{reason} (role{'s' if len(roles) > 1 else ''} {', '.join(roles)})"
            for reason, roles in failing.items()
        )


def start(
    spec: TeamFile,
    model: ModelConfig | None,
    watchers: Iterable[EventSubscriber],
    store: str | None = None,
) -> RunningTeam:
    """Start `spec` (on `model` if given, recorded into `store` if given) with `watchers`
    subscribed to its whole record."""
    check_models(spec, model)
    try:
        running = spec.start(model=model, store=store)
    except StoreError as exc:
        raise LaunchError([f"the session cannot be recorded: {exc}"]) from None
    except (ConfigError, ValueError, RuntimeError) as exc:
        raise LaunchError([f"the team could not start: {exc}"]) from None
    for watcher in watchers:
        running.team.subscribe(watcher, replay=True)
    return running


def report(error: LaunchError, command: str) -> int:
    """Print the problems, one line each, and return the exit status for bad input."""
    for line in error.lines:
        print(f"retinue {command}: {line}", file=sys.stderr)
    return BAD_INPUT
