"""A team of 200 members and 10,000 messages stays responsive: the page loads a bounded
state, draws a screenful of rows, pages back on demand, and follows new records as deltas."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from big_record import add_messages, write_team
from retinue import ActorAddress
from retinue.store import Store, open_store
from retinue_web import WebView
from web_helpers import request, wait_until

MEMBERS, MESSAGES = 200, 10_000


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Store, str]]:
    where: Path = tmp_path_factory.mktemp("big") / "big.sqlite"
    store = open_store(where)
    team_id = write_team(store, MEMBERS, MESSAGES)
    yield store, team_id
    store.close()


def test_the_first_load_is_bounded_however_long_the_record(big: tuple[Store, str]) -> None:
    store, team_id = big
    with WebView(store=store) as view:
        status, shot = request(view.port, "GET", f"/api/teams/{team_id}/snapshot")
        _, older = request(
            view.port, "GET", f"/api/teams/{team_id}/flow?before={shot['flow'][0]['pos']}"
        )

    assert status == 200 and len(shot["members"]) == MEMBERS + 1
    assert len(shot["flow"]) == 200 and shot["flow_more"] is True
    assert shot["flow"][-1]["text"].startswith(f"message {MESSAGES - 1}:")
    assert len(older["flow"]) == 200 and older["flow"][-1]["pos"] < shot["flow"][0]["pos"]
    assert len(json.dumps(shot)) < 250_000  # the roster and a page of lines, not the history
    assert shot["budget"]["usage"]["requests"] == MESSAGES


def test_the_page_draws_a_screenful_pages_back_and_follows(
    big: tuple[Store, str], page: Any
) -> None:
    store, team_id = big
    with WebView(store=store, poll=0.1) as view:
        page.goto(f"{view.url}#team={team_id}")
        page.locator(".row", has_text=f"message {MESSAGES - 1}:").wait_for()
        rows = page.locator("#flow-rows .row").count()
        members = page.locator("#roster tbody tr").count()

        page.evaluate("() => { document.getElementById('flow').scrollTop = 0; }")
        wait_until(lambda: page.evaluate("() => state.flow.length") >= 400, what="an older page")

        team = [
            ActorAddress(name=f"@Agent{n}", role=f"Role{n % 7}", team_id=team_id)
            for n in range(MEMBERS)
        ]
        person = ActorAddress(name="@Human", role="Human", team_id=team_id, is_user_proxy=True)
        add_messages(store, team_id, (person, team), MESSAGES, 500)  # another process, say
        wait_until(lambda: page.evaluate("() => state.flow.length") >= 900, what="the new lines")
        page.evaluate(
            "() => { const f = document.getElementById('flow'); f.scrollTop = f.scrollHeight; }"
        )
        page.locator(".row", has_text=f"message {MESSAGES + 499}:").wait_for()
        rows_after = page.locator("#flow-rows .row").count()

    assert members == MEMBERS + 1
    assert rows < 100 and rows_after < 100  # a screenful (and its margin), not 10,000
