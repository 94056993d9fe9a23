"""The page in a real browser (Chromium, headless), over a real team on scripted models."""

from __future__ import annotations

import http.server
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from retinue import EventMessage, RunFinishedEvent, SentMessage
from retinue.testing import TeamHarness
from retinue_web import WebView
from web_helpers import HOLDING, open_live, wait_until

ROOT = Path(__file__).resolve().parents[3]


def flow_texts(page: Any) -> list[str]:
    return list(page.evaluate("() => state.flow.map((item) => item.text)"))


def recorded(team: TeamHarness) -> list[SentMessage]:
    return [m for m in team.recorder.messages if isinstance(m, SentMessage)]


def test_a_teams_messages_appear_live(team: TeamHarness, view: WebView, page: Any) -> None:
    open_live(page, view.url)

    team.say(team.lead, "delegate the weekly report")  # type: ignore[attr-defined]

    page.locator(".row", has_text="done: result of work on: delegate the weekly report").wait_for()
    page.locator("#roster tr[data-member='@Worker']").wait_for()
    assert page.locator(".row.event-hire").count() == 1
    assert "@Lead" in page.locator("#roster").inner_text()


def test_stop_pressed_in_the_page_ends_the_model_request(
    team: TeamHarness, view: WebView, page: Any
) -> None:
    open_live(page, view.login_url())  # signed in: the page acts
    page.fill("#text", "delegate and hold on")
    page.click("#send")
    assert HOLDING.wait(30)
    worker_row = page.locator("#roster tr[data-member='@Worker']")
    worker_row.locator(".state[data-state='model']").wait_for()  # in its model request

    worker_row.get_by_role("button", name="Stop").click()

    report = page.locator("#reports li.report")
    report.wait_for()
    assert "/stop → @Worker" in report.inner_text()
    assert ("Run interrupted." in report.inner_text()) or ("Stopped @Worker" in report.inner_text())
    worker_row.locator(".state[data-state='idle']").wait_for()
    team.wait_idle()
    ends = [m.event for m in team.recorder.messages if isinstance(m, EventMessage)]
    assert any(isinstance(e, RunFinishedEvent) and e.status == "interrupted" for e in ends)


def test_a_slash_command_typed_in_the_page_runs_as_the_persons(
    team: TeamHarness, view: WebView, page: Any
) -> None:
    open_live(page, view.login_url())  # signed in: the page acts
    page.select_option("#to", "@Lead")
    page.click("#text")
    page.keyboard.type("/team_m")
    page.locator("#completions li", has_text="/team_members").wait_for()

    page.keyboard.press("Tab")
    assert page.input_value("#text") == "/team_members "
    page.keyboard.press("Enter")

    team.wait_idle()
    answer = wait_until(
        lambda: [
            m.message
            for m in recorded(team)
            if m.message.sender is not None and m.message.sender.name == "@Lead"
        ],
        what="the command's answer",
    )[0]
    asked = next(m.message for m in recorded(team) if m.message.content.startswith("/team_members"))
    assert asked.sender is not None and asked.sender.is_user_proxy
    assert answer.type == "notification" and "@Lead" in answer.content
    page.locator(".row.to-person", has_text="@Lead").wait_for()


def test_a_page_reloaded_mid_run_shows_every_message_once(
    team: TeamHarness, view: WebView, page: Any
) -> None:
    open_live(page, view.url)
    lead = team.lead  # type: ignore[attr-defined]
    for n in range(6):
        team.say(lead, f"delegate part {n}")
    page.reload()  # while the team works on them
    page.wait_for_selector("#conn.live")
    for n in range(6, 12):
        team.say(lead, f"delegate part {n}")
    team.wait_idle()
    expected = [m.message.id for m in recorded(team)]

    shown = wait_until(
        lambda: (
            (ids := page.evaluate("() => state.flow.filter((i) => i.id).map((i) => i.id)"))
            and len(ids) >= len(expected)
            and ids
        ),
        what="the page to show every message",
    )

    assert shown == expected  # each once, in the record's order
    assert len(expected) == 12 * 4


