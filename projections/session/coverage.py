"""What a summary covers, computed from the session: version ranges, count and digest, and the
conversion of a v1 summary (ids everywhere) into v2 (session versions). Pure: no I/O."""

from __future__ import annotations

from collections.abc import Iterable

from blake3 import blake3

from projections.session.state import Cut, SessionState
from projections.summaries.schema import CompactionSummary
from projections.summaries.schema_v2 import (
    CompactionSummaryV2,
    Coverage,
    DecisionV2,
    FactV2,
    QuestionV2,
    ToolDigestV2,
)

__all__ = ["coverage_of", "upcast_summary"]


def coverage_of(state: SessionState, indexes: Iterable[int]) -> Coverage:
    """The coverage of these messages (by index): runs of consecutive covered messages as
    version ranges, their count, and BLAKE3 over their event hashes in session order."""
    ordered = sorted(set(indexes))
    ranges: list[tuple[int, int]] = []
    for position, index in enumerate(ordered):
        version = state.message_versions[index]
        if position and ordered[position - 1] == index - 1:
            ranges[-1] = (ranges[-1][0], version)  # the run of covered messages goes on
        else:
            ranges.append((version, version))
    digest = blake3(b"".join(bytes.fromhex(state.message_hashes[i]) for i in ordered))
    return Coverage(ranges=ranges, count=len(ordered), digest=digest.hexdigest())


def upcast_summary(summary: CompactionSummary, cut: Cut) -> CompactionSummaryV2:
    """A v1 summary in v2 form (ids become session versions), so a v2 compaction can roll
    forward from a v1 parent. Items citing a message the session no longer has are left out."""
    state = cut.state
    version_of = {
        message_id: state.message_versions[index] for message_id, index in state.index_of.items()
    }

    def versions(ids: Iterable[str]) -> list[int]:
        return sorted({version_of[i] for i in ids if i in version_of})

    covered = [state.index_of[i] for i in summary.source_message_ids if i in state.index_of]
    calls = _call_versions(cut, covered)
    facts = [
        FactV2(key=f.key, value=f.value, status=f.status, src=src)
        for f in summary.facts
        if (src := versions(f.source_ids))
    ]
    decisions = [
        DecisionV2(text=d.text, src=src)
        for d in summary.decisions
        if (src := versions(d.source_ids))
    ]
    questions = [
        QuestionV2(text=q.text, src=src)
        for q in summary.open_questions
        if (src := versions(q.source_ids))
    ]
    tools = [
        ToolDigestV2(src=calls[d.tool_call_id], call=d.digest[:400])
        for d in summary.tool_result_digests
        if d.tool_call_id in calls
    ]
    return CompactionSummaryV2(
        coverage=coverage_of(state, covered),
        facts=facts,
        decisions=decisions,
        open_questions=questions,
        tools=tools,
        created_at=summary.created_at,
    )


def _call_versions(cut: Cut, covered: Iterable[int]) -> dict[str, int]:
    """The version of each tool result the summary covered, by the call id it answers."""
    state = cut.state
    return {
        message.tool_call_id: state.message_versions[index]
        for index in covered
        if state.roles[index] == "tool" and (message := cut.message(index)).tool_call_id
    }
