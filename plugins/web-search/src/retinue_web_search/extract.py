"""A fetched page as text for a model: an HTML page's main text as markdown (trafilatura,
without navigation, footers and ads), any other text as it is; bounded in characters."""

from __future__ import annotations

from retinue_web_search.fetch import HTML_TYPES, FetchedPage


def page_text(page: FetchedPage) -> str:
    """The page's main text; all its text when trafilatura finds no main part (a short
    page); empty when it has none."""
    if page.media_type not in HTML_TYPES:
        return page.body.decode(page.charset or "utf-8", errors="replace")
    import trafilatura  # slow to import, and only a fetch needs it

    html: str | bytes = (
        page.body.decode(page.charset, errors="replace") if page.charset else page.body
    )
    text = trafilatura.extract(
        html,
        url=page.url,
        output_format="markdown",
        include_comments=False,
        include_tables=True,
        include_links=False,
        include_images=False,
    )
    if not text:
        text = trafilatura.html2txt(html)
    return (text or "").strip()


def bounded(text: str, max_chars: int) -> tuple[str, bool]:
    """`text` cut to `max_chars`, and whether it was."""
    if len(text) <= max_chars:
        return text, False
    return text[:max_chars], True
