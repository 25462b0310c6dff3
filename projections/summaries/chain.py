"""The summary chain of a session: every committed version with its parent and coverage, the
head after each summary event (so any earlier head is known), and the rejections. Pure: no I/O.

Statuses: ``active`` (the head, untainted), ``superseded`` (an earlier head), ``rolled back``
(left by a rollback and never head again), ``tainted`` (a message it covers was erased: never
served) and ``rejected`` (refused by the gate; no summary was committed).
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, field
from typing import Any

from projections.summaries.schema import CompactionSummary
from projections.summaries.summarizer import AnySummary, parse_summary

__all__ = ["CommittedSummary", "SummaryChain", "fact_diff"]


@dataclass(frozen=True)
class CommittedSummary:
    """A summary version as committed: the record, its tokens, and where its coverage ends
    (one past the index of the last message it covers)."""

    version: int
    parent: int | None
    summary: AnySummary
    tokens: int
    covered_end: int
    tainted: bool = False  # a message it covers was erased: never served

    def to_dict(self) -> dict[str, Any]:
        """The version as JSON-ready data (for snapshots)."""
        return {
            "version": self.version,
            "parent": self.parent,
            "tokens": self.tokens,
            "covered_end": self.covered_end,
            "tainted": self.tainted,
            "summary": self.summary.model_dump(mode="json"),
        }

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> CommittedSummary:
        """A version saved by :meth:`to_dict`."""
        return cls(
            raw["version"],
            raw["parent"],
            parse_summary(raw["summary"]),
            raw["tokens"],
            raw["covered_end"],
            raw["tainted"],
        )


@dataclass
class SummaryChain:
    """Every summary version of a session, and its head at every stream version."""

    committed: dict[int, CommittedSummary] = field(default_factory=dict)
    heads: list[tuple[int, int | None]] = field(default_factory=list)  # (stream version, head)
    rejections: list[tuple[int, list[str]]] = field(default_factory=list)
    #: the session's group count at the last attempt, when it was rejected (backoff)
    last_rejection_groups: int | None = None

    @property
    def head(self) -> int | None:
        """The current head version (None: no summary is served)."""
        return self.heads[-1][1] if self.heads else None

    def next_version(self) -> int:
        """The version number a new summary attempt gets."""
        return max(self.committed, default=0) + 1

    def commit(self, at_version: int, summary: CommittedSummary) -> None:
        """A committed summary, which becomes the head at stream version ``at_version``."""
        self.committed[summary.version] = summary
        self.heads.append((at_version, summary.version))
        self.last_rejection_groups = None

    def roll_back(self, at_version: int, to_version: int | None) -> None:
        """The head moved back (or to no summary) at stream version ``at_version``."""
        self.heads.append((at_version, to_version))

    def reject(self, version: int, failed_checks: list[str], groups: int | None = None) -> None:
        """A refused attempt at ``version``, made when the session had ``groups`` groups."""
        self.rejections.append((version, failed_checks))
        self.last_rejection_groups = groups

    def head_at(self, stream_version: int | None) -> int | None:
        """The head as of a stream version (None: now)."""
        if stream_version is None:
            return self.head
        index = bisect_right([at for at, _ in self.heads], stream_version)
        return self.heads[index - 1][1] if index else None

    def served(self, head: int | None) -> CommittedSummary | None:
        """The version a head names, unless it is unknown or tainted (then none is served)."""
        active = self.committed.get(head) if head is not None else None
        return None if active is None or active.tainted else active

    def versions(self) -> list[dict[str, Any]]:
        """Every version with its status, parent, coverage and fact diff, then rejections."""
        head = self.head
        was_head = {version for _, version in self.heads if version is not None}
        chain = [
            {
                "version": version,
                "status": self._status(committed, head, was_head),
                "parent": committed.parent,
                **_coverage(committed.summary),
                "diff": fact_diff(self._parent_summary(committed), committed.summary),
                "tokens": committed.tokens,
            }
            for version, committed in sorted(self.committed.items())
        ]
        chain += [
            {"version": v, "status": "rejected", "failed_checks": checks}
            for v, checks in self.rejections
        ]
        return chain

    @staticmethod
    def _status(committed: CommittedSummary, head: int | None, was_head: set[int]) -> str:
        if committed.tainted:
            return "tainted"
        if committed.version == head:
            return "active"
        if head is not None and committed.version < head and committed.version in was_head:
            return "superseded"
        return "rolled back"

    def _parent_summary(self, committed: CommittedSummary) -> AnySummary | None:
        parent = self.committed.get(committed.parent) if committed.parent is not None else None
        return parent.summary if parent is not None else None

    def to_dict(self) -> dict[str, Any]:
        """The chain as JSON-ready data (for snapshots)."""
        return {
            "committed": [c.to_dict() for c in self.committed.values()],
            "heads": [list(entry) for entry in self.heads],
            "rejections": [[v, checks] for v, checks in self.rejections],
            "last_rejection_groups": self.last_rejection_groups,
        }

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> SummaryChain:
        """A chain saved by :meth:`to_dict`."""
        committed = [CommittedSummary.from_dict(c) for c in raw["committed"]]
        return cls(
            {c.version: c for c in committed},
            [(at, head) for at, head in raw["heads"]],
            [(v, list(checks)) for v, checks in raw["rejections"]],
            raw.get("last_rejection_groups"),
        )


def _coverage(summary: AnySummary) -> dict[str, Any]:
    if isinstance(summary, CompactionSummary):
        ids = list(summary.source_message_ids)
        return {"covered": len(ids), "covered_ids": ids}
    coverage = summary.coverage
    return {
        "covered": coverage.count,
        "covered_ranges": [list(pair) for pair in coverage.ranges],
        "covered_digest": coverage.digest,
    }


def fact_diff(parent: AnySummary | None, summary: AnySummary) -> dict[str, list[str]]:
    """Fact keys added, removed and changed against the parent summary."""
    before = {f.key: f.value for f in parent.facts} if parent else {}
    after = {f.key: f.value for f in summary.facts}
    return {
        "added": sorted(after.keys() - before.keys()),
        "removed": sorted(before.keys() - after.keys()),
        "changed": sorted(k for k in after.keys() & before.keys() if after[k] != before[k]),
    }
