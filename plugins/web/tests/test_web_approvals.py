"""The calls waiting for the person, over HTTP: the cards the page shows (from the record),
and the answers it gives (the person's own commands, so the kernel's strict rules apply).

A real team: the Writer of `approval_team`, its writes through the real workspace card
under `workspace.write*`, its model scripted."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from approval_team import writer_card
from retinue import SentMessage
from retinue.resume import ResumedTeam, fork_team, resume_team
from retinue.store import Store, open_store
from retinue.testing import TeamHarness, scripted_card, tool_returns
from retinue_web import WebView
from retinue_web.approvals import ARGS_CHARS
from web_helpers import SESSIONS, act, path, request, sign_in

WRITE = "write out.txt: hello"


def pending(view: WebView) -> list[dict[str, Any]]:
    status, answer = request(view.port, "GET", path(view, "approvals"))
    assert status == 200, answer
    cards: list[dict[str, Any]] = answer["pending"]
    return cards


def answer(view: WebView, verb: str, call: str, text: str = "") -> tuple[int, Any]:
    body = {"member": "@Writer", "call": call, "text": text}
    return act(view, f"approvals/{verb}", body)


def park(team: TeamHarness, text: str = WRITE) -> None:
    team.say(team.writer, text)  # type: ignore[attr-defined]
    team.wait_idle()


def commands_sent(team: TeamHarness) -> list[str]:
    return [
        m.message.content
        for m in team.recorder.messages
        if isinstance(m, SentMessage)
        and m.message.sender is not None
        and m.message.sender.is_user_proxy
        and m.message.content.startswith("/")
    ]


def test_a_parked_write_is_a_card_and_approving_it_writes_the_file(
    writer_team: TeamHarness, writer_view: WebView, tmp_path: Path
) -> None:
    park(writer_team)

    (card,) = pending(writer_view)
    assert not (tmp_path / "out.txt").exists()  # nothing written while it waits
    assert card["agent"] == "@Writer" and card["id"] == "1" and card["kind"] == "approval"
    assert card["tool"] == "workspace_write" and card["rule"] == "workspace.write*"
    assert json.loads(card["args"]) == {"path": "out.txt", "content": "hello"}
    assert card["asked_by"] == "@Human"
    assert (card["reviewer"], card["timeout"], card["on_timeout"]) == (None, None, "deny")
    _, shot = request(writer_view.port, "GET", path(writer_view, "snapshot"))
    assert shot["approvals"] == [card]  # what a page loads with

    status, reply = answer(writer_view, "approve", "1", "fine by me")
    writer_team.wait_idle()

    assert status == 200, reply
    assert reply["text"] == "Approved workspace_write (call 1). The run goes on."
    assert reply["command"] == "/approve 1 fine by me"
    assert (tmp_path / "out.txt").read_text() == "hello"
    assert pending(writer_view) == []
    feed = writer_view.feed(writer_view.live_id or "")
    assert feed is not None
    changes = [json.loads(d).get("approvals") for _, d in feed.deltas_after(0) or []]
    changes = [c for c in changes if c]  # what every open page was streamed
    assert changes == [{"asked": [card], "closed": []}, {"asked": [], "closed": ["@Writer/1"]}]


def test_a_denial_reaches_the_model_with_its_reason_and_a_stale_answer_is_refused(
    writer_team: TeamHarness, writer_view: WebView, tmp_path: Path
) -> None:
    park(writer_team)

    no_reason = answer(writer_view, "deny", "1", "  ")
    denied = answer(writer_view, "deny", "1", "the file is mine")
    writer_team.wait_idle()
    stale = answer(writer_view, "approve", "1")
    never = answer(writer_view, "approve", "7")
    writer_team.wait_idle()

    assert no_reason == (400, {"error": "say why you deny call 1: the model reads your reason"})
    assert (
        denied[0] == 200
        and denied[1]["text"] == "Denied workspace_write (call 1). The run goes on."
    )
    assert not (tmp_path / "out.txt").exists()
    refusal = "The person denied this tool call: the file is mine"
    last_request = writer_team.model_requests("@Writer")[-1]
    assert [part.content for part in tool_returns(last_request)][-1] == refusal
    assert stale[0] == 409 and stale[1]["refused"] is True
    assert stale[1]["error"] == (
        "/approve 1: refused, that call is no longer pending (already denied)."
    )
    assert never[0] == 409
    assert never[1]["error"] == "/approve 7: refused, no call 7 was asked for here; pending: none."
    # the reasonless denial never reached the Writer; the others did, word for word
    assert commands_sent(writer_team) == ["/deny 1 the file is mine", "/approve 1", "/approve 7"]


def test_a_question_is_a_card_with_its_choices_answered_by_one_of_them(
    writer_team: TeamHarness, writer_view: WebView
) -> None:
    park(writer_team, "ask")

    (card,) = pending(writer_view)
    wrong = answer(writer_view, "answer", "1", "green")
    right = answer(writer_view, "answer", "1", "blue")
    writer_team.wait_idle()

    assert card["kind"] == "question" and card["tool"] == "ask_person"
    assert card["question"] == "Which colour?" and card["choices"] == ["red", "blue"]
    assert wrong == (
        409,
        {
            "to": "@Writer",
            "id": wrong[1]["id"],
            "command": "/answer 1 green",
            "error": "/answer 1: say one of: red, blue after the id.",
            "refused": True,
        },
    )
    assert right[0] == 200 and right[1]["text"] == "Answered call 1. The run goes on."
    assert writer_team.received_by("@Human")[-1].content == "tool said: blue"
    assert pending(writer_view) == []


def test_wrong_answers_are_refused_before_the_team_hears_them(
    writer_team: TeamHarness, writer_view: WebView
) -> None:
    writer_team.add(scripted_card("Plain"))  # no call of it can wait: no /approve
    park(writer_team)

    refusals = [
        answer(writer_view, "launch", "1"),
        answer(writer_view, "approve", "1; /stop"),
        answer(writer_view, "approve", ""),
        answer(writer_view, "answer", "1", ""),
        act(writer_view, "approvals/approve", {"member": "@Nobody", "call": "1"}),
        act(writer_view, "approvals/approve", {"member": "@Writer", "call": 1}),
        act(writer_view, "approvals/approve", {"member": "@Plain", "call": "1"}),
    ]
    unsigned = act(
        writer_view,
        "approvals/approve",
        {"member": "@Writer", "call": "1"},
        {"Cookie": "retinue_web=forged"},
    )

    assert refusals[:-1] == [
        (400, {"error": "no answer called 'launch': approve, deny or answer"}),
        (400, {"error": "call must be the id of a waiting call (a number), not '1; /stop'"}),
        (400, {"error": "call must be the id of a waiting call (a number), not ''"}),
        (400, {"error": "type your answer to call 1"}),
        (400, {"error": "no member of this team is called @Nobody"}),
        (400, {"error": "'call' must be a string"}),
    ]
    assert refusals[-1][0] == 400
    assert refusals[-1][1]["error"].startswith("@Plain has no command /approve; its commands: ")
    assert unsigned[0] == 401
    assert commands_sent(writer_team) == []  # nothing reached the Writer
    assert len(pending(writer_view)) == 1


def test_a_call_dropped_by_a_stop_leaves_the_page(
    writer_team: TeamHarness, writer_view: WebView
) -> None:
    park(writer_team)
    assert len(pending(writer_view)) == 1

    status, stopped = act(writer_view, "stop", {"member": "@Writer"})
    writer_team.wait_idle()

    assert status == 200 and "dropped the call(s) waiting" in stopped["reports"][0]["text"]
    assert pending(writer_view) == []
    status, late = answer(writer_view, "approve", "1")
    assert (status, late["error"]) == (
        409,
        "/approve 1: refused, that call is no longer pending (dropped: stopped by /stop).",
    )


def test_a_calls_arguments_reach_the_page_bounded(
    writer_team: TeamHarness, writer_view: WebView
) -> None:
    park(writer_team, "write big.txt: " + "<script>x</script>" * 1_000)

    (card,) = pending(writer_view)

    assert len(card["args"]) < ARGS_CHARS + 40
    assert card["args"].startswith('{"path": "big.txt", "content": "<script>x</script>')
    assert card["args"].endswith(f"… ({18_000 + 34 - ARGS_CHARS} more characters)")


@pytest.mark.parametrize("comeback", [resume_team, fork_team], ids=["resumed", "forked"])
def test_a_resumed_teams_waiting_call_is_a_card_and_is_answered_from_the_page(
    tmp_path: Path, comeback: Callable[[Store, str], ResumedTeam]
) -> None:
    """A fork reads its source's record, but its web view its own stream: the park is
    restated there."""
    where, root = str(tmp_path / "team.sqlite"), tmp_path / "files"
    first = TeamHarness(store=where)
    writer = first.add(writer_card(root))
    first.say(writer, WRITE)
    first.wait_idle()
    team_id = first.team_id
    first.shutdown()
    store = open_store(where, create=False)
    team = comeback(store, team_id)
    try:
        team.wait_idle(30)
        with WebView(team) as view:
            sign_in(view.port, view.login_url())
            (card,) = pending(view)
            status, reply = answer(view, "approve", "1")
            team.wait_idle(30)
            SESSIONS.pop(view.port, None)
    finally:
        team.shutdown()
        store.close()

    assert card["tool"] == "workspace_write" and card["id"] == "1"
    assert status == 200 and reply["text"].startswith("Approved workspace_write (call 1).")
    assert (root / "out.txt").read_text() == "hello"
