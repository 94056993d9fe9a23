"""A run's output reaches its team's listeners as the model writes it, and only then streams:
real actors, a scripted model with a stream function (pydantic-ai's `FunctionModel`)."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import AsyncIterator
from typing import Any

from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, DeltaToolCalls, FunctionModel
from retinue import RoutingSkippedEvent, RunFinishedEvent, StructuredOutput
from retinue.testing import TeamHarness, incoming, scripted_card, send

Deltas = AsyncIterator[DeltaToolCalls]
ANSWER = "The first words, then the rest of a long answer."


def streamed_args(recipient: str, text: str) -> str:
    return json.dumps(
        {"messages": [{"recipient": recipient, "message_type": "response", "message": text}]}
    )


class Listener:
    """Keeps the text for @Human in each output heard; sets `heard` once `words` are in one."""

    def __init__(self, words: str = "first words") -> None:
        self.words = words
        self.heard = threading.Event()
        self.texts: list[str] = []
        self.runs: set[tuple[str, str]] = set()

    def on_output(self, agent: str, run_id: str, output: Any) -> None:
        assert isinstance(output, StructuredOutput)
        self.runs.add((agent, run_id))
        for request in output.messages:
            if request.recipient == "@Human":
                self.texts.append(request.message)
                if self.words in request.message:
                    self.heard.set()


def whole(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    return send(info, (incoming(messages).sender, "response", ANSWER))


def pieces(text: str, size: int = 7) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def test_a_listened_run_streams_its_output_before_the_model_has_finished(
    retinue_team: TeamHarness,
) -> None:
    team = retinue_team
    listener = Listener()
    loop_saw_first_words = threading.Event()

    async def stream(
        messages: list[ModelMessage], info: AgentInfo
    ) -> AsyncIterator[DeltaToolCalls]:
        args = streamed_args("@Human", ANSWER)
        cut = args.index("then")
        name = info.output_tools[0].name
        yield {0: DeltaToolCall(name=name, json_args="", tool_call_id="c1")}
        for piece in pieces(args[:cut]):
            yield {0: DeltaToolCall(json_args=piece)}
        # the rest is written only once a listener has shown the first words
        if await asyncio.to_thread(listener.heard.wait, 30):
            loop_saw_first_words.set()
        for piece in pieces(args[cut:]):
            yield {0: DeltaToolCall(json_args=piece)}

    team.orchestrator_proxy.listen_to_outputs(listener)
    member = team.add(scripted_card("Writer"), model=FunctionModel(whole, stream_function=stream))
    team.say(member, "write")
    team.wait_idle()

    assert loop_saw_first_words.is_set()
    assert any(ANSWER.startswith(t) and "then" not in t for t in listener.texts if t)
    assert listener.texts[-1] == ANSWER
    (answer,) = team.received_by("@Human")
    assert answer.content == ANSWER  # delivered and recorded once, as without a listener
    (finished,) = team.events(RunFinishedEvent)
    assert listener.runs == {("@Writer", finished.run_id)}


def test_nobody_listening_means_no_streamed_request(retinue_team: TeamHarness) -> None:
    team = retinue_team
    streamed: list[str] = []

    async def stream(
        messages: list[ModelMessage], info: AgentInfo
    ) -> AsyncIterator[DeltaToolCalls]:
        streamed.append("called")
        yield {0: DeltaToolCall(name=info.output_tools[0].name, json_args="{}")}

    member = team.add(scripted_card("Writer"), model=FunctionModel(whole, stream_function=stream))
    team.say(member, "write")
    team.wait_idle()
    assert streamed == []
    assert [m.content for m in team.received_by("@Human")] == [ANSWER]


def test_a_model_that_cannot_stream_answers_whole_while_listened(
    retinue_team: TeamHarness,
) -> None:
    team = retinue_team
    listener = Listener()
    team.orchestrator_proxy.listen_to_outputs(listener)
    member = team.add(scripted_card("Writer"), model=whole)  # a function, no stream function
    team.say(member, "write")
    team.wait_idle()
    assert [m.content for m in team.received_by("@Human")] == [ANSWER]
    assert listener.texts == []


def test_a_half_written_recipient_does_not_use_up_the_runs_correction(
    retinue_team: TeamHarness,
) -> None:
    """The recipient check judges whole outputs only: `@Nob…` while streaming is no verdict,
    so the finished `@Nobody` still gets its one correction and the answer arrives."""
    team = retinue_team
    listener = Listener(words="ready")
    calls: list[int] = []

    async def stream(
        messages: list[ModelMessage], info: AgentInfo
    ) -> AsyncIterator[DeltaToolCalls]:
        calls.append(1)
        recipient = "@Nobody" if len(calls) == 1 else "@Human"
        yield {0: DeltaToolCall(name=info.output_tools[0].name, json_args="", tool_call_id="c")}
        for piece in pieces(streamed_args(recipient, "ready now"), 3):
            yield {0: DeltaToolCall(json_args=piece)}

    team.orchestrator_proxy.listen_to_outputs(listener)
    member = team.add(scripted_card("Writer"), model=FunctionModel(whole, stream_function=stream))
    team.say(member, "write")
    team.wait_idle()
    assert len(calls) == 2  # the second request is the correction
    assert [m.content for m in team.received_by("@Human")] == ["ready now"]
    assert team.events(RoutingSkippedEvent) == []


def test_a_stop_ends_a_run_mid_stream(retinue_team: TeamHarness) -> None:
    team = retinue_team
    listener = Listener()
    never = asyncio.Event()

    async def stream(
        messages: list[ModelMessage], info: AgentInfo
    ) -> AsyncIterator[DeltaToolCalls]:
        args = streamed_args("@Human", ANSWER)
        yield {0: DeltaToolCall(name=info.output_tools[0].name, json_args="", tool_call_id="c")}
        yield {0: DeltaToolCall(json_args=args[: args.index("then")])}
        await asyncio.wait_for(never.wait(), 60)  # held until the stop cancels the request
        yield {0: DeltaToolCall(json_args=args[args.index("then") :])}

    team.orchestrator_proxy.listen_to_outputs(listener)
    member = team.add(scripted_card("Writer"), model=FunctionModel(whole, stream_function=stream))
    team.say(member, "write")
    assert listener.heard.wait(30)
    team.say(member, "/stop")
    team.wait_idle()
    (finished,) = team.events(RunFinishedEvent)
    assert finished.status == "interrupted"
    assert [m.content for m in team.received_by("@Human")] == ["Run interrupted."]
    assert ANSWER not in listener.texts
