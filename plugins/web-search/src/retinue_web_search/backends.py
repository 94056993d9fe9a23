"""The search backends, each spoken in its own public API, and which one is set up here.

* Brave Search: `GET https://api.search.brave.com/res/v1/web/search?q=...&count=n`, the key
  in `X-Subscription-Token`; results in `web.results[]` (`title`, `url`, `description`).
* Tavily: `POST https://api.tavily.com/search` with `{"query", "max_results"}`, the key as
  `Authorization: Bearer`; results in `results[]` (`title`, `url`, `content`).
* SearXNG: `GET <instance>/search?q=...&format=json` (the instance must allow the json
  format); results in `results[]` (`title`, `url`, `content`), of which the first n.

Keys and the SearXNG instance come from the environment (`BRAVE_API_KEY`, `TAVILY_API_KEY`,
`SEARXNG_URL`), read when a search runs: never from a setting, a prompt or the model.
Backends are the operator's, so they are reached wherever they are (a SearXNG on the
intranet included); only `web_fetch` keeps to public addresses. Their answers are a third
party's JSON, read defensively: anything off the shape is skipped, every text is bounded.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

import httpx

from retinue_web_search.errors import SearchBackendError

BackendName = Literal["brave", "tavily", "searxng"]
BACKENDS: tuple[BackendName, ...] = ("brave", "tavily", "searxng")
ENV: Mapping[BackendName, str] = {
    "brave": "BRAVE_API_KEY",
    "tavily": "TAVILY_API_KEY",
    "searxng": "SEARXNG_URL",
}
BRAVE_URL = "https://api.search.brave.com/res/v1/web/search"
TAVILY_URL = "https://api.tavily.com/search"
MAX_TITLE = 300
MAX_SNIPPET = 1_000
_EMPHASIS = re.compile(r"</?(?:strong|b|em)>")
"""Brave marks the words matched in its snippets; the model needs the words, not the marks."""
LABEL: Mapping[BackendName, str] = {"brave": "Brave", "tavily": "Tavily", "searxng": "SearXNG"}


@dataclass(frozen=True)
class SearchResult:
    """One hit: what the page is called, where it is, and the backend's snippet of it."""

    title: str
    url: str
    snippet: str


@dataclass(frozen=True)
class Endpoints:
    """Where the key-holding backends answer (their public APIs; a test's fake otherwise)."""

    brave: str = BRAVE_URL
    tavily: str = TAVILY_URL


def configured(choice: BackendName | Literal["auto"]) -> tuple[BackendName | None, str]:
    """The backend searches go to and its secret, or None and why there is none."""
    names = BACKENDS if choice == "auto" else (choice,)
    for name in names:
        secret = os.environ.get(ENV[name], "").strip()
        if secret:
            return name, secret
    if choice == "auto":
        unset = ", ".join(ENV[name] for name in BACKENDS[:-1]) + f" or {ENV[BACKENDS[-1]]}"
        return None, f"no search backend is set up: set {unset}"
    return None, f"search_backend is {choice!r} but {ENV[choice]} is not set"


def search(
    client: httpx.Client,
    backend: BackendName,
    *,
    secret: str,
    endpoints: Endpoints,
    query: str,
    n: int,
) -> list[SearchResult]:
    """The first `n` results of `query` from `backend`; `SearchBackendError` when it fails."""
    if backend == "brave":
        request = client.build_request(
            "GET",
            endpoints.brave,
            params={"q": query, "count": n},
            headers={"X-Subscription-Token": secret, "Accept": "application/json"},
        )
    elif backend == "tavily":
        request = client.build_request(
            "POST",
            endpoints.tavily,
            json={"query": query, "max_results": n},
            headers={"Authorization": f"Bearer {secret}"},
        )
    else:
        request = client.build_request(
            "GET",
            secret.rstrip("/") + "/search",
            params={"q": query, "format": "json"},
            headers={"Accept": "application/json"},
        )
    data = _answer(LABEL[backend], client, request)
    found = data.get("web", {}) if backend == "brave" else data
    items = found.get("results") if isinstance(found, dict) else None
    snippet_key = "description" if backend == "brave" else "content"
    return _results(items, snippet_key)[:n]


def _answer(label: str, client: httpx.Client, request: httpx.Request) -> dict[str, Any]:
    try:
        response = client.send(request)
    except httpx.TimeoutException:
        raise SearchBackendError(f"{label} did not answer in time") from None
    except httpx.HTTPError as exc:
        raise SearchBackendError(f"{label} could not be reached: {exc}") from None
    if response.status_code >= 400:
        why = " (is its key right?)" if response.status_code in (401, 403) else ""
        raise SearchBackendError(
            f"{label} answered {response.status_code} {response.reason_phrase}{why}"
        )
    try:
        data = response.json()
    except ValueError:
        raise SearchBackendError(f"{label} answered something other than JSON") from None
    if not isinstance(data, dict):
        raise SearchBackendError(f"{label} answered JSON that is not an object")
    return data


def _results(items: object, snippet_key: str) -> list[SearchResult]:
    if not isinstance(items, list):
        return []
    results: list[SearchResult] = []
    for item in items:
        if not isinstance(item, dict):
            continue
        url, title, snippet = item.get("url"), item.get("title"), item.get(snippet_key)
        if not isinstance(url, str) or not url.startswith(("http://", "https://")):
            continue
        results.append(
            SearchResult(
                title=_text(title, MAX_TITLE),
                url=url[:2_000],
                snippet=_text(snippet, MAX_SNIPPET),
            )
        )
    return results


def _text(value: object, limit: int) -> str:
    text = " ".join(_EMPHASIS.sub("", value).split()) if isinstance(value, str) else ""
    return text if len(text) <= limit else text[: limit - 1] + "…"
