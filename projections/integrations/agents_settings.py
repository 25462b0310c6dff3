"""How an OpenAI Agents SDK :class:`~projections.integrations.openai_agents.LedgerSession`
compacts: :class:`CompactionSettings`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from projections.context.budget import Budget
from projections.errors import ConfigurationError
from projections.recall.search import RecallOptions
from projections.summaries.summarizer import Summarizer, SummarizerFunction

__all__ = ["CompactionSettings", "OverBudget"]

OverBudget = Literal["warn", "raise", "ignore"]


@dataclass(frozen=True)
class CompactionSettings:
    """How ``get_items`` compacts.

    Args:
        budget: the model's budget (the context served stays within ``budget.usable``).
        keep_groups: the most recent groups always kept verbatim.
        summarizer: the offline, deterministic one by default.
        target: a compaction aims the context at what must stay plus ``target`` of the room
            the trigger leaves above it (None: 0.75).
        summary_budget: an upper bound for the summary's tokens (None: a share of the room
            the prefix, pins and last groups leave, never more than that room).
        backoff_groups: after a rejected summary, wait for this many new groups.
        mask_results: mask old tool results first (the ladder's cheapest step).
        on_over_budget: what to do when the context is over usable even after compaction:
            ``"warn"`` (a :class:`ContextOverBudgetWarning`), ``"raise"`` (a
            :class:`ContextOverBudgetError` from ``get_items``) or ``"ignore"``.
        recall: page back the best older turns for each run's input (off by default):
            ``get_items`` leaves ``recall.share`` of usable free and the filter of
            :meth:`LedgerSession.run_config` fills it before each model call
            (:mod:`projections.integrations.agents_recall`).
        retry_unavailable_after: seconds to wait, after the summarizer was unavailable, before
            ``get_items`` tries to compact again (the window is served meanwhile); 0 tries on
            every call.
    """

    budget: Budget
    keep_groups: int = 6
    summarizer: Summarizer | SummarizerFunction | None = None
    target: float | None = None
    summary_budget: int | None = None
    backoff_groups: int = 4
    mask_results: bool = True
    on_over_budget: OverBudget = "warn"
    recall: RecallOptions | None = None
    retry_unavailable_after: float = 30.0

    def __post_init__(self) -> None:
        usable = self.budget.usable
        if self.on_over_budget not in ("warn", "raise", "ignore"):
            raise ConfigurationError(
                f"on_over_budget must be 'warn', 'raise' or 'ignore', got {self.on_over_budget!r}"
            )
        if self.target is not None and not 0 < self.target <= 1:
            raise ConfigurationError(f"target is a share of usable in (0, 1], got {self.target}")
        if self.retry_unavailable_after < 0:
            raise ConfigurationError(
                f"retry_unavailable_after is seconds, 0 or more, got {self.retry_unavailable_after}"
            )
        if self.keep_groups < 1:
            raise ConfigurationError(f"keep_groups must be at least 1, got {self.keep_groups}")
        if self.summary_budget is not None and not 0 < self.summary_budget < usable:
            raise ConfigurationError(
                f"summary_budget {self.summary_budget} does not fit the usable budget of "
                f"{usable} tokens: give fewer tokens, or leave it None (a share of the room "
                f"left next to the prefix, pins and last groups)"
            )
