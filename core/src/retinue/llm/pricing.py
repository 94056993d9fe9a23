"""What a model request cost in USD, from `genai-prices` (the prices pydantic-ai itself uses).

Never a price table of our own: a model `genai-prices` does not know (a test or function
model, a local server, a new name) has no price, and its requests count in tokens only. The
cost is worked out once, when the request is reported, and recorded on its `LlmUsageEvent`,
so a tally folded from the record later gives the same figure whatever the prices are then.
"""

from __future__ import annotations

import logging
from datetime import datetime
from typing import TYPE_CHECKING

from genai_prices import calc_price

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelResponse
    from pydantic_ai.usage import RequestUsage

logger = logging.getLogger(__name__)


def price_usage(
    usage: RequestUsage,
    model_name: str | None,
    *,
    provider_name: str | None = None,
    provider_url: str | None = None,
    timestamp: datetime | None = None,
) -> float | None:
    """The USD price of `usage` on `model_name`, or None when `genai-prices` has none.

    The provider's API address is tried first (the most specific), then its name, then no
    provider at all (`genai-prices` picks the likeliest one for the model's name).
    """
    if not model_name or usage.unmeasured_requests:
        return None  # no name to look up, or a response that did not report its usage
    attempts: list[tuple[str | None, str | None]] = []
    if provider_url:
        attempts.append((None, provider_url))
    attempts.append((provider_name or None, None))
    for provider_id, api_url in attempts:
        try:
            if api_url is not None:
                price = calc_price(
                    usage, model_name, provider_api_url=api_url, genai_request_timestamp=timestamp
                )
            else:
                price = calc_price(
                    usage, model_name, provider_id=provider_id, genai_request_timestamp=timestamp
                )
        except LookupError:
            continue
        # a price that cannot be worked out is unknown, not a crash
        except Exception as exc:  # noqa: BLE001
            logger.warning("genai-prices could not price %s: %s", model_name, exc)
            return None
        return float(price.total_price)
    return None


def price_response(response: ModelResponse) -> float | None:
    """The USD price of one model response, or None when its model has no known price."""
    return price_usage(
        response.usage,
        response.model_name,
        provider_name=response.provider_name,
        provider_url=response.provider_url,
        timestamp=response.timestamp,
    )
