"""The benchmarks' payloads and timing helpers: deterministic 1-2 KB chat messages mixing
English and Chinese (every fifth an assistant message with a tool call), percentiles, and a
timer for awaited calls."""

from __future__ import annotations

import json
import random
import statistics
import time
from collections.abc import Awaitable, Callable
from typing import Any

from eventstore.encoding import canonical_json

__all__ = ["make_messages", "percentile", "summary", "timed"]

ENGLISH = (
    "Please find a direct train from Shanghai to Hangzhou on the morning of September 19th, "
    "one way at most 200 CNY, and make sure I am back in Shanghai before 6pm on the 20th. "
    "I do not want travel insurance and you must never book automatically. "
)
CHINESE = (
    "请帮我查一下九月十九日上午从上海到杭州的直达高铁，单程不超过两百元，二十日下午六点前回到上海。"
    "不要自动购票，也不需要保险。排除 G123：到达时间晚于计划。"
)


def make_messages(count: int, seed: int = 42) -> list[dict[str, Any]]:
    """Deterministic chat messages of 1-2 KB of canonical JSON; every fifth has a tool call."""
    rng = random.Random(seed)
    messages = []
    for index in range(count):
        target = rng.randint(1100, 2000)
        parts: list[str] = []
        message = _message(index, "")
        while len(canonical_json(message)) < target:
            source = ENGLISH if rng.random() < 0.5 else CHINESE
            start = rng.randrange(len(source) // 2)
            parts.append(source[start : start + rng.randint(40, len(source) - start)])
            message = _message(index, " ".join(parts))
        while len(canonical_json(message)) > 2048:
            parts[-1] = parts[-1][:-8]
            message = _message(index, " ".join(parts))
        messages.append(message)
    return messages


def _message(index: int, content: str) -> dict[str, Any]:
    if index % 5 != 4:
        return {"role": "user" if index % 2 else "assistant", "content": content}
    arguments = {"from": "上海", "to": "杭州", "date": "2026-09-19", "max_price_cny": 200}
    return {
        "role": "assistant",
        "content": content,
        "tool_calls": [
            {
                "id": f"call_{index}",
                "type": "function",
                "function": {
                    "name": "search_trains",
                    "arguments": json.dumps(arguments, ensure_ascii=False),
                },
            }
        ],
    }


def percentile(samples: list[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def summary(samples: list[float]) -> dict[str, float]:
    return {"p50_us": statistics.median(samples) * 1e6, "p95_us": percentile(samples, 0.95) * 1e6}


async def timed(calls: list[Callable[[], Awaitable[Any]]]) -> list[float]:
    samples = []
    for call in calls:
        start = time.perf_counter()
        await call()
        samples.append(time.perf_counter() - start)
    return samples
