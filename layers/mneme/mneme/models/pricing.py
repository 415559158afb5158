"""Model prices and the cost of a model call (issue 16): one table, used for every model call of a run.

Prices are USD per 1,000 tokens, four rates per model: uncached ``input``, ``output``, ``cache_read``
(prompt-cache hits) and ``cache_write`` (tokens written to the prompt cache). A model is found by its
foundation id (an ARN's last segment, without a cross-region profile prefix such as ``us.``), the
longest matching prefix winning; a deployment overrides or extends the table with ``MNEME_MODEL_PRICES``
(JSON ``{"<model id or prefix>": {"input": .., "output": .., "cache_read": .., "cache_write": ..}}``).

The defaults are the on-demand list prices of the Bedrock models mneme names (us-east-1, from the AWS
Bedrock pricing page as of 2026-11; check them against your region and contract). Claude: cache writes
1.25× and reads 0.1× of input; Nova: reads 0.25× of input, writes at the input rate. A model without a
price (the offline model, an unknown id) costs 0 and the run says so in a warning.
"""

from collections.abc import Mapping
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from mneme.models.agent import base_model_id
from mneme.models.run import Usage

Rate = Annotated[float, Field(ge=0, le=10)]
COST_DIGITS = 10  # cost_usd is rounded to 1e-10 USD: sums of calls stay exact at any realistic scale


class ModelPrice(BaseModel, defer_build=True):
    model_config = ConfigDict(frozen=True, extra="forbid")

    input: Rate
    output: Rate
    cache_read: Rate = 0.0
    cache_write: Rate = 0.0


def _claude(input_: float, output: float) -> ModelPrice:
    return ModelPrice(input=input_, output=output, cache_read=input_ * 0.1, cache_write=input_ * 1.25)


def _nova(input_: float, output: float) -> ModelPrice:
    return ModelPrice(input=input_, output=output, cache_read=input_ * 0.25, cache_write=input_)


DEFAULT_PRICES: dict[str, ModelPrice] = {
    "anthropic.claude-3-5-haiku": _claude(0.0008, 0.004),
    "anthropic.claude-3-7-sonnet": _claude(0.003, 0.015),
    "anthropic.claude-sonnet-4": _claude(0.003, 0.015),  # Sonnet 4, 4.5 and 4.6
    "anthropic.claude-haiku-4-5": _claude(0.001, 0.005),
    "anthropic.claude-opus-4-2": _claude(0.015, 0.075),  # Opus 4 (anthropic.claude-opus-4-20250514)
    "anthropic.claude-opus-4-1": _claude(0.015, 0.075),
    "anthropic.claude-opus-4-5": _claude(0.005, 0.025),
    "anthropic.claude-opus-4-6": _claude(0.005, 0.025),
    "amazon.nova-micro": _nova(0.000035, 0.00014),
    "amazon.nova-lite": _nova(0.00006, 0.00024),
    "amazon.nova-pro": _nova(0.0008, 0.0032),
    "amazon.nova-premier": _nova(0.0025, 0.0125),
}


class PriceTable:
    def __init__(self, overrides: Mapping[str, ModelPrice] | None = None) -> None:
        merged = {**DEFAULT_PRICES, **{key.strip().lower(): price for key, price in (overrides or {}).items()}}
        self._prefixes = sorted(merged.items(), key=lambda item: len(item[0]), reverse=True)

    def price_for(self, model_id: str) -> ModelPrice | None:
        """The price of ``model_id``: an exact key first, else the longest prefix of its foundation id."""
        raw, base = model_id.strip().lower(), base_model_id(model_id)
        for key, price in self._prefixes:
            if raw == key:
                return price
        for key, price in self._prefixes:
            if base.startswith(key) or raw.startswith(key):
                return price
        return None

    def priced(self, model_id: str, usage: Usage) -> Usage:
        """``usage`` with ``cost_usd`` set (0 without a price)."""
        price = self.price_for(model_id)
        if price is None:
            return usage.model_copy(update={"cost_usd": 0.0})
        cost = (
            usage.input_tokens * price.input
            + usage.output_tokens * price.output
            + usage.cache_read_tokens * price.cache_read
            + usage.cache_write_tokens * price.cache_write
        ) / 1000
        return usage.model_copy(update={"cost_usd": round(cost, COST_DIGITS)})
