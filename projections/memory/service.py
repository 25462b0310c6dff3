"""``LongTermMemory``: propose, consent, policy, candidates, recall and forget, over the log.

Every call names a tenant and a user; reads fold only that user's two streams plus the
tenant's policy and erasure streams, merged in tenant-position order.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any
from uuid import UUID

from uuid_utils.compat import uuid7

from eventstore import EventStore, NewEvent, RecordedEvent
from eventstore.names import validate_tenant
from projections.audit import record_refusal
from projections.errors import MemoryRequestError
from projections.memory.events import (
    CONSENT_GRANTED,
    CONSENT_REVOKED,
    MEMORY_POLICY_SET,
    MEMORY_PROPOSED,
    POLICY_STREAM,
    ConsentGranted,
    ConsentRevoked,
    MemoryPolicySet,
    MemoryProposed,
    consent_stream,
    memory_stream,
    user_of_stream,
)
from projections.memory.forget import ForgetReceipt, forget_memory
from projections.memory.inputs import checked_user, validated
from projections.memory.policy import MemoryPolicy
from projections.memory.rules import Candidate, RecalledMemory, candidates, recall
from projections.memory.state import UserMemory
from projections.memory.view import USER_MEMORY
from projections.runner import ProjectionRunner
from projections.summaries.sanitize import SanitizeReport, redact_keyed

__all__ = ["At", "ForgetReceipt", "LongTermMemory"]

#: A point in time for time travel: a timestamp, or a tenant log position.
At = datetime | int | None

Clock = Callable[[], datetime]


class LongTermMemory:
    """Long-term memory of the users of every tenant in one store.

    Args:
        store: the event log.
        clock: the current time (UTC ``datetime.now`` by default); injected for tests.
    """

    def __init__(self, store: EventStore, *, clock: Clock | None = None) -> None:
        self.store = store
        self.clock: Clock = clock or (lambda: datetime.now(UTC))
        # The latest state of each user, kept current from the log (an erasure drops them).
        self.runner = ProjectionRunner(store, USER_MEMORY, snapshot_every=0)

    # -- writing -----------------------------------------------------------------------------

    async def propose(
        self,
        tenant_id: str,
        user_id: str,
        *,
        key: str,
        value: str,
        category: str,
        source_event_ids: Sequence[UUID | str],
        confidence: float,
        source_ids: Sequence[str] = (),
        session_id: str | None = None,
        origin: str = "explicit",
        summary_version: int | None = None,
        ttl_days: float | None = None,
        actor: str | None = None,
    ) -> RecordedEvent:
        """Record a candidate for long-term memory (``MemoryProposed`` on ``memory/<user>``).

        Nothing is promoted here: the promoter decides, from consent and the tenant policy.
        Secrets in ``value`` (keys, tokens, card numbers, ...; the whole value when ``key``
        names a secret, such as ``wifi password``; values under sensitive keys when it is a
        JSON object) are redacted as they are for a summarizer, before anything is recorded.

        Raises:
            MemoryRequestError: a field is not valid, or a source event is not in the tenant.
        """
        validate_tenant(tenant_id)
        checked_user(user_id)
        event_ids = [str(i) for i in source_event_ids]
        data = validated(
            MemoryProposed,
            "memory proposal",
            key=key,
            # The summarizer's redaction: a secret never becomes a long-lived memory.
            value=redact_keyed(key, value, SanitizeReport()),
            category=category,
            source_ids=list(source_ids),
            source_event_ids=event_ids,
            confidence=confidence,
            session_id=session_id,
            origin=origin,
            summary_version=summary_version,
            ttl_days=ttl_days,
        )
        try:
            found = {str(e.event_id) for e in await self.store.read_events(tenant_id, event_ids)}
        except ValueError as error:
            raise MemoryRequestError(f"memory proposal: {error}") from None
        missing = [i for i in event_ids if i not in found]
        if missing:
            await record_refusal(
                self.store,
                tenant_id,
                operation="memory.propose",
                reason="a cited source event is not in the tenant",
                references=len(missing),
            )
            raise MemoryRequestError(
                f"memory proposal cites events that tenant {tenant_id!r} does not have: "
                f"{', '.join(missing)}; cite the events the memory comes from"
            )
        (event,) = await self.store.append(
            tenant_id,
            memory_stream(user_id),
            [NewEvent(type=MEMORY_PROPOSED, data=data, actor=actor)],
        )
        return event

    async def grant_consent(
        self,
        tenant_id: str,
        user_id: str,
        *,
        categories: Sequence[str] = (),
        keys: Sequence[str] = (),
        expires_at: datetime | None = None,
        method: str,
        evidence_ids: Sequence[str] = (),
        session_id: str | None = None,
        actor: str | None = None,
    ) -> RecordedEvent:
        """Record the user's consent for memories of ``categories`` and/or ``keys`` (exact keys
        or glob patterns such as ``preference.travel.*``), until ``expires_at`` if given.

        Raises:
            MemoryRequestError: the scope is empty, or ``expires_at`` is naive or in the past.
        """
        validate_tenant(tenant_id)
        checked_user(user_id)
        if not categories and not keys:
            raise MemoryRequestError(
                "a consent needs a scope: at least one category or key (for example "
                "categories=['preference'])"
            )
        if expires_at is not None and expires_at.tzinfo is not None and expires_at <= self.clock():
            raise MemoryRequestError(
                f"consent expiry {expires_at.isoformat()} is not in the future"
            )
        data = validated(
            ConsentGranted,
            "consent",
            consent_id=str(uuid7()),
            user_id=user_id,
            categories=list(categories),
            keys=list(keys),
            expires_at=expires_at,
            method=method,
            evidence_ids=list(evidence_ids),
            session_id=session_id,
        )
        (event,) = await self.store.append(
            tenant_id,
            consent_stream(user_id),
            [NewEvent(type=CONSENT_GRANTED, data=data, actor=actor or user_id)],
        )
        return event

    async def revoke_consent(
        self,
        tenant_id: str,
        user_id: str,
        *,
        consent_id: str | None = None,
        categories: Sequence[str] = (),
        keys: Sequence[str] = (),
        everything: bool = False,
        reason: str = "withdrawn by the user",
        method: str,
        actor: str | None = None,
    ) -> RecordedEvent:
        """Revoke consents: the one named, those whose scope shares a category or key with the
        given ones, or (``everything=True``) all of them. By categories or keys, exactly those
        go: a consent for more is revoked and what is left of it granted again in the same
        append (same expiry, method and evidence). The promoter then retracts what they
        allowed (recall stops serving it at once).

        Raises:
            MemoryRequestError: no selector was given, or no unrevoked consent matches.
        """
        validate_tenant(tenant_id)
        checked_user(user_id)
        if consent_id is None and not categories and not keys and not everything:
            raise MemoryRequestError(
                "say which consents to revoke: a consent id, categories, keys, or everything"
            )
        state = await self.state(tenant_id, user_id)
        chosen = [
            c.consent_id
            for c in state.consents.values()
            if c.revoked_at is None
            and (
                everything
                or c.consent_id == consent_id
                or (c.data is not None and set(c.data.categories) & set(categories))
                or (c.data is not None and set(c.data.keys) & set(keys))
            )
        ]
        if not chosen:
            raise MemoryRequestError(
                f"user {user_id!r} of tenant {tenant_id!r} has no unrevoked consent matching "
                f"consent_id={consent_id!r}, categories={list(categories)}, keys={list(keys)}"
            )
        data = validated(
            ConsentRevoked, "consent revocation", consent_ids=chosen, reason=reason, method=method
        )
        events = [NewEvent(type=CONSENT_REVOKED, data=data, actor=actor or user_id)]
        if not everything and consent_id is None:  # by scope: exactly the scopes named go
            events += [
                NewEvent(type=CONSENT_GRANTED, data=rest, actor=actor or user_id)
                for c in state.consents.values()
                if c.consent_id in chosen and c.data is not None
                if (rest := _narrowed(c.data, categories, keys)) is not None
            ]
        recorded = await self.store.append(tenant_id, consent_stream(user_id), events)
        return recorded[0]

    async def set_policy(
        self, tenant_id: str, policy: MemoryPolicy, *, actor: str | None = None
    ) -> RecordedEvent:
        """Record the tenant's memory policy (it applies from now on; decisions name its
        version)."""
        validate_tenant(tenant_id)
        data = MemoryPolicySet(policy=policy).model_dump(mode="json")
        (event,) = await self.store.append(
            tenant_id, POLICY_STREAM, [NewEvent(type=MEMORY_POLICY_SET, data=data, actor=actor)]
        )
        return event

    async def policy(self, tenant_id: str) -> MemoryPolicy:
        """The tenant's current memory policy (the defaults if none was set)."""
        state = UserMemory(validate_tenant(tenant_id), "-")
        for event in await self.store.read_stream(tenant_id, POLICY_STREAM):
            state.apply(event)
        return state.policy

    async def forget(
        self,
        tenant_id: str,
        user_id: str,
        key_or_id: str,
        *,
        requested_by: str,
        reason: str = "the user asked to forget it",
    ) -> ForgetReceipt:
        """Forget a memory by key, memory id or proposal id: every proposal of it (promoted or
        not) and every memory promoted from them. Appends ``MemoryForgotten`` and erases the
        proposals' payloads (the only events holding the value); ``verify`` stays green.

        Calling it again finishes an erasure that an earlier call did not get to.

        Raises:
            MemoryNotFoundError: the user has no memory or proposal with that key or id.
        """
        validate_tenant(tenant_id)
        checked_user(user_id)
        return await forget_memory(self, tenant_id, user_id, key_or_id, requested_by, reason)

    # -- reading -----------------------------------------------------------------------------

    async def users(self, tenant_id: str) -> list[str]:
        """The users of a tenant that have a memory or consent stream."""
        streams = await self.store.streams(validate_tenant(tenant_id))
        return sorted({u for s in streams if (u := user_of_stream(s.stream_id)) is not None})

    async def state(
        self,
        tenant_id: str,
        user_id: str,
        *,
        at: At = None,
    ) -> UserMemory:
        """The user's memory folded from the log, up to ``at`` (a time or tenant position)."""
        validate_tenant(tenant_id)
        checked_user(user_id)
        if isinstance(at, datetime) and at.tzinfo is None:
            raise MemoryRequestError(
                f"'at' must carry a time zone, got the naive time {at.isoformat()}"
            )
        if isinstance(at, bool) or (at is not None and not isinstance(at, datetime | int)):
            raise MemoryRequestError(f"'at' is a datetime or a tenant position, got {at!r}")
        if at is None:
            return await self.runner.current(tenant_id, user_id)
        moment = at
        return await self.runner.fold(tenant_id, user_id, until=lambda e: _before(e, moment))

    async def candidates(self, tenant_id: str, user_id: str, *, at: At = None) -> list[Candidate]:
        """Every proposal of the user with its status: pending, blocked (and why), promoted,
        retracted, expired or forgotten."""
        state = await self.state(tenant_id, user_id, at=at)
        return candidates(state, _moment(at, state, self.clock))

    async def recall(
        self,
        tenant_id: str,
        user_id: str,
        keys: Sequence[str] | None = None,
        categories: Sequence[str] | None = None,
        at: At = None,
    ) -> list[RecalledMemory]:
        """The user's live memories: promoted, unexpired, still permitted and untainted, with
        source ids, confidence and expiry. Several values for one key are all returned, the
        newest first, each flagged ``conflict``. ``at`` gives the memory as it was then."""
        state = await self.state(tenant_id, user_id, at=at)
        return recall(
            state,
            _moment(at, state, self.clock),
            keys=list(keys) if keys is not None else None,
            categories=list(categories) if categories is not None else None,
        )


def _before(event: RecordedEvent, at: datetime | int) -> bool:
    if isinstance(at, datetime):
        return event.recorded_at <= at
    return event.position <= at


def _moment(at: At, state: UserMemory, clock: Clock) -> datetime:
    """The time rules are judged at: ``at`` itself, the time of the position, or now."""
    if isinstance(at, datetime):
        return at
    if at is None:
        return clock()
    return state.last_time or clock()


def _narrowed(
    consent: ConsentGranted, categories: Sequence[str], keys: Sequence[str]
) -> dict[str, Any] | None:
    """A consent for what ``consent`` allowed beyond the revoked scopes (same expiry, method
    and evidence; a new id), or None when nothing is left of it."""
    kept_categories = [c for c in consent.categories if c not in categories]
    kept_keys = [k for k in consent.keys if k not in keys]
    if not kept_categories and not kept_keys:
        return None
    return consent.model_copy(
        update={"consent_id": str(uuid7()), "categories": kept_categories, "keys": kept_keys}
    ).model_dump(mode="json")
