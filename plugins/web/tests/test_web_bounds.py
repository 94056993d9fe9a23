"""The view under hostile callers: bodies nested past any use, connections that never finish
their request, actions without the person's session, and a SIGTERM to `retinue web`."""

from __future__ import annotations

import json
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest
from retinue import SentMessage
from retinue.store import open_store
from retinue.testing import TeamHarness, closed_within, half_sent
from retinue_web import WebView
from retinue_web.app import MAX_DEPTH
from web_helpers import SOLO, TIMEOUT, act, path, port_of, request, retinue

HALF_OPEN = 400
SHORT = 1.0  # the request timeout of the view under test, in seconds


@pytest.fixture
def short(team: TeamHarness) -> Iterator[WebView]:
    """A view closing connections whose request is not in within `SHORT` seconds."""
    with WebView(team, request_timeout=SHORT) as web:
        yield web


def test_a_body_nested_20000_deep_is_a_400_with_one_line(team: TeamHarness, view: WebView) -> None:
    deep = b'{"to": "@Lead", "text": ' + b"[" * 20_000 + b"]" * 20_000 + b"}"
    nested = {"to": "@Lead", "text": "hi", "x": json.loads("[" * MAX_DEPTH + "]" * MAX_DEPTH)}
    assert len(deep) < 41_000

    answers = [act(view, w, deep) for w in ("say", "stop")]
    answers.append(act(view, "say", nested))
    team.wait_idle()

    one_line = {"error": f"the body nests deeper than {MAX_DEPTH} levels"}
    assert answers == [(400, one_line)] * 3
    assert not [m for m in team.recorder.messages if isinstance(m, SentMessage)]


def test_an_action_without_the_persons_session_is_a_401_and_reads_stay_open(
    team: TeamHarness,
) -> None:
    with WebView(team) as web:  # on 127.0.0.1, signed in by nobody
        said = act(web, "say", {"to": "@Lead", "text": "hi"})
        stop = act(web, "stop", {"member": "@Lead"})
        forged = act(web, "say", {"to": "@Lead", "text": "hi"}, {"Cookie": "retinue_web=guessed"})
        read, _ = request(web.port, "GET", path(web, "snapshot"))
    team.wait_idle()

    refusal = "open the one-time URL `retinue web` printed (a used one is spent)\n"
    assert [said, stop, forged] == [(401, refusal)] * 3
    assert read == 200
    assert not [m for m in team.recorder.messages if isinstance(m, SentMessage)]


def test_no_token_lets_a_trusted_machine_act_without_a_session(team: TeamHarness) -> None:
    with WebView(team, token=False) as web:
        status, _ = act(web, "say", {"to": "@Lead", "text": "hi"})
        url = web.login_url()
    assert (status, url) == (200, web.url)


def test_400_half_sent_requests_are_closed_within_the_request_timeout(
    short: WebView,
) -> None:
    head = f"GET /api/teams HTTP/1.1\r\nHost: 127.0.0.1:{short.port}\r\n".encode()
    body = (
        f"POST {path(short, 'say')} HTTP/1.1\r\nHost: 127.0.0.1:{short.port}\r\n"
        "Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"
    ).encode()
    # a body cut short, or a head never ended
    with half_sent(short.port, [body, head], HALF_OPEN, timeout=TIMEOUT) as sockets:
        closed, last = closed_within(sockets, SHORT + 10)
        status, _ = request(short.port, "GET", "/api/teams")  # the view still answers

    assert closed == HALF_OPEN, f"{HALF_OPEN - closed} connections still open"
    # closed by their timeout (not at once), none much after it: measured 1.00-1.04 s
    assert SHORT / 2 < last < SHORT + 2 and status == 200


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_sigterm_shuts_the_team_down_and_records_its_stop(
    tmp_path: Path, stop: signal.Signals
) -> None:
    where = tmp_path / "team.sqlite"
    process = retinue(str(SOLO), "--store", str(where))
    try:
        port, _ = port_of(process)
        team_id = request(port, "GET", "/api/teams")[1]["live"]
        process.send_signal(stop)
        _, err = process.communicate(timeout=TIMEOUT)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(TIMEOUT)

    assert process.returncode == 0, err
    assert "retinue web: shutting the team down" in err and "Traceback" not in err
    with open_store(where, create=False) as store:
        last = list(store.read(team_id))[-1]  # the team's end, as a clean shutdown records it
    assert (last.kind, last.sender, json.loads(last.data)["shutdown"]) == (
        "StopMessage",
        "@Orchestrator",
        True,
    )
