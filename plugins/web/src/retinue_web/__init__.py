"""retinue-web: a live web view of a team, and of the teams a store recorded.

    retinue web team.toml                  # start the team, serve its page on 127.0.0.1
    retinue web --store team.sqlite        # the recorded teams, read-only, with replay

From code, `WebView(running_team).start()` returns the page's URL. See docs/web.md.
`WebView` is loaded on first use: discovery imports this package for its hooks only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from retinue_web.view import WebView

__all__ = ["WebView"]


def __getattr__(name: str) -> Any:
    if name == "WebView":
        from retinue_web.view import WebView

        return WebView
    raise AttributeError(f"module 'retinue_web' has no attribute {name!r}")
