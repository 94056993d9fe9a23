"""`fetch_page`: one page over HTTP(S), bounded in every way a hostile server could abuse.

The URL is checked first (http or https, a host); the address of every hop is checked by
`PinnedTransport`; redirects are bounded; the content type must be text; the body is read
as a stream and cut at `max_bytes`, never read whole; one deadline covers the whole fetch,
and a server that goes quiet for that long is a timeout too.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import httpx
from retinue.kit import shown

from retinue_web_search.addresses import AddressPolicy, PinnedTransport
from retinue_web_search.errors import WebSearchError

MAX_URL_CHARS = 2_000
HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
TEXT_TYPES = HTML_TYPES | frozenset(
    {"text/plain", "text/markdown", "text/csv", "application/json", "text/xml", "application/xml"}
)
USER_AGENT = "retinue-web-search/0.1 (+https://pypi.org/project/retinue-web-search/)"
_ACCEPT = "text/html,application/xhtml+xml,text/plain;q=0.9,*/*;q=0.1"


@dataclass(frozen=True)
class FetchLimits:
    """How far one fetch may go."""

    max_bytes: int
    timeout: float
    max_redirects: int


@dataclass(frozen=True)
class FetchedPage:
    """What a fetch read: the final URL (after redirects), its media type, the body read."""

    url: str
    media_type: str
    charset: str | None
    body: bytes
    cut: bool
    """Whether the body went on past `max_bytes` (and was not read further)."""


def checked_url(url: str) -> httpx.URL:
    """`url` as a URL `web_fetch` may try; `WebSearchError` saying what is wrong otherwise."""
    text = url.strip()
    if not text:
        raise WebSearchError("the url is empty: give a whole address, such as https://example.com/")
    if len(text) > MAX_URL_CHARS:
        raise WebSearchError(f"the url has {len(text)} characters; at most {MAX_URL_CHARS}")
    try:
        parsed = httpx.URL(text)
    except httpx.InvalidURL as exc:
        raise WebSearchError(f"{shown(text)} is not a URL: {exc}") from None
    if parsed.scheme not in ("http", "https"):
        scheme = f"a {parsed.scheme}: URL" if parsed.scheme else "a URL without http(s)://"
        raise WebSearchError(
            f"{shown(text)} is {scheme}; web_fetch reads http:// and https:// URLs only"
        )
    if not parsed.host:
        raise WebSearchError(f"{shown(text)} names no host")
    return parsed


def fetch_page(url: httpx.URL, limits: FetchLimits, policy: AddressPolicy) -> FetchedPage:
    """GET `url` within `limits`, every hop's address allowed by `policy`."""
    deadline = time.monotonic() + limits.timeout
    client = httpx.Client(
        transport=PinnedTransport(policy),
        trust_env=False,  # no proxy from the environment: the address checked is the one reached
        follow_redirects=True,
        max_redirects=limits.max_redirects,
        timeout=httpx.Timeout(limits.timeout),
        headers={"User-Agent": USER_AGENT, "Accept": _ACCEPT},
    )
    try:
        with client, client.stream("GET", url) as response:
            final = str(response.url)
            if response.status_code >= 400:
                raise WebSearchError(
                    f"{final} answered {response.status_code} {response.reason_phrase}"
                )
            media_type, charset = _content_type(response)
            if media_type not in TEXT_TYPES:
                raise WebSearchError(
                    f"{final} is {media_type or 'of no content type'}, not a page: "
                    "web_fetch reads HTML and text"
                )
            body, cut = _read_capped(response, limits.max_bytes, deadline)
    except httpx.TooManyRedirects:
        raise WebSearchError(f"{url} redirects more than {limits.max_redirects} times") from None
    except httpx.TimeoutException:
        raise WebSearchError(f"{url} did not answer within {limits.timeout:g} seconds") from None
    except httpx.HTTPError as exc:
        raise WebSearchError(f"{url} could not be fetched: {exc or type(exc).__name__}") from None
    return FetchedPage(final, media_type, charset, body, cut)


def _content_type(response: httpx.Response) -> tuple[str, str | None]:
    value = response.headers.get("content-type", "")
    media_type = value.partition(";")[0].strip().lower()
    return media_type, response.charset_encoding


def _read_capped(response: httpx.Response, max_bytes: int, deadline: float) -> tuple[bytes, bool]:
    """At most `max_bytes` of the (decoded) body, and whether there was more."""
    chunks: list[bytes] = []
    size = 0
    for chunk in response.iter_bytes():
        if time.monotonic() > deadline:
            raise httpx.ReadTimeout("the whole fetch took too long", request=response.request)
        room = max_bytes - size
        if len(chunk) > room:
            chunks.append(chunk[:room])
            return b"".join(chunks), True
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks), False
