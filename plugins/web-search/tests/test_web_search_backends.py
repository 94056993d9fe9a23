"""`web_search` against loopback fakes of Brave, Tavily and SearXNG, in their API's shapes."""

from __future__ import annotations

import json
import logging

import pytest
from retinue.testing import TeamHarness, call_directive, script
from retinue_web_search import SearchBackendError, WebSearchError, WebSearchTool
from web_search_fakes import Exchange, FakeServer, researcher

BRAVE_ANSWER = {
    "type": "search",
    "query": {"original": "sea otters"},
    "web": {
        "type": "search",
        "results": [
            {
                "type": "search_result",
                "title": "Sea otter - Wikipedia",
                "url": "https://en.wikipedia.org/wiki/Sea_otter",
                "description": "The <strong>sea otter</strong> is a marine mammal.",
                "language": "en",
            },
            {"title": "no url, skipped"},
            {
                "title": "Otters keep warm",
                "url": "https://example.org/otters",
                "description": "Dense fur.",
            },
        ],
    },
}
TAVILY_ANSWER = {
    "query": "sea otters",
    "answer": None,
    "images": [],
    "results": [
        {
            "title": "Sea otter facts",
            "url": "https://example.org/facts",
            "content": "Sea otters hold hands while sleeping.",
            "score": 0.93,
            "raw_content": None,
        }
    ],
    "response_time": 1.2,
}
SEARXNG_ANSWER = {
    "query": "sea otters",
    "number_of_results": 3,
    "results": [
        {
            "url": f"https://example.org/{n}",
            "title": f"Result {n}",
            "content": f"Snippet {n}",
            "engine": "duckduckgo",
            "engines": ["duckduckgo"],
            "score": 1.0,
        }
        for n in range(1, 4)
    ],
    "answers": [],
    "suggestions": [],
}


def test_brave(servers: list[FakeServer], monkeypatch: pytest.MonkeyPatch) -> None:
    brave = FakeServer.start(servers, {"/res/v1/web/search": lambda e: e.json(BRAVE_ANSWER)})
    monkeypatch.setenv("BRAVE_API_KEY", "brave-key")
    card = WebSearchTool(brave_url=f"{brave.url}/res/v1/web/search")

    answer = card.web_search("  sea   otters ", 2)

    assert answer == (
        "web_search results for sea otters (untrusted):\n<message>\n"
        "1. Sea otter - Wikipedia\n   https://en.wikipedia.org/wiki/Sea_otter\n"
        "   The sea otter is a marine mammal.\n"
        "2. Otters keep warm\n   https://example.org/otters\n   Dense fur.\n</message>"
    )
    (seen,) = brave.seen
    assert (seen.method, seen.query) == ("GET", {"q": ["sea otters"], "count": ["2"]})
    assert seen.headers["x-subscription-token"] == "brave-key"
    assert seen.headers["accept"] == "application/json"


def test_tavily(servers: list[FakeServer], monkeypatch: pytest.MonkeyPatch) -> None:
    tavily = FakeServer.start(servers, {"/search": lambda e: e.json(TAVILY_ANSWER)})
    monkeypatch.setenv("TAVILY_API_KEY", "tvly-key")
    card = WebSearchTool(tavily_url=f"{tavily.url}/search")

    answer = card.web_search("sea otters", 3)

    assert "1. Sea otter facts\n   https://example.org/facts\n   Sea otters hold hands" in answer
    (seen,) = tavily.seen
    assert seen.method == "POST"
    assert json.loads(seen.body) == {"query": "sea otters", "max_results": 3}
    assert seen.headers["authorization"] == "Bearer tvly-key"


def test_searxng(servers: list[FakeServer], monkeypatch: pytest.MonkeyPatch) -> None:
    searxng = FakeServer.start(servers, {"/search": lambda e: e.json(SEARXNG_ANSWER)})
    monkeypatch.setenv("SEARXNG_URL", f"{searxng.url}/")  # a loopback instance: the operator's

    answer = WebSearchTool().web_search("sea otters", 2)

    assert "2. Result 2\n   https://example.org/2\n   Snippet 2\n</message>" in answer
    assert "Result 3" not in answer
    (seen,) = searxng.seen
    assert (seen.method, seen.query) == ("GET", {"q": ["sea otters"], "format": ["json"]})


