"""The two kinds of failure: the model's to correct, and the operator's to fix."""

from __future__ import annotations


class WebSearchError(ValueError):
    """Input or a page the model can do something about: a bad URL, a refused address, a
    page that is not text or does not answer in time. The message says what and why."""


class AddressRefusedError(WebSearchError):
    """A URL whose host is (or resolves to) an address `web_fetch` must not reach."""


class SearchBackendError(RuntimeError):
    """The search backend failed (a refused key, an error status, an answer not its API's):
    nothing the model can fix, so it is logged and told to the model in words."""
