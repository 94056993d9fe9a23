"""The calls waiting for the person in a real browser (Chromium, headless): a card per call,
answered with a click, gone from every open page once answered."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from retinue.testing import TeamHarness
from retinue_web import WebView
from web_helpers import open_live, wait_until


def card(page: Any, call: str) -> Any:
    return page.locator(f".approval[data-member='@Writer'][data-call='{call}']")


def test_a_write_is_approved_and_another_denied_with_a_reason_from_the_page(
    writer_team: TeamHarness, writer_view: WebView, page: Any, browser: Any, tmp_path: Path
) -> None:
    writer = writer_team.writer  # type: ignore[attr-defined]
    open_live(page, writer_view.login_url())  # signed in: the page acts
    other = browser.new_context().new_page()  # a second page, only watching
    other.goto(writer_view.url)
    other.wait_for_selector("#conn.live")

    writer_team.say(writer, "write a.txt: <b>first</b>")
    writer_team.say(writer, "write b.txt: second")  # held: its turn comes after the first
    first = card(page, "1")
    first.wait_for()
    card(other, "1").wait_for()

    shown = first.locator("pre.args")
    assert shown.inner_text() == 'workspace_write({"path": "a.txt", "content": "<b>first</b>"})'
    assert shown.locator("b").count() == 0  # the model's text is text, never markup
    assert "rule 'workspace.write*' · for @Human" in first.inner_text()
    assert not (tmp_path / "a.txt").exists()
    page.locator("#roster tr[data-member='@Writer'] .state[data-state='waiting']").wait_for()

    first.get_by_role("button", name="Approve").click()

    first.wait_for(state="detached")
    card(other, "1").wait_for(state="detached")  # gone from every open page
    wait_until((tmp_path / "a.txt").exists, what="the approved write")
    assert (tmp_path / "a.txt").read_text() == "<b>first</b>"
    second = card(page, "2")
    second.wait_for()
    assert "Approved workspace_write (call 1)" in page.inner_text("#approvals-note")

    second.get_by_role("button", name="Deny").click()  # no reason typed
    second.locator(".approval-note.error").wait_for()
    assert second.locator(".approval-note").inner_text() == (
        "say why you deny call 2: the model reads your reason"
    )
    second.get_by_role("textbox").fill("b.txt stays as it is")
    second.get_by_role("button", name="Deny").click()

    second.wait_for(state="detached")
    writer_team.wait_idle()
    assert not (tmp_path / "b.txt").exists()
    told = [m.content for m in writer_team.received_by("@Human")]
    assert told[-1] == "tool said: The person denied this tool call: b.txt stays as it is"
    other.context.close()


def test_a_question_comes_back_after_a_reload_and_the_kernels_refusal_is_shown(
    writer_team: TeamHarness, writer_view: WebView, page: Any
) -> None:
    writer_team.say(writer_team.writer, "ask")  # type: ignore[attr-defined]
    writer_team.wait_idle()
    page.goto(writer_view.login_url())
    question = card(page, "1")
    question.wait_for()
    page.reload()
    question.wait_for()  # from the record, again
    assert question.locator(".question").inner_text() == "Which colour?"

    question.get_by_role("textbox").fill("green")
    question.get_by_role("button", name="Answer").click()
    question.locator(".approval-note.error").wait_for()
    refusal = question.locator(".approval-note").inner_text()
    question.get_by_role("button", name="blue").click()

    question.wait_for(state="detached")
    writer_team.wait_idle()
    assert refusal == "/answer 1: say one of: red, blue after the id."  # the kernel's own line
    assert writer_team.received_by("@Human")[-1].content == "tool said: blue"


def test_the_approval_card_as_the_docs_show_it(
    writer_team: TeamHarness, writer_view: WebView, page: Any, tmp_path: Path
) -> None:
    """The screenshot in docs/approvals.md: a write waiting for the person's yes."""
    writer = writer_team.writer  # type: ignore[attr-defined]
    writer_team.say(writer, "hello")
    writer_team.say(writer, "write notes/plan.md: # Plan\n\n1. Draft the weekly report\n")
    writer_team.wait_idle()
    page.goto(writer_view.url)
    card(page, "1").wait_for()
    card(page, "1").get_by_role("textbox").fill("not in notes/, please")
    # docs/web-approvals.png is refreshed by hand (RETINUE_WEB_APPROVALS_SCREENSHOT=
    # docs/web-approvals.png): a test run never writes into the repository.
    target = Path(os.environ.get("RETINUE_WEB_APPROVALS_SCREENSHOT") or tmp_path / "shot.png")

    shot = page.screenshot(path=str(target), full_page=False)

    assert shot[:8] == b"\x89PNG\r\n\x1a\n" and target.stat().st_size > 10_000
