"""Which tool calls wait for a person's yes: rules `card.tool` with globs, and the gate.

A rule names a card and a glob over its tools: `workspace.write*`, `workspace.delete`,
`mcp.*`. A card's tool is matched by its name with the card's prefix left off (the
workspace's `workspace_write` is `write`) or by its whole name. Tools a card serves through
a toolset (an MCP server's) are only known when called, so a rule of such a card matches
any of them its glob fits. A card named alone (`workspace`, `mcp`) takes the card's tools
that change something: every one not declared read-only for the tool-effect ledger (the
workspace's writes, edits and deletions; an MCP tool without `readOnlyHint`). The gate is a
`ToolHooks` that parks a matching call through
pydantic-ai's `ApprovalRequired` unless the call is the approved one coming back.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from pydantic_ai import RunContext
from pydantic_ai.exceptions import ApprovalRequired
from pydantic_ai.messages import ToolCallPart, ToolReturn
from pydantic_ai.tools import ToolDefinition

from retinue.llm.run_hooks import RunState, ToolHooks
from retinue.llm.tool_effects import ToolEffect, effect_of
from retinue.tools.card import ToolCard, card_name

_CARD = re.compile(r"[A-Za-z][A-Za-z0-9_-]*")

#: The metadata key under which a parked call carries the rule that parked it (dumped).
RULE_KEY = "retinue_rule"
#: The metadata key under which an approved call comes back with the person's note.
NOTE_KEY = "retinue_note"


class ApprovalRule(BaseModel):
    """One rule: the calls it names (`card.glob`), and, beyond the person, who may answer
    and how long the call waits.

    A rule with no options is written as its text alone (`"workspace.write*"`); a table
    adds them: `{rule = "workspace.delete", reviewer = "Reviewer", timeout = 600}`.
    """

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)

    rule: str
    reviewer: str | None = None
    """A member (`@QA`) or a role (hired when none is in the team) asked to answer, besides
    the person: it is sent the call and answers `/approve ID [note]` or `/deny ID REASON`."""
    timeout: float | None = Field(default=None, gt=0)
    """Seconds a call waits for an answer before `on_timeout`; None: it waits."""
    on_timeout: Literal["deny", "remind"] = "deny"
    """What an unanswered call's timeout does: deny it (the model reads why), or remind the
    person once and keep waiting."""

    @field_validator("rule")
    @classmethod
    def _form(cls, text: str) -> str:
        card, dot, tools = text.strip().partition(".")
        if dot and not tools:
            raise ValueError(
                f"approval rule {text!r} must be CARD.TOOL (a glob over the card's tools), "
                "e.g. 'workspace.write*' or 'mcp.*', or CARD alone (its tools that change "
                "something)"
            )
        if not _CARD.fullmatch(card):
            raise ValueError(f"approval rule {text!r}: {card!r} is not a card name")
        return text.strip()

    @property
    def card(self) -> str:
        return self.rule.partition(".")[0]

    @property
    def tools(self) -> str:
        return self.rule.partition(".")[2]

    def fits(self, tool: str, effect: ToolEffect | None = None) -> bool:
        """Whether the card's tool `tool` (its whole name, declared with `effect`) falls
        under this rule; a rule of the card alone takes every tool not declared read-only."""
        if not self.tools:
            return effect != "read_only"
        short = tool.removeprefix(f"{self.card}_")
        return fnmatch.fnmatchcase(short, self.tools) or fnmatch.fnmatchcase(tool, self.tools)


#: A rule as configs hold it: its text alone, or the rule with options.
RuleItem = str | ApprovalRule


def parse_rule(item: RuleItem | Mapping[str, Any]) -> ApprovalRule:
    """The rule `item` says; a `ValueError` naming what is wrong with it otherwise."""
    if isinstance(item, ApprovalRule):
        return item
    try:
        if isinstance(item, str):
            return ApprovalRule(rule=item)
        return ApprovalRule.model_validate(item)
    except ValidationError as exc:
        problem = exc.errors()[0]
        where = ".".join(map(str, problem["loc"]))
        text = problem["msg"].removeprefix("Value error, ")
        raise ValueError(text if where == "rule" else f"approval rule {where}: {text}") from None


def describe_rule(item: RuleItem) -> str:
    """A rule as a person reads it: its text, then its options."""
    rule = parse_rule(item)
    options = [f"reviewer {rule.reviewer}"] if rule.reviewer else []
    if rule.timeout is not None:
        options.append(f"{rule.on_timeout} after {rule.timeout:g} s")
    return f"{rule.rule} ({', '.join(options)})" if options else rule.rule


def check_rules(rules: Iterable[RuleItem | Mapping[str, Any]]) -> list[RuleItem]:
    """`rules` checked (a `ValueError` for the first bad one), the first of each rule text
    kept: a rule without options as its text, one with options as an `ApprovalRule`."""
    if isinstance(rules, str | Mapping) or not isinstance(rules, Iterable):
        raise ValueError("approve must be a list of rules (texts, or tables with a rule)")
    kept: dict[str, RuleItem] = {}
    for item in rules:
        if not isinstance(item, str | Mapping | ApprovalRule):
            raise ValueError(f"approval rule {item!r} must be a text or a table with a rule")
        rule = parse_rule(item)
        options = rule.model_dump(exclude_defaults=True, exclude={"rule"})
        kept.setdefault(rule.rule, rule if options else rule.rule)
    return list(kept.values())


class ApprovalPolicy:
    """One agent's rules against its cards: which rule, if any, a tool call falls under."""

    def __init__(self, rules: Sequence[RuleItem], cards: Sequence[ToolCard]) -> None:
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

    def rule_for(self, tool: str, effect: ToolEffect | None = None) -> ApprovalRule | None:
        """The first rule that tool `tool` (declared with `effect`) falls under, or None: it
        runs without asking."""
        owner = self._owners.get(tool)
        for rule in self.rules:
            if owner is not None and rule.card != owner:
                continue
            if owner is None and rule.card not in self._served:
                continue
            if rule.fits(tool, effect):
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
        rule = self.policy.rule_for(call.tool_name, effect_of(tool))
        if rule is not None:
            raise ApprovalRequired({RULE_KEY: rule.model_dump(exclude_defaults=True)})

    def tool_result(self, ctx: RunContext[Any], call: ToolCallPart, result: Any) -> Any:
        metadata = ctx.tool_call_metadata if ctx.tool_call_approved else None
        note = metadata.get(NOTE_KEY) if isinstance(metadata, dict) else None
        return with_note(result, f"Approved with a note: {note}") if note else result


def with_note(result: Any, note: str) -> Any:
    """`result` as the model reads it with `note` after it, whatever the tool returned."""
    if isinstance(result, str):
        return f"{result}\n\n{note}"
    if isinstance(result, ToolReturn):
        content = result.content
        if content is None or isinstance(content, str):
            joined = f"{content}\n\n{note}" if content else note
            return dataclasses.replace(result, content=joined)
        return dataclasses.replace(result, content=[*content, note])
    return ToolReturn(return_value=result, content=note)


def _tool_name(tool: Any) -> str:
    name = getattr(tool, "name", None)  # a pydantic-ai `Tool`
    return name if isinstance(name, str) else str(getattr(tool, "__name__", tool))