class _Evil(http.server.BaseHTTPRequestHandler):
    """A page on another site that tries to make the person's browser act on the team."""

    target = ""

    def do_GET(self) -> None:
        field = """name='{"to": "@Lead", "text": "forged form", "x": "' value='"}'"""
        body = f"""<!doctype html><body><form id="f" method="POST" enctype="text/plain"
            action="{self.target}"><input {field}></form>
            <script>
            fetch("{self.target}", {{method: "POST", mode: "no-cors",
              headers: {{"Content-Type": "text/plain"}},
              body: JSON.stringify({{to: "@Lead", text: "forged fetch"}})}})
              .finally(() => document.getElementById("f").submit());
            </script></body>""".encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def evil_site(view: WebView) -> Iterator[int]:
    _Evil.target = f"http://127.0.0.1:{view.port}/api/teams/{view.live_id}/say"
    server = http.server.HTTPServer(("127.0.0.1", 0), _Evil)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


def test_a_forged_cross_site_post_and_a_wrong_host_are_refused(
    team: TeamHarness, view: WebView, page: Any, evil_site: int
) -> None:
    assert view.gate is not None
    page.goto(f"http://evil.test:{evil_site}/")
    wait_until(
        lambda: sum("cross-site" in line for line in view.gate.refused) >= 2,  # type: ignore[union-attr]
        what="both forged posts to reach the view and be refused",
    )
    # The forged form navigates the page to the refusal: let that navigation end first.
    page.wait_for_url(_Evil.target)
    rebound = page.goto(f"http://rebind.test:{view.port}/")
    team.wait_idle()

    assert not recorded(team)  # nothing was said to anyone
    assert rebound is not None and rebound.status == 421
    assert "does not answer for the host 'rebind.test" in page.content()


def test_the_page_as_the_docs_show_it(
    team: TeamHarness, view: WebView, page: Any, tmp_path: Path
) -> None:
    """The screenshot in docs/web.md: a team at work, its board, a turn opened."""
    from retinue_planning import NewTask, team_board

    board = team_board(team.system, team.orchestrator).proxy()
    board.create_tasks(
        [NewTask(title="Draft the weekly report", owner="@Worker"), NewTask(title="Review it")],
        author="@Lead",
    )
    lead = team.lead  # type: ignore[attr-defined]
    team.say(lead, "delegate the weekly report")
    team.wait_idle()
    open_live(page, view.url)
    team.say(lead, "delegate and hold on")
    assert HOLDING.wait(30)
    page.locator("#roster .state[data-state='model']").wait_for()
    page.locator(".row", has_text="delegate the weekly report").first.click()
    page.get_by_role("button", name="Turn of @Lead on it").click()
    page.locator(".run").first.wait_for()
    page.get_by_role("button", name="Planning board").click()
    page.locator("table.panel td", has_text="Draft the weekly report").wait_for()
    page.get_by_role("button", name="Detail").click()
    # docs/web.png is refreshed by hand (RETINUE_WEB_SCREENSHOT=docs/web.png): a test run
    # never writes into the repository.
    target = Path(os.environ.get("RETINUE_WEB_SCREENSHOT") or tmp_path / "web.png")

    shot = page.screenshot(path=str(target), full_page=False)

    assert shot[:8] == b"\x89PNG\r\n\x1a\n" and target.stat().st_size > 10_000


def test_a_recorded_team_is_listed_and_replayed_from_its_start(
    team: TeamHarness, page: Any
) -> None:
    lead = team.lead  # type: ignore[attr-defined]
    team.say(lead, "delegate the first part")
    team.say(lead, "hello again")
    team.wait_idle()
    store = team.system.store
    assert store is not None
    expected = [m.message.id for m in recorded(team)]

    with WebView(store=store) as view:
        page.goto(view.url)
        page.locator(".row", has_text="echo: hello again").wait_for()
        assert page.locator("#composer").is_hidden()  # a record is read, not spoken to
        page.click("#replay")
        # Counted only once the replay has begun: before it, the page still shows the record.
        replayed_count = (
            "() => state.replaying === null ? -1 : state.flow.filter((i) => i.id).length"
        )
        wait_until(
            lambda: page.evaluate(replayed_count) == len(expected),
            what="the replay to reach the end",
        )
        replayed = page.evaluate("() => state.flow.filter((i) => i.id).map((i) => i.id)")
        members = page.locator("#roster tbody tr").count()

    assert replayed == expected and members == 3
