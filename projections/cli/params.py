"""Option types that refuse what the library would choke on: negative counts, integers SQLite
cannot store, NaN and infinite floats. Each names what it expected."""

from __future__ import annotations

import math
from typing import Any

import click

__all__ = [
    "COUNT",
    "FRACTION",
    "POSITIVE",
    "POSITIVE_FLOAT",
    "SESSION_HELP",
    "TENANT_HELP",
    "USER_HELP",
    "FiniteFloat",
]

_INT64 = 2**63 - 1

#: 0, 1, 2, ... up to what a database integer holds.
COUNT = click.IntRange(0, _INT64)
#: 1, 2, ... up to what a database integer holds.
POSITIVE = click.IntRange(1, _INT64)


class FiniteFloat(click.ParamType):  # type: ignore[type-arg]
    """A finite number in a range; NaN and infinities are refused, not silently compared."""

    name = "number"

    def __init__(self, low: float, high: float = math.inf, *, low_open: bool = False) -> None:
        self.low, self.high, self.low_open = low, high, low_open

    def convert(
        self, value: Any, param: click.Parameter | None, ctx: click.Context | None
    ) -> float:
        try:
            number = float(value)
        except (TypeError, ValueError):
            self.fail(f"{value!r} is not a number", param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number", param, ctx)
        below = number <= self.low if self.low_open else number < self.low
        if below or number > self.high:
            bound = "above" if self.low_open else "at least"
            top = "" if math.isinf(self.high) else f" and at most {self.high:g}"
            self.fail(f"{value!r} is out of range: expected {bound} {self.low:g}{top}", param, ctx)
        return number


#: A finite number above 0 (days, seconds).
POSITIVE_FLOAT = FiniteFloat(0, low_open=True)
#: A finite number from 0 to 1 (a confidence).
FRACTION = FiniteFloat(0, 1)

#: The help of the options most commands share, written once.
TENANT_HELP = "The tenant (every command reads or writes one tenant's log)."
SESSION_HELP = "The session id, as given at ingest or append (not the stream name)."
USER_HELP = "The user whose consent and memories these are."
