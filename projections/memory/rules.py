"""The memory rules: which proposals may be promoted, which memories must be retracted, what
recall serves. One judgement feeds the candidates view, the promoter's plan and recall, so the
three never disagree. Pure: no I/O; ``now`` is an argument.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal

from pydantic import BaseModel, ConfigDict

from eventstore import NewEvent
from projections.memory.events import (
    MEMORY_PROMOTED,
    MEMORY_RETRACTED,
    MemoryPromoted,
    MemoryRetracted,
    RetractionReason,
)
from projections.memory.state import Memory, Proposal, UserMemory

__all__ = [
    "Candidate",
    "CandidateStatus",
    "RecalledMemory",
    "Verdict",
    "candidates",
    "judge",
    "plan",
    "recall",
    "retraction_due",
    "superseded",
]

CandidateStatus = Literal["pending", "blocked", "promoted", "retracted", "expired", "forgotten"]

# Decision events get ids derived from what they decide, so that two promoters with the same
# view can never record the same decision twice (the store sees a retry, or a conflict).
_DECISIONS = uuid.UUID("6f0c1c52-5a7e-4c5e-9a53-2f4f3b1d8e01")

# Retractions after which the proposal may be promoted again under a new basis.
_REOPENING: frozenset[str] = frozenset({"consent_revoked", "policy_changed"})


@dataclass(frozen=True)
class Verdict:
    """Whether a proposal may be promoted now: on which basis, or why not."""

    eligible: bool
    reason: str | None = None
    basis: Literal["consent", "policy"] | None = None
    consent_id: str | None = None
    consent_expires_at: datetime | None = None


def judge(state: UserMemory, proposal: Proposal, now: datetime) -> Verdict:
    """Judge a proposal against erasures, the policy and the user's consents at ``now``."""
    data = proposal.data
    if data is None:
        return Verdict(False, "forgotten")
    erased = [i for i in data.source_event_ids if i in state.erased]
    if erased:
        return Verdict(False, f"source erased: {', '.join(erased)}")
    policy = state.policy
    if data.category in policy.never_promote:
        return Verdict(False, f"sensitive: category {data.category!r} is never promoted")
    if data.confidence < policy.min_confidence:
        return Verdict(False, f"low confidence: {data.confidence:g} < {policy.min_confidence:g}")
    specific = data.category in policy.session_specific
    covering = [c for c in state.consents.values() if c.covers(data, key_only=specific)]
    valid = [c for c in covering if c.valid(now)]
    if valid:
        consent = max(valid, key=lambda c: c.position)
        assert consent.data is not None  # valid() checked it
        return Verdict(True, None, "consent", consent.consent_id, consent.data.expires_at)
    if not specific and data.category in policy.allowed_without_consent:
        return Verdict(True, None, "policy")
    if any(c.expired(now) and c.revoked_at is None for c in covering):
        return Verdict(False, "consent expired")
    if any(c.revoked_at is not None for c in covering):
        return Verdict(False, "consent revoked")
    if specific:
        return Verdict(
            False,
            f"session-specific: category {data.category!r} needs a consent naming the key "
            f"{data.key!r}",
        )
    return Verdict(False, "no consent")


def retraction_due(state: UserMemory, memory: Memory) -> tuple[RetractionReason, str] | None:
    """Why a live memory may no longer be served (the promoter will retract it), or None."""
    proposal = state.proposals.get(memory.proposal_id)
    if proposal is None or proposal.data is None:
        return "source_erased", "the proposal's payload is gone"
    erased = [i for i in proposal.data.source_event_ids if i in state.erased]
    if erased:
        return "source_erased", f"source events erased: {', '.join(erased)}"
    category = proposal.data.category
    if category in state.policy.never_promote:
        return "policy_changed", f"category {category!r} is now never promoted"
    promoted = memory.promoted
    if promoted.basis == "consent":
        consent = state.consents.get(promoted.consent_id or "")
        if consent is None or consent.data is None or consent.revoked_at is not None:
            return "consent_revoked", f"consent {promoted.consent_id} was revoked"
    elif category not in state.policy.allowed_without_consent:
        return "policy_changed", f"category {category!r} now needs consent"
    return None


