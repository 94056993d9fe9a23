"""A server's answer is cut at the card's `max_result_chars`, and the model is told so."""

from __future__ import annotations

import json

from mcp_helpers import returns, role, stdio_card, work
from retinue.testing import TeamHarness, call_directive, send_directive
from retinue_mcp import HttpConnection, McpTool

HUGE = 30_000_000


def test_a_30_mb_result_reaches_the_model_cut_with_one_line_saying_so(
    retinue_team: TeamHarness, http_url: str
) -> None:
    # over HTTP: the SDK's stdio client takes about 30 s to read 30 MB, HTTP under a second
    clerk = retinue_team.add(role("Clerk", McpTool(connection=HttpConnection(url=http_url))))
    work(
        retinue_team,
        clerk,
        call_directive("big", {"chars": HUGE}),
        call_directive("add", {"a": 1, "b": 2}),
        answer="read",
    )

    (big, add) = returns(retinue_team, "@Clerk")
    assert big == (
        "big",
        "success",
        "x" * 100_000 + "\n[cut: 30,000,000 chars, showing the first 100,000]",
    )
    assert add == ("add", "success", "3")  # a short result is untouched


def test_structured_content_is_cut_as_the_json_the_model_reads(
    retinue_team: TeamHarness,
) -> None:
    clerk = retinue_team.add(role("Clerk", stdio_card(max_result_chars=50)))
    retinue_team.say(
        clerk,
        "\n".join(
            [call_directive("rows", {"count": 100}), send_directive("@Human", "response", "ok")]
        ),
    )
    retinue_team.wait_idle(120)

    ((tool, outcome, content),) = returns(retinue_team, "@Clerk")
    whole = json.dumps([{"row": n} for n in range(100)], separators=(",", ":"))
    assert (tool, outcome) == ("rows", "success")
    assert content == f"{whole[:50]}\n[cut: {len(whole):,} chars, showing the first 50]"
