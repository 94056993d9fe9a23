"""The view's HTTP side against a real team on scripted models: what the page reads, the
stream it follows, the actions it may take, and the gate in front of all of it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from retinue import (
    EventMessage,
    ModelConfig,
    RunFinishedEvent,
    SentMessage,
    StructuredOutput,
    TeamUsageLimits,
)
from retinue.store import open_store
from retinue.testing import TeamHarness, scripted_card
from retinue_web import WebView
from retinue_web.app import MAX_BODY
from web_helpers import (
    HOLDING,
    act,
    lead,
    path,
    request,
    request_with_headers,
    sign_in,
    sse,
    wait_until,
    worker,
)


def sent_ids(team: TeamHarness) -> list[str]:
    return [m.message.id for m in team.recorder.messages if isinstance(m, SentMessage)]


def test_the_snapshot_shows_the_flow_the_roster_and_the_usage(
    team: TeamHarness, view: WebView
) -> None:
    team.say(team.lead, "hello")  # type: ignore[attr-defined]
    team.wait_idle()

    status, shot = request(view.port, "GET", path(view, "snapshot"))

    assert status == 200
    said = [(i["from"], i["to"], i["intent"], i["text"]) for i in shot["flow"]]
    assert said == [
        ("@Human", "@Lead", "request", "hello"),
        ("@Lead", "@Human", "response", "echo: hello"),
    ]
    members = {m["name"]: m for m in shot["members"]}
    assert members["@Lead"]["state"] == "idle" and members["@Lead"]["usage"]["runs"] == 1
    assert members["@Human"]["person"] is True
    assert shot["budget"]["usage"]["requests"] >= 1
    assert shot["team"]["live"] is True
    assert any(c["name"] == "stop" or c["name"] for c in shot["commands"]["@Lead"])


def test_a_reconnect_gets_exactly_the_deltas_after_its_last_event_id(
    team: TeamHarness, view: WebView
) -> None:
    _, first = request(view.port, "GET", path(view, "snapshot"))
    team.say(team.lead, "delegate the count")  # type: ignore[attr-defined]
    team.wait_idle()
    final = view.feed(view.live_id or "").fold.position  # type: ignore[union-attr]

    seen: list[int] = []
    for event_id, _, _ in sse(view.port, path(view, f"events?after={first['position']}")):
        if event_id is not None:
            seen.append(int(event_id))
        if seen and seen[-1] >= final:
            break
    middle = seen[len(seen) // 2]
    again: list[int] = []
    stream = sse(view.port, path(view, "events?after=0"), last_event_id=middle)
    for event_id, _, _ in stream:
        if event_id is not None:
            again.append(int(event_id))
        if again and again[-1] >= final:
            break

    assert seen == sorted(set(seen)) and seen[0] > first["position"]
    assert again == [p for p in seen if p > middle]  # the header wins over ?after=0


def test_a_last_event_id_past_the_end_of_the_record_makes_the_page_start_again(
    team: TeamHarness, view: WebView
) -> None:
    final = view.feed(view.live_id or "").fold.position  # type: ignore[union-attr]
    stream = sse(view.port, path(view, "events"), last_event_id=final + 1_000)
    first = next((event_id, name) for event_id, name, _ in stream)
    assert first == (None, "reset")  # the page reloads its snapshot instead of waiting


def test_a_stop_ends_the_model_request_and_reports_what_it_stopped(
    team: TeamHarness, view: WebView
) -> None:
    team.say(team.lead, "delegate and hold on")  # type: ignore[attr-defined]
    assert HOLDING.wait(30)
    wait_until(
        lambda: any(
            m["name"] == "@Worker" and m["state"] == "working"
            for m in request(view.port, "GET", path(view, "snapshot"))[1]["members"]
        ),
        what="the worker to be shown working",
    )

    status, answer = act(view, "stop", {"member": "@Worker"})
    team.wait_idle()

    assert status == 200 and answer["sent_to"] == ["@Worker"]
    (report,) = answer["reports"]
    assert report["text"].startswith(("Run interrupted.", "Stopped @Worker's task"))
    ends = [e.event for e in team.recorder.messages if isinstance(e, EventMessage)]
    assert any(isinstance(e, RunFinishedEvent) and e.status == "interrupted" for e in ends)


def test_the_page_sees_a_model_request_and_alike_agents_still_share_their_agent(
    team: TeamHarness, view: WebView
) -> None:
    first, second = team.start("Worker"), team.start("Worker")
    team.say(first, "add these")
    team.wait_idle()
    team.say(second, "hold on")
    assert HOLDING.wait(30)
    steps = wait_until(
        lambda: request(view.port, "GET", path(view, "snapshot"))[1]["activity"].get(second.name),
        what="the request in flight on the page",
    )
    status, _ = act(view, "stop", {"member": second.name})
    team.wait_idle()

    assert steps == {"kind": "model", "detail": "a model request"}
    assert status == 200
    runners = [team.system.local_actor(a).react_agent for a in (first, second)]
    agents = [runner._agents[StructuredOutput] for runner in runners]
    assert agents[0] is agents[1]  # retinue-web's one capability keeps them sharing


def test_a_stop_of_a_task_goes_to_who_works_on_it(team: TeamHarness, view: WebView) -> None:
    team.say(team.lead, "delegate and hold on")  # type: ignore[attr-defined]
    assert HOLDING.wait(30)
    chain = wait_until(
        lambda: request(view.port, "GET", path(view, "snapshot"))[1]["chains"],
        what="a running task",
    )[0]

    status, answer = act(view, "stop", {"chain": chain["chain"]})
    team.wait_idle()

    assert status == 200 and chain["root"] == "@Lead" and answer["sent_to"] == ["@Worker"]
    assert answer["reports"][0]["text"]
    _, nothing = act(view, "stop", {"chain": "no-such-chain"})
    assert "nothing of that task is running" in nothing["error"]


def test_the_person_says_a_message_or_a_known_command_and_nothing_else(
    team: TeamHarness, view: WebView
) -> None:
    status, sent = act(view, "say", {"to": "@Lead", "text": "hi"})
    team.wait_idle()
    refused, why = act(view, "say", {"to": "@Lead", "text": "/rm -rf"})
    nobody, who = act(view, "say", {"to": "@Ghost", "text": "hi"})

    assert status == 200 and sent["to"] == "@Lead" and sent["id"] in sent_ids(team)
    assert refused == 400 and why["error"].startswith("@Lead has no command /rm; its commands:")
    assert "/stop" in why["error"]
    assert nobody == 400 and "@Ghost" in who["error"]
    assert not any(
        "rm -rf" in m.message.content
        for m in team.recorder.messages
        if isinstance(m, SentMessage) and hasattr(m.message, "content")
    )


def test_a_body_too_large_of_the_wrong_shape_or_not_unicode_is_refused_and_says_nothing(
    team: TeamHarness, view: WebView
) -> None:
    say = path(view, "say")
    huge = json.dumps({"to": "@Lead", "text": "x" * (MAX_BODY + 1)}).encode()
    answers = [
        request(view.port, "POST", say, huge),
        request(view.port, "POST", say, {"to": "@Lead", "text": {"nested": "object"}}),
        request(view.port, "POST", say, b'{"to": "@Lead", "text": "half a pair \\ud800"}'),
        request(view.port, "POST", say, ["a", "list"]),
        request(view.port, "POST", say, b"not json"),
    ]
    team.wait_idle()

    assert [status for status, _ in answers] == [400] * 5
    reasons = [answer["error"] for _, answer in answers]
    assert reasons == [
        f"the body is larger than {MAX_BODY} bytes",
        "'text' must be a string",
        "'text' is not valid Unicode (it holds a lone surrogate)",
        "the body must be a JSON object",
        "the body is not JSON",
    ]
    assert sent_ids(team) == []  # nothing reached the team
    status, sent = request(view.port, "POST", say, {"to": "@Lead", "text": "still listening"})
    assert status == 200 and sent["to"] == "@Lead"


def test_a_team_stopped_under_the_page_refuses_actions_and_still_reads(
    team: TeamHarness, view: WebView
) -> None:
    team.shutdown()
    said = act(view, "say", {"to": "@Lead", "text": "hi"})
    stopped = act(view, "stop", {"member": "@Lead"})
    status, snapshot = request(view.port, "GET", path(view, "snapshot"))

    refusal = "the team has stopped: nothing can be said to it or stopped any more"
    assert said == (409, {"error": refusal}) and stopped == (409, {"error": refusal})
    assert status == 200 and snapshot["team"]["ended"] is True


def test_a_turn_opens_with_its_model_messages_and_tokens(team: TeamHarness, view: WebView) -> None:
    team.say(team.lead, "hello")  # type: ignore[attr-defined]
    team.wait_idle()
    _, shot = request(view.port, "GET", path(view, "snapshot"))
    hello = next(i for i in shot["flow"] if i["text"] == "hello")

    status, turn = request(view.port, "GET", path(view, f"turns/{hello['id']}"))
    missing, _ = request(view.port, "GET", path(view, "turns/nope"))

    assert status == 200 and turn["agent"] == "@Lead"
    (run,) = turn["runs"]
    assert run["status"] == "completed" and run["usage"]["requests"] >= 1
    kinds = [part["kind"] for message in run["messages"] for part in message["parts"]]
    assert "user-prompt" in kinds and "tool-call" in kinds
    assert any("hello" in part.get("text", "") for m in run["messages"] for part in m["parts"])
    assert missing == 404


def recorded_team(where: Path) -> TeamHarness:
    """A lead that delegated a sum to a worker, recorded in `where` and shut down."""
    team = TeamHarness(store=str(where))
    team.register(scripted_card("Worker"), model=worker)
    leader = team.add(scripted_card("Lead"), model=lead)
    team.say(leader, "delegate the sum")
    team.wait_idle()
    team.shutdown()
    return team


def test_recorded_teams_are_listed_and_read_only(tmp_path: Path) -> None:
    where = tmp_path / "team.sqlite"
    recorded_team(where)

    with open_store(where, create=False) as store, WebView(store=store) as view:
        _, listed = request(view.port, "GET", "/api/teams")
        (info,) = listed["teams"]
        _, shot = request(view.port, "GET", f"/api/teams/{info['id']}/snapshot")
        sign_in(view.port, view.login_url())
        refused, why = request(
            view.port, "POST", f"/api/teams/{info['id']}/say", {"to": "@Lead", "text": "hi"}
        )

    assert info["live"] is False and info["requests"] >= 3
    assert shot["team"]["ended"] is True
    texts = [i["text"] for i in shot["flow"] if i["kind"] == "message"]
    assert texts[0] == "delegate the sum" and texts[-1].startswith("done: result of work on")
    assert any(i.get("event") == "hire" for i in shot["flow"])
    assert refused == 409 and "record" in why["error"]


def test_a_team_the_view_does_not_know_is_a_404_on_every_route(view: WebView) -> None:
    reads = ["snapshot", "flow", "events", "turns/m1", "panels/planning"]
    answers = [request(view.port, "GET", f"/api/teams/nobody/{rest}") for rest in reads]

    assert answers == [(404, {"error": "no such team"})] * len(reads)


def test_a_fork_is_listed_with_the_team_and_position_it_began_at(tmp_path: Path) -> None:
    from retinue.resume import fork_team

    where = tmp_path / "team.sqlite"
    team = recorded_team(where)
    with open_store(where, create=False) as store:
        fork = fork_team(store, team.team_id, at=5)
        assert fork.shutdown(10)
        with WebView(store=store) as view:
            _, listed = request(view.port, "GET", "/api/teams")

    origins = {info["id"]: info["forked_from"] for info in listed["teams"]}
    assert origins == {team.team_id: None, fork.team_id: {"team_id": team.team_id, "position": 5}}


def test_a_store_that_cannot_be_read_is_a_503_naming_it(tmp_path: Path) -> None:
    where = tmp_path / "team.sqlite"
    team = TeamHarness(store=str(where))
    team.add(scripted_card("Lead"), model=lead)
    team.shutdown()
    store = open_store(where, create=False)

    with WebView(store=store) as view:
        ok, listed = request(view.port, "GET", "/api/teams")
        store.close()  # the store goes away under the page
        status, why = request(view.port, "GET", "/api/teams")
        unknown, what = request(view.port, "GET", "/api/teams/nobody/snapshot")

    assert ok == 200 and len(listed["teams"]) == 1
    assert status == 503 and why["error"].startswith(f"the record could not be read: {where}")
    assert unknown == 503 and str(where) in what["error"]


# ---------------------------------------------------------------------- the gate
def test_an_unknown_host_is_refused(view: WebView) -> None:
    status, text = request(view.port, "GET", "/", headers={"Host": f"rebind.test:{view.port}"})
    ok, _ = request(view.port, "GET", "/", headers={"Host": f"localhost:{view.port}"})

    assert status == 421 and "rebind.test" in text
    assert ok == 200


@pytest.mark.parametrize(
    ("headers", "reason"),
    [
        ({"Sec-Fetch-Site": "cross-site"}, "cross-site"),
        ({"Sec-Fetch-Site": "same-site"}, "same-site"),
        ({"Origin": "http://evil.test"}, "evil.test"),
        ({"Content-Type": "text/plain"}, "JSON"),
    ],
)
def test_a_forged_post_is_refused_and_says_nothing(
    team: TeamHarness, view: WebView, headers: dict[str, str], reason: str
) -> None:
    body = json.dumps({"to": "@Lead", "text": "forged"}).encode()

    status, text = act(view, "say", body, headers)
    team.wait_idle()

    assert status == 403 and reason in text
    assert not [m for m in team.recorder.messages if isinstance(m, SentMessage)]


def test_away_from_loopback_a_one_time_url_signs_a_browser_in(team: TeamHarness) -> None:
    with WebView(team, token=True) as view:
        login = view.login_url()
        token_path = login[login.index("/?") :]
        before, _ = request(view.port, "GET", "/")
        status, _, headers = request_with_headers(view.port, "GET", token_path)
        again, _ = request(view.port, "GET", token_path)
        cookie = headers["set-cookie"].split(";")[0]
        signed, _ = request(view.port, "GET", "/api/teams", headers={"Cookie": cookie})
        forged, _ = request(view.port, "GET", "/api/teams", headers={"Cookie": "retinue_web=x"})

    assert (before, status, again, signed, forged) == (401, 303, 401, 200, 401)
    assert "HttpOnly" in headers["set-cookie"] and "SameSite=Strict" in headers["set-cookie"]


def test_a_team_that_records_nowhere_is_shown_from_a_copy_of_its_record() -> None:
    team = TeamHarness()  # no store
    team.register(scripted_card("Worker"), model=worker)
    leader = team.add(scripted_card("Lead"), model=lead)
    team.say(leader, "before the view")
    team.wait_idle()
    try:
        with WebView(team) as view:
            team.say(leader, "delegate after it")
            team.wait_idle()
            wait_until(
                lambda: len(request(view.port, "GET", path(view, "snapshot"))[1]["flow"]) >= 6,
                what="the whole conversation",
            )
            _, shot = request(view.port, "GET", path(view, "snapshot"))
    finally:
        team.shutdown()

    texts = [i["text"] for i in shot["flow"]]
    assert texts[0] == "before the view" and texts[-1].startswith("done: result of work on")
    assert {m["name"] for m in shot["members"]} == {"@Human", "@Lead", "@Worker"}


def test_the_budget_and_no_secret_reach_the_page() -> None:
    team = TeamHarness(store=":memory:", budget=TeamUsageLimits(request_limit=50))
    card = scripted_card("Lead")
    card.config.model_cfg = ModelConfig(  # type: ignore[attr-defined]
        provider="openai-chat", model="gpt-x", base_url="http://ada:hunter2@127.0.0.1:9/v1"
    )
    leader = team.add(card, model=lead)
    team.say(leader, "hello")
    team.wait_idle()
    try:
        with WebView(team) as view:
            answers = [
                request(view.port, "GET", "/api/teams")[1],
                request(view.port, "GET", path(view, "snapshot"))[1],
            ]
            hello = next(i for i in answers[1]["flow"] if i["text"] == "hello")
            answers.append(request(view.port, "GET", path(view, f"turns/{hello['id']}"))[1])
            feed = view.feed(view.live_id or "")
            assert feed is not None
            answers.extend(data for _, data in feed.deltas_after(0) or [])  # what streams
    finally:
        team.shutdown()

    budget = answers[1]["budget"]
    assert budget["limits"]["request_limit"] == 50 and budget["usage"]["requests"] == 1
    assert "hunter2" not in json.dumps(answers)
