"""`WebSearchTool`: the model searches the web and reads pages, as untrusted content.

* TOOL_CALL — `web_search(query, n)` over the backend set up in the environment (Brave,
  Tavily or SearXNG: see `backends`), offered only when there is one, and `web_fetch(url)`,
  a page's main text as markdown (see `fetch` and `extract`). What they return is a web
  page's words, so it is shown inside the kernel's fence, never as the framework's voice.
  A mistake the model can correct (a bad URL, a refused address, `n` out of range) is a
  retry with the reason; a backend's failure is logged and answered in words.
* `unavailable()` — why `web_search` is missing, for `retinue plugins` and `retinue check`.

No system prompt and no command: the two tool descriptions are all a model needs.
"""

from __future__ import annotations

from collections.abc import Sequence
from ipaddress import ip_network
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from pydantic import Field, field_validator
from retinue import ToolCard
from retinue.kit import shown

from retinue_web_search.addresses import AddressPolicy
from retinue_web_search.backends import (
    BRAVE_URL,
    TAVILY_URL,
    BackendName,
    Endpoints,
    SearchResult,
    configured,
    search,
)
from retinue_web_search.errors import WebSearchError

if TYPE_CHECKING:
    from pydantic_ai import Tool

MIB = 1024 * 1024
MAX_QUERY_CHARS = 400


class WebSearchTool(ToolCard):
    """Web search over Brave, Tavily or SearXNG, and a page's main text, fenced as untrusted."""

    name: ClassVar[str] = "web_search"

    search_backend: BackendName | Literal["auto"] = "auto"
    """Which backend `web_search` uses; `auto`: the first whose variable is set, in the
    order BRAVE_API_KEY, TAVILY_API_KEY, SEARXNG_URL."""
    brave_url: str = BRAVE_URL
    """Brave's endpoint (its public API; a test points it at a fake)."""
    tavily_url: str = TAVILY_URL
    """Tavily's endpoint."""
    max_results: int = Field(default=10, ge=1, le=20)
    """The most results one search may ask for (`n`)."""
    max_bytes: int = Field(default=2 * MIB, ge=1_024, le=100 * MIB)
    """The most of a page `web_fetch` reads; the rest is never downloaded."""
    max_chars: int = Field(default=20_000, ge=100, le=1_000_000)
    """The most characters of a page's text one answer holds."""
    timeout: float = Field(default=20.0, gt=0, le=300)
    """Seconds a fetch or a search may take, and a server may stay silent."""
    max_redirects: int = Field(default=5, ge=0, le=20)
    """Redirects a fetch follows, each to an address checked like the first."""
    allow_networks: list[str] = Field(default_factory=list)
    """Networks `web_fetch` may reach although they are not public (`10.1.0.0/16` for an
    intranet, `127.0.0.0/8` for a test's loopback site). Empty: public addresses only."""

    @field_validator("brave_url", "tavily_url")
    @classmethod
    def _http_url(cls, value: str) -> str:
        if not value.startswith(("http://", "https://")):
            raise ValueError(f"{shown(value)} is not an http:// or https:// URL")
        return value

    @field_validator("allow_networks")
    @classmethod
    def _networks(cls, value: list[str]) -> list[str]:
        for network in value:
            try:
                ip_network(network, strict=False)
            except ValueError:
                raise ValueError(
                    f"{shown(network)} is not a network such as 10.1.0.0/16 or 127.0.0.1"
                ) from None
        return value

    # -- channels --------------------------------------------------------------------------

    def get_tools(self) -> Sequence[Tool[Any]]:
        from retinue_web_search.model_tools import build_tools

        backend, _ = configured(self.search_backend)
        return build_tools(self, search=backend is not None)

    def unavailable(self) -> Sequence[str]:
        backend, why = configured(self.search_backend)
        return [] if backend is not None else [f"web_search is not offered: {why}"]

    # -- the operations behind the tools ---------------------------------------------------

    def web_search(self, query: str, n: int = 5) -> str:
        """The first `n` results of `query`, fenced; `WebSearchError` for bad input."""
        import httpx
        from retinue.kit import fence

        words = " ".join(query.split())
        if not words:
            raise WebSearchError("the query is empty: say what to search for")
        if len(words) > MAX_QUERY_CHARS:
            raise WebSearchError(
                f"the query has {len(words)} characters; at most {MAX_QUERY_CHARS}"
            )
        if not 1 <= n <= self.max_results:
            raise WebSearchError(f"n is the number of results, 1 to {self.max_results}, not {n}")
        backend, secret_or_why = configured(self.search_backend)
        if backend is None:
            raise WebSearchError(f"web search is not available here: {secret_or_why}")
        endpoints = Endpoints(brave=self.brave_url, tavily=self.tavily_url)
        with httpx.Client(timeout=self.timeout, trust_env=False) as client:
            results = search(
                client, backend, secret=secret_or_why, endpoints=endpoints, query=words, n=n
            )
        return fence(_listing(results), header=f"web_search results for {words} (untrusted):")

    def web_fetch(self, url: str) -> str:
        """The main text of the page at `url`, fenced; `WebSearchError` when it cannot be."""
        from retinue.kit import fence

        from retinue_web_search.extract import bounded, page_text
        from retinue_web_search.fetch import FetchLimits, checked_url, fetch_page

        limits = FetchLimits(self.max_bytes, self.timeout, self.max_redirects)
        page = fetch_page(checked_url(url), limits, self.policy())
        text, cut = bounded(page_text(page), self.max_chars)
        notes = [f"cut at {self.max_bytes:,} bytes"] if page.cut else []
        notes += [f"cut at {self.max_chars:,} characters"] if cut else []
        if not text:
            notes.append("no main text found")
        said = f", {', '.join(notes)}" if notes else ""
        return fence(text, header=f"Page {page.url}{said} (untrusted):")

    def policy(self) -> AddressPolicy:
        """The addresses `web_fetch` may reach: public ones, and `allow_networks`."""
        return AddressPolicy(tuple(ip_network(n, strict=False) for n in self.allow_networks))


def _listing(results: list[SearchResult]) -> str:
    if not results:
        return "No results."
    return "\n".join(
        f"{number}. {result.title or result.url}\n   {result.url}"
        + (f"\n   {result.snippet}" if result.snippet else "")
        for number, result in enumerate(results, 1)
    )
