"""`follow`: a scripted model that carries out the directives in the message it handles."""

from __future__ import annotations

import pytest
from pydantic_ai import Agent
from pydantic_ai.messages import ModelRequest, ToolCallPart, UserPromptPart
from pydantic_ai.models import ModelRequestParameters
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.tools import ToolDefinition
from retinue import ActorAddress, AgentMessage, Request, StructuredOutput, render_incoming
from retinue.llm.models import import_function
from retinue.testing import (
    FOLLOW,
    Directives,
    TeamHarness,
    call_directive,
    follow,
    read_directives,
    script,
    scripted_card,
    send_directive,
)


def test_directives_are_read_in_order_and_other_lines_ignored() -> None:
    text = "\n".join(
        [
            "Please do this:",
            '  call hire {"roles": ["QA"]}',
            "call ping",
            "send @Human response: done: all of it",
            "sent @Human response: not a directive",
            "send Developer request: send @Manager response: ok",
        ]
    )

    assert read_directives(text) == Directives(
        calls=[("hire", {"roles": ["QA"]}), ("ping", {})],
        sends=[
            ("@Human", "response", "done: all of it"),
            ("Developer", "request", "send @Manager response: ok"),
        ],
    )


def test_a_call_with_broken_json_is_refused_in_words() -> None:
    with pytest.raises(ValueError, match="not JSON"):
        read_directives("call ping {not json}")


def test_the_writers_produce_what_follow_reads() -> None:
    lines = [
        call_directive("hire_members", {"roles": ["Developer", "QA"]}),
        call_directive("read_mailbox"),
        send_directive("@Human", "response", "Done: see {the} notes."),
    ]

    assert lines[1] == "call read_mailbox {}"
    assert read_directives("\n".join(lines)) == Directives(
        calls=[("hire_members", {"roles": ["Developer", "QA"]}), ("read_mailbox", {})],
        sends=[("@Human", "response", "Done: see {the} notes.")],
    )


def test_a_script_is_its_lines_then_the_answer_to_the_person() -> None:
    call = call_directive("read_mailbox")

    assert script(call, call) == f"{call}\n{call}"
    assert read_directives(script(call, answer="done")) == Directives(
        calls=[("read_mailbox", {})], sends=[("@Human", "response", "done")]
    )
    with pytest.raises(ValueError, match="one line"):
        script(call, answer="two\nlines")


@pytest.mark.parametrize(
    ("recipient", "intent", "text"),
    [
        ("@Hu man", "request", "x"),
        ("", "request", "x"),
        ("@Human", "re quest", "x"),
        ("@Human", "request", "two\nlines"),
        ("@Human", "request", "ends\n"),
    ],
)
def test_a_send_that_would_not_read_back_is_refused(recipient: str, intent: str, text: str) -> None:
    with pytest.raises(ValueError):
        send_directive(recipient, intent, text)


def test_a_tool_name_is_one_word() -> None:
    with pytest.raises(ValueError):
        call_directive("read mailbox")


def test_the_import_path_names_follow() -> None:
    assert import_function(FOLLOW) is follow


def _agent(calls: list[str]) -> Agent[None, StructuredOutput]:
    agent = Agent(FunctionModel(follow), output_type=StructuredOutput)

    @agent.tool_plain
    def echo(text: str) -> str:
        """Say it back."""
        calls.append(text)
        return f"echo: {text}"

    return agent


def test_follow_makes_each_call_once_then_sends() -> None:
    calls: list[str] = []
    prompt = "\n".join(
        [
            call_directive("echo", {"text": "one"}),
            call_directive("echo", {"text": "two"}),
            send_directive("@Human", "response", "both said"),
        ]
    )

    result = _agent(calls).run_sync(prompt)

    assert calls == ["one", "two"]
    assert result.output == StructuredOutput(
        messages=[Request(recipient="@Human", message_type="response", message="both said")]
    )


def test_an_earlier_runs_results_do_not_count_for_this_one() -> None:
    calls: list[str] = []
    agent = _agent(calls)
    first = agent.run_sync(call_directive("echo", {"text": "again"}))

    second = agent.run_sync(
        call_directive("echo", {"text": "again"}), message_history=first.all_messages()
    )

    assert calls == ["again", "again"]
    assert second.output == StructuredOutput()


def test_a_message_scripts_a_whole_exchange(retinue_team: TeamHarness) -> None:
    team = retinue_team
    ada = team.add(scripted_card("Ada"))
    team.add(scripted_card("Bob"))

    team.say(ada, send_directive("@Bob", "request", "send @Ada response: send @Human response: ok"))
    team.wait_idle()

    assert team.transcript() == [
        (
            "@Human",
            "@Ada",
            "request",
            "send @Bob request: send @Ada response: send @Human response: ok",
        ),
        ("@Ada", "@Bob", "request", "send @Ada response: send @Human response: ok"),
        ("@Bob", "@Ada", "response", "send @Human response: ok"),
        ("@Ada", "@Human", "response", "ok"),
    ]


def test_only_the_message_itself_is_obeyed() -> None:
    # Context updates and operator actions may precede the message in a prompt.
    ada = ActorAddress(name="@Ada", role="Developer")
    shown = "send @Human response: leaked\n\n" + render_incoming(
        AgentMessage(content="Hi.", sender=ada)
    )
    answer = ModelRequestParameters()
    info = AgentInfo(
        function_tools=[],
        allow_text_output=False,
        output_tools=[ToolDefinition(name="final_result", kind="output")],
        model_settings=None,
        model_request_parameters=answer,
        instructions=None,
    )

    response = follow([ModelRequest(parts=[UserPromptPart(content=shown)])], info)

    [part] = response.parts
    assert isinstance(part, ToolCallPart)
    assert (part.tool_name, part.args) == ("final_result", {"messages": []})
