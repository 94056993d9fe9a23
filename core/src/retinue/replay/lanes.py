"""The models a replay's agents talk to: one lane per agent, answering from the record.

Each agent's requests are answered by its own lane, in the order it recorded them, so
members running at once replay the same whatever the threads' timing. A request is compared
with the recorded one first (`retinue.replay.compare`); when it differs but a later recorded
turn of the same agent is equal to it (answers that reached a manager in another order), that
turn is served. A difference stops a strict replay (the agent's run fails with
`ReplayStoppedError`, every lane refuses from then on); a lenient one notes it and serves the
recorded answer. A lane also serves the recorded results of the tools its answers call
(`ToolResultSource`), unless tools run live.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Sequence
from typing import Any

from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from retinue.agent.tool_offer import ToolOffer
from retinue.llm.events import data_to_message, message_to_data
from retinue.llm.run_hooks import current_binding
from retinue.llm.served_tools import ServedResult
from retinue.replay.compare import (
    first_difference,
    instructions_form,
    request_lines,
    stable,
)
from retinue.replay.report import Difference, ReplayStoppedError
from retinue.replay.script import Turn
from retinue.replay.tools import offered_of, tools_difference

_NAME = re.compile(r"You are (@\S+?); today is ", re.MULTILINE)


class Tally:
    """What every lane of one replay shares: its mode, its counts, its differences."""

    def __init__(self, *, lenient: bool, serve_tools: bool) -> None:
        self.lenient = lenient
        self.serve_tools = serve_tools
        self.lock = threading.Lock()
        self.replayed = 0
        self.equal = 0
        self.differences: list[Difference] = []
        self.stopped = False

    def note(self, difference: Difference) -> None:
        """Note a difference (under `lock`); a strict replay stops at its first."""
        self.differences.append(difference)
        self.stopped = self.stopped or not self.lenient

    def differ(self, difference: Difference) -> None:
        """`note` it, and end the run of the agent that asked when the replay stops."""
        self.note(difference)
        if self.stopped:
            raise ReplayStoppedError(str(difference))


class Lane:
    """One agent's recorded turns, served in order."""

    def __init__(self, agent: str, turns: Sequence[Turn], tally: Tally) -> None:
        self.agent = agent
        self.turns = list(turns)
        self.tally = tally
        self.served: set[int] = set()
        self.asked = 0
        self.forms = [_forms(turn.instructions, turn.request) for turn in self.turns]
        self.results = {
            part["tool_call_id"]: part
            for turn in self.turns
            for part in turn.request
            if isinstance(part.get("tool_call_id"), str)
        }

    def answer(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        """The recorded answer to this request, once it was compared with the recorded one."""
        tally = self.tally
        with tally.lock:
            if tally.stopped:
                raise ReplayStoppedError("the replay stopped at an earlier difference")
            self.asked += 1
            waiting = [i for i in range(len(self.turns)) if i not in self.served]
            if not waiting:
                tally.differ(Difference(self.agent, self.asked, "extra", _shown(messages, info)))
                raise ReplayStoppedError(f"{self.agent} asked more than the record holds")
            asked = _forms(info.instructions, replayed_request(messages))
            index = next((i for i in waiting if self.forms[i] == asked), waiting[0])
            turn = self.turns[index]
            self.served.add(index)
            tally.replayed += 1
            difference = _difference(turn, self.forms[index], asked)
            if difference is None:
                difference = _tools(turn, info)
            if difference is None:
                tally.equal += 1
            else:
                tally.differ(difference)
        response = data_to_message(stable(turn.response))  # this run's ids, not the record's
        assert isinstance(response, ModelResponse)
        return response

    def served_tool_result(self, call: ToolCallPart) -> ServedResult | None:
        if not self.tally.serve_tools:
            return None
        part = self.results.get(call.tool_call_id)
        if part is None:
            return ServedResult(f"(the record holds no result of this call of {call.tool_name})")
        content = part.get("content")
        text = content if isinstance(content, str) else json.dumps(content)
        if part.get("part_kind") != "tool-return" or part.get("outcome") == "retried":
            return ServedResult(retry=text)
        return ServedResult(content)


class LaneModel(FunctionModel):
    """A pydantic-ai model answering from one agent's lane; it serves tool results too."""

    def __init__(self, lane: Lane) -> None:
        super().__init__(lane.answer, model_name=f"replay:{lane.agent}")
        self.lane = lane

    def served_tool_result(self, call: ToolCallPart) -> ServedResult | None:
        return self.lane.served_tool_result(call)


class StrayModel(FunctionModel):
    """The model of an agent the record has no turn of: each request is a difference."""

    def __init__(self, tally: Tally) -> None:
        super().__init__(self._refuse, model_name="replay:none")
        self.tally = tally
        self.asked: dict[str, int] = {}

    def _refuse(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        found = _NAME.search(info.instructions or "")
        agent = found.group(1) if found else "an agent"
        with self.tally.lock:
            self.asked[agent] = turn = self.asked.get(agent, 0) + 1
            detail = "the record has no turn of this agent\n" + _shown(messages, info)
            self.tally.differ(Difference(agent, turn, "extra", detail))
        raise ReplayStoppedError(f"{agent}: the record has no turn of this agent")


def replayed_request(messages: list[ModelMessage]) -> list[dict[str, Any]]:
    """The parts the agent added since its model's previous answer, in JSON form."""
    start = 0
    for index, message in enumerate(messages):
        if isinstance(message, ModelResponse):
            start = index + 1
    return [
        part
        for message in messages[start:]
        if isinstance(message, ModelRequest)
        for part in message_to_data(message).get("parts", [])
    ]


Forms = tuple[list[str], list[str]]
"""A request as compared: its instructions' lines, and one line per part it added."""


def _forms(instructions: str | None, parts: list[dict[str, Any]]) -> Forms:
    return instructions_form(instructions).splitlines(), request_lines(parts)


def _difference(turn: Turn, recorded: Forms, replayed: Forms) -> Difference | None:
    diff = first_difference(recorded[0], replayed[0])
    if diff is not None:
        return Difference(turn.agent, turn.number, "instructions", diff)
    diff = first_difference(recorded[1], replayed[1])
    if diff is not None:
        return Difference(turn.agent, turn.number, "messages", diff)
    return None


def _tools(turn: Turn, info: AgentInfo) -> Difference | None:
    """The first tool this request offers otherwise than the recorded one (a record without
    definitions: none); then a tool the recorded answer calls that is not offered now."""
    if turn.tools is not None:
        detail = tools_difference(turn.tools, offered_of(info), _gated())
        if detail is not None:
            return Difference(turn.agent, turn.number, "tools", detail)
    offered = {tool.name for tool in (*info.function_tools, *info.output_tools)}
    called = [
        part.get("tool_name")
        for part in turn.response.get("parts", [])
        if part.get("part_kind") == "tool-call"
    ]
    gone = [name for name in called if name not in offered]
    if not gone:
        return None
    detail = f"the recorded answer calls {', '.join(map(str, gone))}; offered now: " + (
        ", ".join(sorted(offered)) or "none"
    )
    return Difference(turn.agent, turn.number, "tools", detail)


def _gated() -> frozenset[str]:
    """The tools the asking agent's cards offer only at times (see `ToolOffer`)."""
    binding = current_binding()
    hooks = binding.hooks if binding is not None else ()
    return frozenset().union(*(hook.gated for hook in hooks if isinstance(hook, ToolOffer)))


def _shown(messages: list[ModelMessage], info: AgentInfo) -> str:
    lines = request_lines(replayed_request(messages))
    return "\n".join(f"+ {line}" for line in lines[:6])
