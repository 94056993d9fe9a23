"""retinue-web's tests: a real team on scripted models, the view served on 127.0.0.1, and a
real browser (Debian's Chromium, driven by Playwright). A browser that cannot start fails
the browser tests, naming what is missing; they never skip (`ensure_chromium.sh` installs
it in the tox environment)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from approval_team import writer_card
from retinue import AgentCard
from retinue.testing import TeamHarness, scripted_card
from retinue_web import WebView
from web_helpers import HOLDING, lead, signed_in, worker

CHROMIUM = os.environ.get("RETINUE_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    # made-up names for the cross-site and wrong-Host tests; both are this machine
    "--host-resolver-rules=MAP evil.test 127.0.0.1, MAP rebind.test 127.0.0.1",
]


@pytest.fixture
def lead_role() -> tuple[AgentCard, Any]:
    """The card and the model of `team`'s lead (a test module may give its own)."""
    return scripted_card("Lead"), lead


@pytest.fixture
def team(lead_role: tuple[AgentCard, Any]) -> Iterator[TeamHarness]:
    """A lead on a scripted model that delegates to a Worker it hires, the team's entry (whom
    an AG-UI run speaks to unless it names someone); recorded in memory."""
    HOLDING.clear()
    harness = TeamHarness(store=":memory:")
    harness.register(scripted_card("Worker"), model=worker)
    card, model = lead_role
    harness.lead = harness.entry = harness.add(card, model=model)  # type: ignore[attr-defined]
    yield harness
    harness.shutdown()


@pytest.fixture
def writer_team(tmp_path: Path) -> Iterator[TeamHarness]:
    """A Writer whose writes (into `tmp_path`) wait for the person's yes (`approval_team`)."""
    harness = TeamHarness(store=":memory:")
    harness.writer = harness.add(writer_card(tmp_path))  # type: ignore[attr-defined]
    yield harness
    harness.shutdown()


@pytest.fixture
def view(team: TeamHarness) -> Iterator[WebView]:
    """The view over `team`, signed in as the person (its actions need the session)."""
    with signed_in(team) as web:
        yield web


@pytest.fixture
def writer_view(writer_team: TeamHarness) -> Iterator[WebView]:
    """The view over `writer_team`, signed in as the person."""
    with signed_in(writer_team) as web:
        yield web


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """Chromium, headless, from the system's packages (Playwright's own download is not used)."""
    if not (os.path.exists(CHROMIUM) or shutil.which(CHROMIUM)):
        pytest.fail(
            f"no Chromium at {CHROMIUM}: install Debian's chromium package (tox -e web does, "
            "as root) or point RETINUE_CHROMIUM at one"
        )
    from playwright.sync_api import sync_playwright

    playwright = sync_playwright().start()
    try:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
    except Exception as exc:
        playwright.stop()
        pytest.fail(f"Chromium at {CHROMIUM} did not start: {exc}")
    yield chromium
    chromium.close()
    playwright.stop()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1400, "height": 860})
    tab = context.new_page()
    tab.set_default_timeout(30_000)
    yield tab
    context.close()
