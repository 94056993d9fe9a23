"""The quick-start team as one trace: who asked whom, each turn's model requests and cost."""

from __future__ import annotations

from opentelemetry.trace import StatusCode
from otel_helpers import Spans, traced_team
from otel_quickstart import REQUEST, start_quickstart
from retinue import AgentMessage
from retinue.testing import TeamHarness
from retinue_otel import current_trace_context


def run_quickstart(team: TeamHarness) -> None:
    manager = start_quickstart(team)
    team.say(manager, REQUEST)
    team.wait_idle()
    assert [to for _, to, *_ in team.transcript()] == [
        "@Manager",
        "@Developer",
        "@Manager",
        "@Human",
    ]


def test_the_quickstart_team_is_one_trace_of_turns_each_the_child_of_the_turn_that_asked(
    team: TeamHarness, spans: Spans
) -> None:
    run_quickstart(team)

    assert len({span.context.trace_id for span in spans.finished()}) == 1  # type: ignore[union-attr]
    (root,) = spans.roots()
    assert spans.tree(root, prefix="agent turn") == [
        "request from @Human",
        [
            [
                "agent turn @Manager",
                [["agent turn @Developer", [["agent turn @Manager", []]]]],
            ]
        ],
    ]


def test_model_request_spans_nest_under_their_turn_with_usage_set(
    team: TeamHarness, spans: Spans
) -> None:
    run_quickstart(team)

    turns = spans.named("agent turn")
    assert len(turns) == 3
    for turn in turns:
        agent = turn.attributes["gen_ai.agent.name"]  # type: ignore[index]
        (run,) = [c for c in spans.children(turn) if c.name.startswith("invoke_agent")]
        assert run.name == f"invoke_agent {agent}"
        (request,) = spans.children(run)
        assert request.name.startswith("chat quickstart:")
        input_tokens = request.attributes["gen_ai.usage.input_tokens"]  # type: ignore[index]
        output_tokens = request.attributes["gen_ai.usage.output_tokens"]  # type: ignore[index]
        assert input_tokens > 0 and output_tokens > 0  # type: ignore[operator]
        # The turn sums its requests; named as pydantic-ai names its run spans' sums.
        attributes = turn.attributes or {}
        assert attributes["gen_ai.aggregated_usage.input_tokens"] == input_tokens
        assert attributes["gen_ai.aggregated_usage.output_tokens"] == output_tokens
        assert attributes["retinue.usage.requests"] == 1
        assert attributes["gen_ai.operation.name"] == "invoke_agent"
        assert attributes["gen_ai.provider.name"] == "function"
        assert attributes["gen_ai.request.model"] == request.attributes["gen_ai.request.model"]  # type: ignore[index]
        assert turn.status.status_code is StatusCode.UNSET


def test_each_turn_names_its_team_chain_message_and_run(team: TeamHarness, spans: Spans) -> None:
    run_quickstart(team)

    sent = {m.recipient.name + " " + m.content: m for m in team.sent() if m.recipient}
    chains = {m.chain_id for m in sent.values()}
    assert len(chains) == 1
    for turn in spans.named("agent turn"):
        attributes = turn.attributes or {}
        assert attributes["retinue.team.id"] == team.team_id
        assert attributes["retinue.chain.id"] in chains
        handled = [m for m in sent.values() if m.id == attributes["retinue.message.id"]]
        assert len(handled) == 1 and handled[0].recipient.name == attributes["gen_ai.agent.name"]  # type: ignore[union-attr]
        assert len(str(attributes["retinue.run.id"])) == 32


def test_the_hire_is_an_event_of_the_turn_that_hired(team: TeamHarness, spans: Spans) -> None:
    run_quickstart(team)

    first = spans.named("agent turn @Manager")[0]
    (hire,) = [event for event in first.events if event.name == "retinue.hire"]
    assert hire.attributes is not None
    assert hire.attributes["retinue.member.name"] == "@Developer"
    assert hire.attributes["retinue.member.role"] == "Developer"


def test_no_content_is_recorded_unless_asked_for(team: TeamHarness, spans: Spans) -> None:
    run_quickstart(team)

    recorded = " ".join(
        str(value) for span in spans.finished() for value in (span.attributes or {}).values()
    )
    assert "sprint" not in recorded
    assert "scope it" not in recorded


def test_content_is_recorded_when_the_plugin_says_so(spans: Spans) -> None:
    team = traced_team(spans, include_content=True)
    try:
        run_quickstart(team)
    finally:
        assert team.shutdown(timeout=10)

    (root,) = spans.roots()
    assert root.attributes is not None and root.attributes["retinue.message.content"] == REQUEST
    chats = " ".join(str(dict(s.attributes or {})) for s in spans.named("chat "))
    assert "scope it" in chats  # the Developer's answer, as the model gave it


def test_a_chain_started_inside_a_span_of_the_caller_joins_the_callers_trace(
    team: TeamHarness, spans: Spans
) -> None:
    manager = start_quickstart(team)
    with spans.provider.get_tracer("the-app").start_as_current_span("handle web request"):
        asked = AgentMessage(content=REQUEST, trace_context=current_trace_context())
    team.system.proxy_tell(team.human).send(manager, asked)
    team.wait_idle()

    (root,) = spans.roots()
    assert root.name == "handle web request"
    (request,) = spans.children(root)
    assert request.name == "request from @Human"
    assert len(spans.named("agent turn")) == 3
    assert len({span.context.trace_id for span in spans.finished()}) == 1  # type: ignore[union-attr]
