"""`check_plugin_card`: what discovery, a team file and an agent see of a plugin's card.

Every plugin with a card asserts the same things of it: its name and whether every agent
gets it, the channels it serves, that its hooks module holds only hook functions and offers
it, and that it is plain data a team file and a resume can carry. One call checks them all,
with the plugin's own expectations, and names each one that does not hold.
`loads_model_stack` tells whether importing a module pulls in pydantic-ai, which a hooks
module should leave to the first agent (`retinue plugins` imports every one).
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Collection
from types import ModuleType

from retinue.agent.config import AgentConfig
from retinue.testing.provided import provided_by
from retinue.tools.card import ToolCard
from retinue.tools.channels import Channel

_IMPORTS_PYDANTIC_AI = (
    "import importlib, sys; importlib.import_module(sys.argv[1]); "
    "print('pydantic_ai' in sys.modules)"
)


def check_plugin_card(
    hooks: ModuleType,
    card: ToolCard,
    *,
    name: str,
    channels: Collection[Channel],
    default: bool = False,
    hook_names: Collection[str] = ("retinue_tool_cards",),
) -> None:
    """Assert that `hooks`, a plugin's hooks module, offers `card`'s class as expected.

    `card` is an instance with settings of the test's (not the defaults, so that the round
    trips carry them). Checked: the class is called `name`, is a default card exactly when
    `default` says so and serves exactly `channels`; the functions the module defines are
    exactly `hook_names`, and its `retinue_tool_cards` offers this card alone; `card` comes
    back equal from its dump, from its JSON and inside an agent's config. Raises one
    `AssertionError` listing every expectation that does not hold.
    """
    kind = type(card)
    provided = provided_by(hooks)
    config = AgentConfig(name="@Checked", role="Checked", tools=[card])
    expectations: list[tuple[str, object, object]] = [
        ("name", kind.name, name),
        ("default", kind.default, default),
        ("channels", set(kind.channels()), set(channels)),
        ("functions of the hooks module", provided.hooks, sorted(hook_names)),
        ("retinue_tool_cards()", list(hooks.retinue_tool_cards()), [kind]),
        ("cards discovered", provided.cards, {name: kind}),
        ("default cards discovered", provided.defaults, [kind] if default else []),
        ("card from its dump", kind.model_validate(card.model_dump()), card),
        ("card from its JSON", kind.model_validate_json(card.model_dump_json()), card),
        ("config from its dump", AgentConfig.model_validate(config.model_dump()), config),
        ("config from its JSON", AgentConfig.model_validate_json(config.model_dump_json()), config),
    ]
    wrong = [f"{what} is {got!r}, not {want!r}" for what, got, want in expectations if got != want]
    if wrong:
        raise AssertionError(f"{kind.__name__}: " + "; ".join(wrong))


def loads_model_stack(module: str) -> bool:
    """Whether importing `module` (a dotted name) in a fresh interpreter imports pydantic-ai."""
    result = subprocess.run(
        [sys.executable, "-c", _IMPORTS_PYDANTIC_AI, module],
        capture_output=True,
        text=True,
        check=True,
    )
    return result.stdout.strip() == "True"
