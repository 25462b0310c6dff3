"""Observation masking, the compaction ladder's first and cheapest step. Pure: no I/O.

Tool results older than the last ``keep_groups`` groups are served as a short digest: the
tool's name, the result's size, the session version that keeps it in full, and its most telling
values (identifiers, amounts, dates, with their JSON key paths), ranked once and cut to a small
share of the result. The call and its result stay one group, so the protocol holds; the log keeps
every result whole (paged back in by recall). Masking old observations halved an agent's cost
while matching LLM summarisation's solve rate on SWE-bench Verified (Lindenbauer et al., 2025,
"The Complexity Trap"); here it is recorded as ``ResultsMasked``, so what the model saw at any
turn replays exactly.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from projections.context.messages import Message, text_of
from projections.session.events import MaskedResult, ResultsMasked
from projections.session.state import Cut
from projections.summaries.values import value_candidates

__all__ = ["MaskingOptions", "mask_text", "plan_masking"]

Count = Callable[[str], int]
CountMessage = Callable[[Message], int]


@dataclass(frozen=True)
class MaskingOptions:
    """Which results are masked and how short their digest is.

    Args:
        keep_groups: the most recent groups whose results stay whole (0, the ladder's last
            step before an error, when the newest turn alone leaves no room: its results too).
        min_tokens: results smaller than this stay whole (a digest would save little).
        digest_share: a digest takes at most this share of its result's tokens ...
        digest_tokens: ... and never more than this many tokens.
    """

    keep_groups: int = 6
    min_tokens: int = 64
    digest_share: float = 0.35
    digest_tokens: int = 120


def plan_masking(
    cut: Cut, options: MaskingOptions, count: Count, count_message: CountMessage
) -> ResultsMasked | None:
    """The results a render should mask from now on, or None when none is worth masking.

    Only groups a render serves are looked at (after the summary's coverage, before the last
    ``keep_groups``), never the prefix nor a pinned group: O(window), not O(history). A
    digest's tokens are those of the message that serves it (``count_message``), overheads
    included, so the render's accounting is the counted request's.
    """
    state = cut.state
    pinned = cut.pinned_groups()
    first = max(cut.prefix_end, cut.summarised_groups())
    results: list[MaskedResult] = []
    for group in range(first, cut.groups - options.keep_groups):
        if group in pinned:
            continue
        messages = cut.group_messages(group)
        names = {call.id: call.name for m in messages for call in m.tool_calls}
        for message in messages:
            tokens = state.tokens[message.id]
            if message.role != "tool" or tokens < options.min_tokens or cut.mask_of(message.id):
                continue
            index = state.index_of[message.id]
            name = names.get(message.tool_call_id or "", "tool")
            version = state.message_versions[index]
            text = mask_text(message, name, version, tokens, count, options)
            served = count_message(message.model_copy(update={"content": text}))
            if served * 2 <= tokens:
                results.append(MaskedResult(
                    message_id=message.id,
                    event_id=state.message_event_ids[index] or message.id,
                    tokens_before=tokens,
                    tokens=served,
                    text=text,
                ))  # fmt: skip
    if not results:
        return None
    saved = sum(r.tokens_before - r.tokens for r in results)
    return ResultsMasked(results=results, keep_groups=options.keep_groups, tokens_saved=saved)


def mask_text(
    message: Message, name: str, version: int, tokens: int, count: Count, options: MaskingOptions
) -> str:
    """The digest served in place of a tool result: a header naming the session version that
    keeps it whole (``@N``, as summaries cite; never an event id, which differs between two
    logs of one conversation), then its best values (``key=value``), in the result's own
    order, within the digest's cap."""
    header = f"[masked result of {name}: {tokens} tokens, kept whole at @{version}]"
    cap = min(options.digest_tokens, int(options.digest_share * tokens)) - count(header)
    chosen = _best_values(message, cap, count)
    if not chosen:
        lead = " ".join(text_of(message).split())
        return f"{header} {_clip(lead, cap, count)}" if cap > 8 and lead else header
    return f"{header} {'; '.join(chosen)}"


def _best_values(message: Message, cap: int, count: Count) -> list[str]:
    candidates = value_candidates([message], [0])
    seen: set[str] = set()
    items: list[tuple[float, int, str]] = []
    for order, candidate in enumerate(candidates):
        if candidate.value in seen:
            continue
        seen.add(candidate.value)
        value = candidate.value if len(candidate.value) <= 48 else candidate.value[:45] + "…"
        items.append((candidate.score, order, f"{candidate.key}={value}"))
    kept: list[tuple[int, str]] = []
    used = 0
    for _, order, item in sorted(items, key=lambda entry: (-entry[0], entry[1])):
        cost = count(item) + 1  # the separator
        if used + cost > cap:
            continue
        kept.append((order, item))
        used += cost
    return [item for _, item in sorted(kept)]


def _clip(text: str, cap: int, count: Count) -> str:
    """The start of ``text`` within ``cap`` tokens (cut at a word)."""
    if count(text) <= cap:
        return text
    words = text.split()
    low, high = 0, len(words)
    while low < high:  # the longest prefix of words that fits, by bisection
        middle = (low + high + 1) // 2
        if count(" ".join(words[:middle]) + " …") <= cap:
            low = middle
        else:
            high = middle - 1
    return " ".join(words[:low]) + " …"
