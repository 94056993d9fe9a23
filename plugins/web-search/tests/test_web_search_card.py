"""The card as an agent carries it: what it offers, what the model reads, its settings."""

from __future__ import annotations

import importlib.metadata

import pytest
import retinue_web_search.hooks
from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models.function import AgentInfo
from retinue import AgentCard, AgentConfig, BaseAgent, ConfigError, get_plugin_manager
from retinue.plugins import collect_card_classes
from retinue.testing import (
    TeamHarness,
    call_directive,
    check_plugin_card,
    incoming,
    script,
    send,
)
from retinue.tools import Channel
from retinue_web_search import WebSearchTool
from web_search_fakes import FakeServer, researcher

OFFERED: list[list[str]] = []


def tool_lister(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Plays the model: notes the tools its request offers, and answers."""
    OFFERED.append(sorted(tool.name for tool in info.function_tools))
    return send(info, (incoming(messages).sender, "response", "ok"))


def test_the_card_is_a_plugin_card_named_web_search_and_no_default() -> None:
    check_plugin_card(
        retinue_web_search.hooks,
        WebSearchTool(search_backend="searxng", max_results=3, allow_networks=["10.1.0.0/16"]),
        name="web_search",
        channels={Channel.TOOL_CALL},  # no prompt text, no command
    )


def test_the_installed_distribution_announces_the_plugin() -> None:
    (entry_point,) = importlib.metadata.entry_points(group="retinue", name="web_search")
    assert entry_point.value == "retinue_web_search.hooks"
    assert entry_point.dist is not None and entry_point.dist.name == "retinue-web-search"
    assert collect_card_classes(get_plugin_manager())["web_search"] is WebSearchTool


@pytest.mark.parametrize(
    ("variable", "offered"),
    [(None, ["web_fetch"]), ("SEARXNG_URL", ["web_fetch", "web_search"])],
)
def test_web_search_is_offered_only_with_a_backend(
    retinue_team: TeamHarness,
    monkeypatch: pytest.MonkeyPatch,
    variable: str | None,
    offered: list[str],
) -> None:
    if variable is not None:
        monkeypatch.setenv(variable, "http://127.0.0.1:9")
    OFFERED.clear()
    card = AgentCard(
        description="Looks things up",
        agent_class=BaseAgent,
        config=AgentConfig(name="@Scout", role="Scout", tools=["web_search"]),
    )
    scout = retinue_team.add(card, model=tool_lister)

    retinue_team.say(scout, "What is new?")
    retinue_team.wait_idle(20)

    assert [name for name in OFFERED[0] if name.startswith("web_")] == offered


def test_what_is_unavailable_says_why() -> None:
    assert WebSearchTool().unavailable() == [
        "web_search is not offered: no search backend is set up: "
        "set BRAVE_API_KEY, TAVILY_API_KEY or SEARXNG_URL"
    ]
    assert WebSearchTool(search_backend="tavily").unavailable() == [
        "web_search is not offered: search_backend is 'tavily' but TAVILY_API_KEY is not set"
    ]


def test_a_search_without_a_backend_is_refused() -> None:
    with pytest.raises(ValueError, match=r"^web search is not available here: no search backend"):
        WebSearchTool().web_search("otters")


def test_the_model_reads_a_page_fenced_and_corrects_a_refused_url(
    retinue_team: TeamHarness, servers: list[FakeServer]
) -> None:
    html = "<html><body><main><p>Otters hold hands.</p></main></body></html>"
    site = FakeServer.start(servers, {"/": lambda e: e.reply(200, html)})
    inside = FakeServer.start(servers, {}, host="127.0.0.2")
    team = retinue_team
    agent = team.add(researcher(allow_networks=["127.0.0.1/32"]))

    team.say(
        agent,
        script(
            call_directive("web_fetch", {"url": f"{inside.url}/admin"}),
            call_directive("web_fetch", {"url": f"{site.url}/"}),
            answer="read it",
        ),
    )
    team.wait_idle(20)

    assert team.tool_results("@Researcher") == [
        "127.0.0.2 is a private, loopback or link-local address; "
        "web_fetch reaches public addresses only",
        f"Page {site.url}/ (untrusted):\n<message>\nOtters hold hands.\n</message>",
    ]
    assert inside.seen == []


@pytest.mark.parametrize(
    ("settings", "said"),
    [
        ({"allow_networks": ["intranet"]}, "'intranet' is not a network such as 10.1.0.0/16"),
        ({"brave_url": "ftp://x"}, "'ftp://x' is not an http:// or https:// URL"),
        ({"search_backend": "google"}, "search_backend"),
        ({"max_results": 50}, "max_results"),
    ],
)
def test_a_bad_setting_is_one_line(settings: dict[str, object], said: str) -> None:
    with pytest.raises(ConfigError) as refused:
        WebSearchTool(**settings)  # type: ignore[arg-type]
    assert said in str(refused.value)
    assert len(str(refused.value).splitlines()) == 1
