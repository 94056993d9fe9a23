"""retinue-web-search: web_search over Brave, Tavily or SearXNG, and web_fetch of a page's
main text; both fenced as untrusted content, and fetches kept off private addresses."""

from retinue_web_search.addresses import AddressPolicy, PinnedTransport, is_public
from retinue_web_search.backends import SearchResult
from retinue_web_search.card import WebSearchTool
from retinue_web_search.errors import AddressRefusedError, SearchBackendError, WebSearchError

__all__ = [
    "AddressPolicy",
    "AddressRefusedError",
    "PinnedTransport",
    "SearchBackendError",
    "SearchResult",
    "WebSearchError",
    "WebSearchTool",
    "is_public",
]