class Candidate(BaseModel):
    """One proposal as the candidates view shows it."""

    model_config = ConfigDict(frozen=True)

    proposal_id: str
    key: str | None
    value: str | None
    category: str | None
    confidence: float | None
    origin: str | None
    session_id: str | None
    source_ids: list[str]
    source_event_ids: list[str]
    proposed_at: datetime
    status: CandidateStatus
    reason: str | None = None
    memory_id: str | None = None
    basis: str | None = None
    consent_id: str | None = None


def _classify(
    state: UserMemory, proposal: Proposal, now: datetime
) -> tuple[CandidateStatus, str | None, Memory | None, Verdict | None]:
    """Status, reason, the latest memory of the proposal and, when it is open, the verdict."""
    if proposal.data is None:
        return "forgotten", None, None, None
    memories = state.memories_of(proposal.event_id)
    latest = memories[-1] if memories else None
    if latest is not None and latest.forgotten:
        return "forgotten", None, latest, None
    if latest is not None and latest.live(now):
        due = retraction_due(state, latest)
        if due is None:
            return "promoted", None, latest, None
        reason: str = due[0]
        detail = f"{due[1]} (the promoter retracts it on its next run)"
    elif latest is not None and latest.retracted is not None:
        reason, detail = latest.retracted.reason, latest.retracted.detail
    elif latest is not None:
        return "expired", f"expired at {latest.promoted.expires_at.isoformat()}", latest, None
    else:
        reason, detail = "", ""
    if reason and reason not in _REOPENING:
        return "retracted", f"{reason}: {detail}", latest, None
    verdict = judge(state, proposal, now)
    if verdict.eligible:
        return "pending", None, latest, verdict
    if reason:
        return "retracted", f"{reason}: {detail}", latest, verdict
    return "blocked", verdict.reason, latest, verdict


def candidates(state: UserMemory, now: datetime) -> list[Candidate]:
    """Every proposal of the user, oldest first, with its status at ``now``."""
    out = []
    for proposal in sorted(state.proposals.values(), key=lambda p: p.position):
        status, reason, memory, verdict = _classify(state, proposal, now)
        data = proposal.data
        out.append(
            Candidate(
                proposal_id=proposal.event_id,
                key=data.key if data else None,
                value=data.value if data else None,
                category=data.category if data else None,
                confidence=data.confidence if data else None,
                origin=data.origin if data else None,
                session_id=data.session_id if data else None,
                source_ids=list(data.source_ids) if data else [],
                source_event_ids=list(data.source_event_ids) if data else [],
                proposed_at=proposal.recorded_at,
                status=status,
                reason=reason,
                memory_id=memory.memory_id if memory and status == "promoted" else None,
                basis=(
                    memory.promoted.basis
                    if memory and status == "promoted"
                    else verdict.basis
                    if verdict
                    else None
                ),
                consent_id=(
                    memory.promoted.consent_id
                    if memory and status == "promoted"
                    else verdict.consent_id
                    if verdict
                    else None
                ),
            )
        )
    return out


def _norm(value: str) -> str:
    return " ".join(value.casefold().split())


def plan(state: UserMemory, now: datetime, *, tracking_position: int) -> list[NewEvent]:
    """The promoter's decisions for one user at ``now``: retractions, then promotions.

    Promoting a value that a live memory of the same key already holds supersedes the older
    memory (the newest confirmation wins); a different value for the same key is kept beside
    it, and recall flags the conflict.
    """
    prefix = f"{state.tenant_id}\x00{state.user_id}\x00"
    events: list[NewEvent] = []
    live: dict[str, tuple[str, str]] = {}  # memory id -> (key, value) of memories staying live

    def retract(memory_id: str, reason: RetractionReason, detail: str, by: str | None) -> None:
        data = MemoryRetracted(
            memory_id=memory_id,
            reason=reason,
            detail=detail,
            superseded_by=by,
            tracking_position=tracking_position,
        )
        events.append(
            NewEvent(
                type=MEMORY_RETRACTED,
                data=data.model_dump(mode="json"),
                event_id=uuid.uuid5(_DECISIONS, f"{prefix}retract\x00{memory_id}"),
                actor="promoter",
            )
        )

    for memory in sorted(state.memories.values(), key=lambda m: m.position):
        if not memory.live(now):
            continue
        due = retraction_due(state, memory)
        if due is not None:
            retract(memory.memory_id, due[0], due[1], None)
            continue
        data = state.proposals[memory.proposal_id].data
        assert data is not None  # retraction_due checked it
        live[memory.memory_id] = (data.key, data.value)

    for proposal in sorted(state.proposals.values(), key=lambda p: p.position):
        status, _, _, verdict = _classify(state, proposal, now)
        if status != "pending" or verdict is None or proposal.data is None:
            continue
        if any(
            m.proposal_id == proposal.event_id and m.memory_id in live
            for m in state.memories.values()
        ):
            continue
        data = proposal.data
        ttl = data.ttl_days if data.ttl_days is not None else state.policy.default_ttl_days
        expires_at = now + timedelta(days=ttl)
        if verdict.consent_expires_at is not None:
            expires_at = min(expires_at, verdict.consent_expires_at)
        count = len(state.memories_of(proposal.event_id))
        memory_id = uuid.uuid5(_DECISIONS, f"{prefix}promote\x00{proposal.event_id}\x00{count}")
        promoted = MemoryPromoted(
            proposal_id=proposal.event_id,
            basis=verdict.basis or "consent",
            consent_id=verdict.consent_id,
            expires_at=expires_at,
            policy_version=state.policy_version,
            tracking_position=tracking_position,
        )
        events.append(
            NewEvent(
                type=MEMORY_PROMOTED,
                data=promoted.model_dump(mode="json"),
                event_id=memory_id,
                actor="promoter",
            )
        )
        live[str(memory_id)] = (data.key, data.value)
    # Computed over every live memory, old and new, so that a run killed between a promotion
    # and the retraction it implies still converges on the next run.
    for older, newer in superseded(list(live.items())).items():
        retract(older, "superseded", f"the same value was confirmed again as {newer}", newer)
    return events


