"""The summary chain of a session: every committed version with its parent and coverage, the
head after each summary event (so any earlier head is known), and the rejections. Pure: no I/O.

Statuses: ``active`` (the head, untainted), ``superseded`` (an earlier head), ``rolled back``
(left by a rollback and never head again), ``tainted`` (a message it covers was erased after
the summary was made, so it may quote it: never served), ``erased`` (its payload was erased with
a message it covered: the erasure cascades to summaries) and ``rejected`` (refused by the gate;
no summary was committed).

A head that is tainted or erased serves its nearest servable ancestor (the summary it was
rolled forward from), whose coverage ends before the erased message; the next compaction rolls
forward from there again, so one erasure never ends compaction of a session.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, field
from typing import Any

from projections.context.accounting import USER_MESSAGE_OVERHEAD
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
    #: whether its block shows the coverage digest (summaries committed before version 4 of
    #: ``SummaryCommitted`` did; the digest names random event ids, so newer blocks do not)
    block_digest: bool = True

    @property
    def message_tokens(self) -> int:
        """Tokens of the message that serves it: the block's and the message's overhead.

        A summary committed before ``SummaryCommitted`` version 4 (``block_digest``) is planned
        as it was then, by its block's text alone, so the requests recorded while it was served
        replay byte for byte; the next compaction replaces it with one counted in full."""
        return self.tokens + (0 if self.block_digest else USER_MESSAGE_OVERHEAD)

    def to_dict(self) -> dict[str, Any]:
        """The version as JSON-ready data (for snapshots)."""
        return {
            "version": self.version,
            "parent": self.parent,
            "tokens": self.tokens,
            "covered_end": self.covered_end,
            "tainted": self.tainted,
            "block_digest": self.block_digest,
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
            raw.get("block_digest", True),
        )


@dataclass
class SummaryChain:
    """Every summary version of a session, and its head at every stream version."""

    committed: dict[int, CommittedSummary] = field(default_factory=dict)
    #: versions whose ``SummaryCommitted`` payload was erased, with the version each rolled
    #: forward from (the served summary when it was committed)
    erased: dict[int, int | None] = field(default_factory=dict)
    heads: list[tuple[int, int | None]] = field(default_factory=list)  # (stream version, head)
    rejections: list[tuple[int, list[str]]] = field(default_factory=list)
    #: the session's group count at the last attempt, when it was rejected (backoff)
    last_rejection_groups: int | None = None

    @property
    def head(self) -> int | None:
        """The current head version (None: no summary is served)."""
        return self.heads[-1][1] if self.heads else None

    def committed_at(self, version: int) -> int | None:
        """The stream version at which summary ``version`` was committed."""
        return next((at for at, head in self.heads if head == version), None)

    def next_version(self) -> int:
        """The version number a new summary attempt gets."""
        return max(max(self.committed, default=0), max(self.erased, default=0)) + 1

    def commit(self, at_version: int, summary: CommittedSummary) -> None:
        """A committed summary, which becomes the head at stream version ``at_version``."""
        self.committed[summary.version] = summary
        self.heads.append((at_version, summary.version))
        self.last_rejection_groups = None

    def commit_erased(self, at_version: int) -> int:
        """A committed summary whose payload was erased since: it takes the next version
        number (versions are given in commit order) and becomes the head, which then serves
        its nearest servable ancestor. Returns its version."""
        served = self.served(self.head)
        version = self.next_version()
        self.erased[version] = served.version if served is not None else None
        self.heads.append((at_version, version))
        self.last_rejection_groups = None
        return version

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
        """The summary served when ``head`` is the head: that version, or when it is tainted
        or erased its nearest servable ancestor (None: no summary, the window is served)."""
        seen: set[int] = set()
        while head is not None and head not in seen:
            seen.add(head)
            if head in self.erased:
                head = self.erased[head]
                continue
            committed = self.committed.get(head)
            if committed is None or not committed.tainted:
                return committed
            head = committed.parent
        return None

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
            {"version": version, "status": "erased", "parent": parent}
            for version, parent in self.erased.items()
        ]
        chain.sort(key=lambda row: row["version"])
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
            "erased": [[version, parent] for version, parent in self.erased.items()],
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
            {int(version): parent for version, parent in raw.get("erased", [])},
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
