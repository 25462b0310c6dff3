"""Long-term memory over every backend: consent gates promotion, revocation and erasure
retract, forget erases, recall is exact, and the seed's boundary holds."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from eventstore import EventStore
from projections.context.budget import Budget
from projections.errors import MemoryNotFoundError, MemoryRequestError
from projections.ledger import Ledger
from projections.memory import LongTermMemory, MemoryPolicy, Promoter, memory_stream
from projections.summaries.offline_v2 import summarize_v2
from projections.summaries.schema_v2 import CompactionSummaryV2, FactV2
from projections.summaries.summarizer import SummaryRequest
from tests.projections.memory.trip import BUDGET_KEY, BUDGET_VALUE, TRIP, trip_session


def statuses(found: list) -> dict[str, str]:  # type: ignore[type-arg]
    return {c.key: c.status for c in found}


async def test_seed_boundary(store: EventStore) -> None:
    """The budget preference is promoted only once the user consents; the trip's date, the G123
    exclusion and the train choice never are; revoking the consent retracts the preference."""
    ledger = Ledger(store)
    await trip_session(ledger)
    memory, promoter = ledger.memory, Promoter(store)

    report = await promoter.run_once("acme")
    assert (report.promoted, report.retracted) == (0, 0)
    found = await memory.candidates("acme", "ana")
    assert statuses(found) == {
        BUDGET_KEY: "blocked",
        "trip.depart_date": "blocked",
        "trip.excluded_train": "blocked",
        "trip.train_choice": "blocked",
    }
    assert {c.key: c.reason for c in found}[BUDGET_KEY] == "no consent"
    assert await memory.recall("acme", "ana") == []

    # Consent to keep preferences, and even to keep "task events" by category: session-specific
    # facts still need a consent that names their key.
    consent = await memory.grant_consent(
        "acme", "ana", categories=["preference", "task_event"], method="chat", evidence_ids=["m6"]
    )
    report = await promoter.run_once("acme")
    assert report.promoted == 1
    recalled = await memory.recall("acme", "ana")
    assert [(m.key, m.value, m.basis) for m in recalled] == [(BUDGET_KEY, BUDGET_VALUE, "consent")]
    assert recalled[0].source_ids == ["m2"]
    assert recalled[0].consent_id == consent.data["consent_id"]  # type: ignore[index]
    found = await memory.candidates("acme", "ana")
    assert statuses(found)[BUDGET_KEY] == "promoted"
    for key in ("trip.depart_date", "trip.excluded_train", "trip.train_choice"):
        candidate = next(c for c in found if c.key == key)
        assert candidate.status == "blocked"
        assert candidate.reason is not None
        assert candidate.reason.startswith("session-specific")

    # Idempotent: a second pass writes nothing.
    head = await store.stream_head("acme", memory_stream("ana"))
    assert (await promoter.run_once("acme")).decisions == []
    assert await store.stream_head("acme", memory_stream("ana")) == head

    await memory.revoke_consent(
        "acme", "ana", categories=["preference"], reason="changed my mind", method="chat"
    )
    assert await memory.recall("acme", "ana") == []  # at once, before the promoter runs
    report = await promoter.run_once("acme")
    assert (report.promoted, report.retracted) == (0, 1)
    candidate = next(c for c in await memory.candidates("acme", "ana") if c.key == BUDGET_KEY)
    assert candidate.status == "retracted"
    assert candidate.reason is not None
    assert candidate.reason.startswith("consent_revoked")
    assert (await store.verify("acme")).ok


async def test_summary_facts_become_candidates_by_policy(store: EventStore) -> None:
    """Facts of committed summaries are proposed when the policy keeps their key long-term;
    session-specific facts of the same summary are not."""

    async def with_facts(request: SummaryRequest) -> CompactionSummaryV2:
        # Leave room for the two facts added below.
        summary = summarize_v2(replace(request, budget_tokens=request.budget_tokens - 40))
        versions = dict(zip((m.id for m in request.chunk), request.versions, strict=True))
        m2 = versions["m2"]
        extra = [
            FactV2(key=BUDGET_KEY, value="within 200 CNY one way", status="confirmed", src=[m2]),
            FactV2(key="trip.depart_date", value="2026-09-19", status="confirmed", src=[m2]),
        ]
        kept = [f for f in summary.facts if f.key not in (BUDGET_KEY, "trip.depart_date")]
        return summary.model_copy(update={"facts": [*kept, *extra]})

    ledger = Ledger(store)
    session = ledger.session("acme", "trip", user_id="ana")
    await session.append(TRIP)
    budget = Budget(context_limit=1000, max_output_tokens=0, tool_reserve=0, safety_margin=0)
    # An aim under the session's 149 tokens, so that compaction is due.
    outcome = await session.compact(budget, keep_groups=1, summarizer=with_facts, target=0.14)
    assert outcome.result == "committed", outcome
    assert len(outcome.proposed) == 1
    found = await ledger.memory.candidates("acme", "ana")
    assert [(c.key, c.origin, c.source_ids) for c in found] == [(BUDGET_KEY, "summary", ["m2"])]
    # A rolling summary carrying the same fact forward proposes nothing new.
    await session.append([{"id": "m7", "role": "user", "content": "And the way back?"}])
    again = await session.compact(budget, keep_groups=1, summarizer=with_facts, target=0.4)
    assert again.proposed == []


async def test_forget_erases_and_verify_stays_green(store: EventStore) -> None:
    ledger = Ledger(store)
    await trip_session(ledger)
    memory = ledger.memory
    await memory.grant_consent("acme", "ana", categories=["preference"], method="settings")
    await Promoter(store).run_once("acme")
    (recalled,) = await memory.recall("acme", "ana")

    receipt = await memory.forget("acme", "ana", BUDGET_KEY, requested_by="ana")
    assert receipt.memory_ids == [recalled.memory_id]
    assert receipt.erased == [recalled.proposal_id]
    assert await memory.recall("acme", "ana") == []
    (proposal,) = await store.read_events("acme", [recalled.proposal_id])
    assert proposal.erased
    assert proposal.data is None
    assert (await store.verify("acme")).ok
    found = {c.proposal_id: c.status for c in await memory.candidates("acme", "ana")}
    assert found[recalled.proposal_id] == "forgotten"
    # The promoter does not bring it back; a second forget finds nothing left to erase.
    assert (await Promoter(store).run_once("acme")).promoted == 0
    again = await memory.forget("acme", "ana", recalled.memory_id, requested_by="ana")
    assert again.erased == []
    assert again.event is None
    with pytest.raises(MemoryNotFoundError, match="no memory or proposal"):
        await memory.forget("acme", "ana", "preference.nothing", requested_by="ana")


async def test_erasing_a_source_retracts_what_it_supported(store: EventStore) -> None:
    ledger = Ledger(store)
    await trip_session(ledger)
    memory = ledger.memory
    await memory.grant_consent("acme", "ana", keys=["preference.*"], method="settings")
    await Promoter(store).run_once("acme")
    (recalled,) = await memory.recall("acme", "ana")
    await store.erase("acme", recalled.source_event_ids, reason="GDPR", requested_by="dpo")
    assert await memory.recall("acme", "ana") == []  # tainted at once
    report = await Promoter(store).run_once("acme")
    assert report.retracted == 1
    (candidate,) = [c for c in await memory.candidates("acme", "ana") if c.key == BUDGET_KEY]
    assert candidate.status == "retracted"
    assert candidate.reason is not None
    assert candidate.reason.startswith("source_erased")
    assert (await store.verify("acme")).ok


async def test_conflicts_and_reconfirmation(store: EventStore) -> None:
    ledger = Ledger(store)
    session = await trip_session(ledger)
    memory = ledger.memory
    await memory.grant_consent("acme", "ana", categories=["preference"], method="chat")
    await session.propose_memory(
        key=BUDGET_KEY,
        value="at most 150 CNY",
        category="preference",
        source_ids=["m6"],
        confidence=0.8,
    )
    await Promoter(store).run_once("acme")
    recalled = await memory.recall("acme", "ana", keys=[BUDGET_KEY])
    assert [m.value for m in recalled] == ["at most 150 CNY", BUDGET_VALUE]  # newest first
    assert all(m.conflict for m in recalled)

    # The first value confirmed again supersedes its older memory; the conflict remains.
    await session.propose_memory(
        key=BUDGET_KEY,
        value=BUDGET_VALUE.upper(),
        category="preference",
        source_ids=["m2"],
        confidence=0.9,
    )
    report = await Promoter(store).run_once("acme")
    assert (report.promoted, report.retracted) == (1, 1)
    recalled = await memory.recall("acme", "ana", keys=[BUDGET_KEY])
    assert [m.value for m in recalled] == [BUDGET_VALUE.upper(), "at most 150 CNY"]
    superseded = [c for c in await memory.candidates("acme", "ana") if c.status == "retracted"]
    assert len(superseded) == 1
    assert superseded[0].reason.startswith("superseded")


async def test_recall_at_gives_the_memory_as_it_was(store: EventStore) -> None:
    ledger = Ledger(store)
    await trip_session(ledger)
    memory = ledger.memory
    await memory.grant_consent("acme", "ana", categories=["preference"], method="chat")
    await Promoter(store).run_once("acme")
    promoted_at = await store.tenant_position("acme")
    moment = datetime.now(UTC)
    await asyncio.sleep(0.01)
    await memory.revoke_consent("acme", "ana", everything=True, reason="no", method="chat")
    await Promoter(store).run_once("acme")
    assert await memory.recall("acme", "ana") == []
    assert [m.key for m in await memory.recall("acme", "ana", at=promoted_at)] == [BUDGET_KEY]
    assert [m.key for m in await memory.recall("acme", "ana", at=moment)] == [BUDGET_KEY]
    assert await memory.recall("acme", "ana", at=promoted_at - 1) == []
    with pytest.raises(MemoryRequestError, match="time zone"):
        await memory.recall("acme", "ana", at=datetime(2026, 1, 1))


async def test_consent_expiry_bounds_memory_expiry(store: EventStore) -> None:
    now = datetime.now(UTC)
    ledger = Ledger(store)
    await trip_session(ledger)
    await ledger.memory.grant_consent(
        "acme",
        "ana",
        categories=["preference"],
        method="chat",
        expires_at=now + timedelta(days=1),
    )
    await Promoter(store).run_once("acme")
    (recalled,) = await ledger.memory.recall("acme", "ana")
    assert recalled.expires_at <= now + timedelta(days=1)
    later = LongTermMemory(store, clock=lambda: now + timedelta(days=2))
    assert await later.recall("acme", "ana") == []
    assert statuses(await later.candidates("acme", "ana"))[BUDGET_KEY] == "expired"
    # A new proposal after the consent ended is blocked for that reason.
    session = ledger.session("acme", "trip-ana", user_id="ana")
    await session.propose_memory(
        key="preference.seat",
        value="window",
        category="preference",
        source_ids=["m6"],
        confidence=0.9,
    )
    found = {c.key: c.reason for c in await later.candidates("acme", "ana")}
    assert found["preference.seat"] == "consent expired"
    assert (await Promoter(store, clock=later.clock).run_once("acme")).promoted == 0


async def test_policy_gates(store: EventStore, tmp_path: Path) -> None:
    path = tmp_path / "policy.toml"
    path.write_text(
        'allowed_without_consent = ["preference"]\nmin_confidence = 0.85\n'
        'never_promote = ["health", "secrets"]\n',
        encoding="utf-8",
    )
    ledger = Ledger(store)
    session = await trip_session(ledger)
    memory = ledger.memory
    await memory.set_policy("acme", MemoryPolicy.from_toml(path))
    await session.propose_memory(
        key="preference.diet",
        value="vegetarian",
        category="preference",
        source_ids=["m6"],
        confidence=0.5,
    )
    await session.propose_memory(
        key="health.allergy",
        value="peanuts",
        category="health",
        source_ids=["m6"],
        confidence=0.99,
    )
    await memory.grant_consent("acme", "ana", categories=["health"], method="chat")
    await Promoter(store).run_once("acme")
    found = {c.key: (c.status, c.reason) for c in await memory.candidates("acme", "ana")}
    assert found[BUDGET_KEY] == ("promoted", None)
    assert found["preference.diet"] == ("blocked", "low confidence: 0.5 < 0.85")
    assert found["health.allergy"] == ("blocked", "sensitive: category 'health' is never promoted")
    (recalled,) = await memory.recall("acme", "ana")
    assert recalled.basis == "policy"

    # The policy changes: preferences now need consent, so the promoter retracts.
    await memory.set_policy("acme", MemoryPolicy())
    assert await memory.recall("acme", "ana") == []
    assert (await Promoter(store).run_once("acme")).retracted == 1
    found = {c.key: (c.status, c.reason) for c in await memory.candidates("acme", "ana")}
    assert found[BUDGET_KEY][0] == "retracted"
    assert "policy_changed" in str(found[BUDGET_KEY][1])


async def test_bad_requests_say_what_to_do(store: EventStore) -> None:
    ledger = Ledger(store)
    await trip_session(ledger)
    other = Ledger(store).session("globex", "s", user_id="bob")
    await other.append([{"id": "x1", "role": "user", "content": "hello"}])
    memory = ledger.memory
    acme_event = (await store.read_stream("acme", "session/trip-ana"))[1].event_id
    with pytest.raises(MemoryRequestError, match="does not have"):
        # Another tenant's event can never be a source.
        await memory.propose(
            "globex",
            "bob",
            key="k",
            value="v",
            category="preference",
            source_event_ids=[acme_event],
            confidence=1,
        )
    with pytest.raises(MemoryRequestError, match="confidence"):
        await memory.propose(
            "acme",
            "ana",
            key="k",
            value="v",
            category="preference",
            source_event_ids=[acme_event],
            confidence=2,
        )
    with pytest.raises(MemoryRequestError, match="needs a scope"):
        await memory.grant_consent("acme", "ana", method="chat")
    with pytest.raises(MemoryRequestError, match="not in the future"):
        await memory.grant_consent(
            "acme",
            "ana",
            categories=["preference"],
            method="chat",
            expires_at=datetime(2020, 1, 1, tzinfo=UTC),
        )
    with pytest.raises(MemoryRequestError, match="no unrevoked consent"):
        await memory.revoke_consent("acme", "ana", categories=["x"], reason="r", method="m")
    with pytest.raises(MemoryRequestError, match="say which consents"):
        await memory.revoke_consent("acme", "ana", reason="r", method="m")
    with pytest.raises(MemoryRequestError, match="without '/'"):
        await memory.recall("acme", "ana/other")
    with pytest.raises(MemoryRequestError, match="has no user"):
        await ledger.session("acme", "trip-ana").propose_memory(
            key="k", value="v", category="preference", source_ids=["m2"], confidence=1
        )
    with pytest.raises(MemoryRequestError, match="has no message 'nope'"):
        await ledger.session("acme", "trip-ana", user_id="ana").propose_memory(
            key="k", value="v", category="preference", source_ids=["nope"], confidence=1
        )


async def test_racing_promoters_decide_each_proposal_once(store: EventStore) -> None:
    ledger = Ledger(store)
    session = await trip_session(ledger)
    for i in range(30):
        await session.propose_memory(
            key=f"preference.item{i}",
            value=f"value {i}",
            category="preference",
            source_ids=["m2"],
            confidence=0.9,
        )
    await ledger.memory.grant_consent("acme", "ana", categories=["preference"], method="chat")
    reports = await asyncio.gather(
        *(Promoter(store, batch_size=3).run_once("acme") for _ in range(3))
    )
    assert sum(r.promoted for r in reports) == 31
    events = await store.read_stream("acme", memory_stream("ana"))
    promoted = [e.data["proposal_id"] for e in events if e.type == "MemoryPromoted"]  # type: ignore[index]
    assert len(promoted) == len(set(promoted)) == 31


async def test_secrets_never_become_memories(store: EventStore) -> None:
    """A proposal's value passes the summarizer's redaction before it is recorded, so a
    promoted memory can never carry a card number or an API key."""
    ledger = Ledger(store)
    await trip_session(ledger)
    source = (await store.read_stream("acme", "session/trip-ana"))[1].event_id
    proposal = await ledger.memory.propose(
        "acme",
        "ana",
        key="payment.card",
        value="card 4111 1111 1111 1111, key sk-proj-abcdefghijklmnop1234",
        category="preference",
        source_event_ids=[source],
        confidence=1,
    )
    assert proposal.data is not None
    stored = proposal.data["value"]
    assert "4111" not in stored
    assert "sk-proj" not in stored
    assert "[redacted:card_number]" in stored
    assert "[redacted:api_key]" in stored