def test_the_first_backend_set_is_used_unless_one_is_named(
    servers: list[FakeServer], monkeypatch: pytest.MonkeyPatch
) -> None:
    brave = FakeServer.start(servers, {"/res/v1/web/search": lambda e: e.json(BRAVE_ANSWER)})
    searxng = FakeServer.start(servers, {"/search": lambda e: e.json(SEARXNG_ANSWER)})
    monkeypatch.setenv("BRAVE_API_KEY", "brave-key")
    monkeypatch.setenv("SEARXNG_URL", searxng.url)
    endpoint = f"{brave.url}/res/v1/web/search"

    WebSearchTool(brave_url=endpoint).web_search("otters")
    WebSearchTool(brave_url=endpoint, search_backend="searxng").web_search("otters")

    assert len(brave.seen) == 1 and len(searxng.seen) == 1


def test_a_backends_failure_is_the_operators(
    servers: list[FakeServer], monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(exchange: Exchange) -> None:
        exchange.reply(401, '{"error": "bad key"}', "application/json")

    brave = FakeServer.start(
        servers, {"/bad-key": refuse, "/html": lambda e: e.reply(200, "<p>hi</p>")}
    )
    monkeypatch.setenv("BRAVE_API_KEY", "wrong")

    with pytest.raises(SearchBackendError, match=r"^Brave answered 401 Unauthorized \(is its key"):
        WebSearchTool(brave_url=f"{brave.url}/bad-key").web_search("otters")
    with pytest.raises(SearchBackendError, match=r"^Brave answered something other than JSON$"):
        WebSearchTool(brave_url=f"{brave.url}/html").web_search("otters")


@pytest.mark.parametrize(
    ("query", "n", "said"),
    [
        ("   ", 5, "the query is empty: say what to search for"),
        ("x" * 401, 5, "the query has 401 characters; at most 400"),
        ("otters", 0, "n is the number of results, 1 to 10, not 0"),
        ("otters", 11, "n is the number of results, 1 to 10, not 11"),
    ],
)
def test_bad_input_is_one_clear_error(
    monkeypatch: pytest.MonkeyPatch, query: str, n: int, said: str
) -> None:
    monkeypatch.setenv("SEARXNG_URL", "http://127.0.0.1:9")  # never reached: refused first

    with pytest.raises(WebSearchError) as refused:
        WebSearchTool().web_search(query, n)
    assert str(refused.value) == said


def test_a_model_searches_then_corrects_its_n(
    retinue_team: TeamHarness, servers: list[FakeServer], monkeypatch: pytest.MonkeyPatch
) -> None:
    searxng = FakeServer.start(servers, {"/search": lambda e: e.json(SEARXNG_ANSWER)})
    monkeypatch.setenv("SEARXNG_URL", searxng.url)
    team = retinue_team
    agent = team.add(researcher())

    team.say(
        agent,
        script(
            call_directive("web_search", {"query": "sea otters", "n": 50}),
            call_directive("web_search", {"query": "sea otters", "n": 1}),
            answer="found",
        ),
    )
    team.wait_idle(20)

    assert team.tool_results("@Researcher") == [
        "n is the number of results, 1 to 10, not 50",  # a retry the model reads
        "web_search results for sea otters (untrusted):\n<message>\n"
        "1. Result 1\n   https://example.org/1\n   Snippet 1\n</message>",
    ]
    assert [m.content for m in team.received_by("@Human")] == ["found"]


def test_a_backend_failure_is_answered_in_words_and_logged(
    retinue_team: TeamHarness,
    servers: list[FakeServer],
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    searxng = FakeServer.start(servers, {})  # answers 404 to /search
    monkeypatch.setenv("SEARXNG_URL", searxng.url)
    team = retinue_team
    agent = team.add(researcher())

    with caplog.at_level(logging.WARNING):
        team.say(agent, script(call_directive("web_search", {"query": "otters"}), answer="no luck"))
        team.wait_idle(20)

    assert team.tool_results("@Researcher") == [
        "Error: web_search failed (SearchBackendError: SearXNG answered 404 Not Found)"
    ]
    assert "web_search failed" in caplog.text
