"""Which tool calls wait for a person's yes: rules `card.tool` with globs, and the gate.

A rule names a card and a glob over its tools: `workspace.write*`, `workspace.delete`,
`mcp.*`. A card's tool is matched by its name with the card's prefix left off (the
workspace's `workspace_write` is `write`) or by its whole name. Tools a card serves through
a toolset (an MCP server's) are only known when called, so a rule of such a card matches
any of them its glob fits. The gate is a `ToolHooks` that parks a matching call through
pydantic-ai's `ApprovalRequired` unless the call is the approved one coming back.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic_ai import RunContext
from pydantic_ai.exceptions import ApprovalRequired
from pydantic_ai.messages import ToolCallPart
from pydantic_ai.tools import ToolDefinition

from retinue.llm.run_hooks import RunState, ToolHooks
from retinue.tools.card import ToolCard, card_name

_CARD = re.compile(r"[A-Za-z][A-Za-z0-9_-]*")

#: The metadata key under which a parked call carries the rule that parked it.
RULE_KEY = "retinue_rule"


@dataclass(frozen=True, slots=True)
class ApprovalRule:
    """One `card.glob` rule, read from its text."""

    text: str
    card: str
    tools: str

    def fits(self, tool: str) -> bool:
        """Whether the card's tool `tool` (its whole name) falls under this rule."""
        short = tool.removeprefix(f"{self.card}_")
        return fnmatch.fnmatchcase(short, self.tools) or fnmatch.fnmatchcase(tool, self.tools)


def parse_rule(text: str) -> ApprovalRule:
    """The rule `text` says; a `ValueError` naming what is wrong with it otherwise."""
    card, dot, tools = text.strip().partition(".")
    if not dot or not tools:
        raise ValueError(
            f"approval rule {text!r} must be CARD.TOOL (a glob over the card's tools), "
            "e.g. 'workspace.write*' or 'mcp.*'"
        )
    if not _CARD.fullmatch(card):
        raise ValueError(f"approval rule {text!r}: {card!r} is not a card name")
    return ApprovalRule(text.strip(), card, tools)


def check_rules(rules: Iterable[str]) -> list[str]:
    """`rules` as given, each checked (a `ValueError` for the first bad one), once each."""
    return list(dict.fromkeys(parse_rule(rule).text for rule in rules))


class ApprovalPolicy:
    """One agent's rules against its cards: which rule, if any, a tool call falls under."""

    def __init__(self, rules: Sequence[str], cards: Sequence[ToolCard]) -> None:
        self.rules = tuple(parse_rule(rule) for rule in rules)
        owners: dict[str, str] = {}
        served: set[str] = set()
        for card in cards:
            name = card_name(card)
            for tool in card.get_tools():
                owners[_tool_name(tool)] = name
            if card.get_toolsets():
                served.add(name)
        #: Each function tool's card by the tool's name; the cards that serve toolsets.
        self._owners: Mapping[str, str] = owners
        self._served = frozenset(served)

    @property
    def active(self) -> bool:
        return bool(self.rules)

    def rule_for(self, tool: str) -> ApprovalRule | None:
        """The first rule that tool `tool` falls under, or None: it runs without asking."""
        owner = self._owners.get(tool)
        for rule in self.rules:
            if owner is not None and rule.card != owner:
                continue
            if owner is None and rule.card not in self._served:
                continue
            if rule.fits(tool):
                return rule
        return None


class ApprovalGate(ToolHooks):
    """Parks each call its policy names, unless it is the approved call coming back."""

    def __init__(self, policy: ApprovalPolicy) -> None:
        self.policy = policy

    async def tool_starting(
        self, ctx: RunContext[Any], state: RunState, call: ToolCallPart, tool: ToolDefinition
    ) -> None:
        if ctx.tool_call_approved:
            return
        rule = self.policy.rule_for(call.tool_name)
        if rule is not None:
            raise ApprovalRequired({RULE_KEY: rule.text})


def _tool_name(tool: Any) -> str:
    name = getattr(tool, "name", None)  # a pydantic-ai `Tool`
    return name if isinstance(name, str) else str(getattr(tool, "__name__", tool))
