"""What the value ledger reads in a text, as ``(kind, value)`` pairs, for the tests of its
patterns."""

from __future__ import annotations

from projections.summaries.values import text_values


def values_read(text: str) -> list[tuple[str, str]]:
    """The ``(kind, value)`` of every value ``text_values`` reads in ``text``, in its order."""
    return [(kind, value) for kind, value, _ in text_values(text)]