def superseded(live: list[tuple[str, tuple[str, str]]]) -> dict[str, str]:
    """Among live memories ``(memory id, (key, value))`` in promotion order, map each one that
    a newer memory repeats (same key, same value up to case and spacing) to the newest."""
    newest: dict[tuple[str, str], str] = {}
    for memory_id, (key, value) in live:
        newest[(key, _norm(value))] = memory_id
    return {
        memory_id: newest[(key, _norm(value))]
        for memory_id, (key, value) in live
        if newest[(key, _norm(value))] != memory_id
    }


def _key_value(state: UserMemory, memory: Memory) -> tuple[str, str]:
    data = state.proposals[memory.proposal_id].data
    assert data is not None  # only called for memories with a readable proposal
    return data.key, data.value


class RecalledMemory(BaseModel):
    """A memory as recall serves it."""

    model_config = ConfigDict(frozen=True)

    memory_id: str
    proposal_id: str
    key: str
    value: str
    category: str
    confidence: float
    source_ids: list[str]
    source_event_ids: list[str]
    session_id: str | None
    promoted_at: datetime
    position: int  # the tenant position of the promotion
    expires_at: datetime
    basis: str
    consent_id: str | None
    conflict: bool = False


def recall(
    state: UserMemory,
    now: datetime,
    *,
    keys: list[str] | None = None,
    categories: list[str] | None = None,
) -> list[RecalledMemory]:
    """The memories served at ``now``: live, permitted, untainted; grouped by key, the newest
    first within a key, and flagged as a conflict when a key holds several values."""
    served = [
        memory
        for memory in sorted(state.memories.values(), key=lambda m: m.position)
        if memory.live(now) and retraction_due(state, memory) is None
    ]
    repeated = superseded([(m.memory_id, _key_value(state, m)) for m in served])
    found: list[RecalledMemory] = []
    for memory in served:
        if memory.memory_id in repeated:
            continue
        data = state.proposals[memory.proposal_id].data
        assert data is not None  # retraction_due checked it
        if keys is not None and data.key not in keys:
            continue
        if categories is not None and data.category not in categories:
            continue
        found.append(
            RecalledMemory(
                memory_id=memory.memory_id,
                proposal_id=memory.proposal_id,
                key=data.key,
                value=data.value,
                category=data.category,
                confidence=data.confidence,
                source_ids=list(data.source_ids),
                source_event_ids=list(data.source_event_ids),
                session_id=data.session_id,
                promoted_at=memory.promoted_at,
                position=memory.position,
                expires_at=memory.promoted.expires_at,
                basis=memory.promoted.basis,
                consent_id=memory.promoted.consent_id,
            )
        )
    values: dict[str, set[str]] = {}
    for item in found:
        values.setdefault(item.key, set()).add(_norm(item.value))
    found.sort(key=lambda item: (item.key, -item.position))
    return [item.model_copy(update={"conflict": len(values[item.key]) > 1}) for item in found]
