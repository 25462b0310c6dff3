"""Turns of small talk that no recall query matches: the history that pushes a turn out of the
window."""

from __future__ import annotations

from typing import Any


def chat(start: int, count: int) -> list[dict[str, Any]]:
    """Turns ``f<start>`` .. alternating assistant and user, about the weather and breakfast."""
    return [
        {
            "id": f"f{i}",
            "role": "user" if i % 2 else "assistant",
            "content": f"Turn {i}: small talk about the weather and the hotel breakfast.",
        }
        for i in range(start, start + count)
    ]
