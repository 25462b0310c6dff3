"""Where a rollback moves the summary head, decided purely: the served summary's parent by
default, and no summary at all when the restored version no longer validates against the
current log (a source was erased, say). Pure: no I/O (the token counter is passed in)."""

from __future__ import annotations

from collections.abc import Callable

from projections.context.holes import bisect_left, bisect_right
from projections.errors import MessageValidationError
from projections.session.coverage import coverage_of
from projections.session.state import Cut
from projections.summaries.gate_v2 import validate_summary_v2
from projections.summaries.sanitize import sanitize_messages
from projections.summaries.schema import CompactionSummary
from projections.summaries.summarizer import AnySummary
from projections.summaries.validation import validate_summary

__all__ = ["rollback_target"]


def rollback_target(
    cut: Cut, to_version: int | None, reason: str, count: Callable[[str], int]
) -> tuple[int | None, str]:
    """The version the head moves to (None: no summary) and the reason to record (``cut``:
    the latest, with the bodies the restored summary covers at hand).

    Raises:
        MessageValidationError: no summary is served and no version is named (nothing to roll
            back), or the named version does not exist.
    """
    chain = cut.state.chain
    active = cut.summary()
    if to_version is None and active is None:
        raise MessageValidationError(
            "this session serves no summary, so there is nothing to roll back: see "
            "'ctxledger summaries' for the chain, or name the version to restore "
            "(to_version=..., or --to on the command line)"
        )
    target = to_version if to_version is not None else (active.parent if active else None)
    if target is not None and target not in chain.committed:
        raise MessageValidationError(
            f"there is no summary version {target}; versions: {sorted(chain.committed) or 'none'}"
        )
    if target is None:
        return None, reason
    restored = chain.committed[target].summary
    if not _still_valid(cut, restored, count):
        return None, f"{reason} (version {target} no longer validates)"
    return target, reason


def _still_valid(cut: Cut, summary: AnySummary, count: Callable[[str], int]) -> bool:
    """Whether a summary still validates against the current log."""
    state = cut.state
    if isinstance(summary, CompactionSummary):
        covered = set(summary.source_message_ids)
        sources = [
            cut.message(i) for i, message_id in enumerate(state.ids) if message_id in covered
        ]
        clean, _ = sanitize_messages(sources, count_tokens=count)
        return validate_summary(summary, clean).ok
    versions = state.message_versions
    indexes = [
        index
        for first, last in summary.coverage.ranges
        for index in range(bisect_left(versions, first), bisect_right(versions, last))
    ]
    cited = {versions[i]: cut.message(i) for i in indexes if versions[i] in summary.cited()}
    cleaned, _ = sanitize_messages(list(cited.values()), count_tokens=count)
    by_version = dict(zip(cited, cleaned, strict=True))
    report = validate_summary_v2(summary, by_version, coverage=coverage_of(state, indexes))
    return report.ok
