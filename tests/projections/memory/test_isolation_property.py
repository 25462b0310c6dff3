"""Property: whatever happens across tenants and users, recall and candidates return only the
memories of the tenant and user asked for (hypothesis drives random operations)."""

from __future__ import annotations

import asyncio
import contextlib
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from eventstore import EventStore
from projections.errors import MemoryNotFoundError, MemoryRequestError
from projections.ledger import Ledger
from projections.memory import Promoter

TENANTS = ["t1", "t2", "t3"]
USERS = ["u1", "u2", "u3"]

operation = st.tuples(
    st.sampled_from(["propose", "grant", "revoke", "promote", "forget", "erase", "steal"]),
    st.sampled_from(TENANTS),
    st.sampled_from(USERS),
    st.integers(min_value=0, max_value=3),
)


async def play(url: str, operations: list[tuple[str, str, str, int]]) -> None:
    async with EventStore.open(url) as store:
        ledger = Ledger(store)
        sources: dict[tuple[str, str], list[str]] = {}
        for tenant in TENANTS:
            for user in USERS:
                session = ledger.session(tenant, f"s-{user}", user_id=user)
                events = await session.append(
                    [
                        {"id": f"m{i}", "role": "user", "content": f"{tenant} {user} {i}"}
                        for i in range(4)
                    ]
                )
                sources[(tenant, user)] = [str(e.event_id) for e in events]
        promoter, memory = Promoter(store), ledger.memory
        erased: set[tuple[str, str, int]] = set()
        for step, (op, tenant, user, n) in enumerate(operations):
            session = ledger.session(tenant, f"s-{user}", user_id=user)
            if op == "propose":
                propose = session.propose_memory(
                    key=f"preference.k{n}",
                    value=f"{tenant}|{user}|{step}",
                    category="preference",
                    source_ids=[f"m{n}"],
                    confidence=0.9,
                )
                if (tenant, user, n) in erased:
                    with pytest.raises(MemoryRequestError, match="erased message"):
                        await propose
                else:
                    await propose
            elif op == "grant":
                await memory.grant_consent(tenant, user, categories=["preference"], method="t")
            elif op == "revoke":
                with contextlib.suppress(MemoryRequestError):  # nothing to revoke
                    await memory.revoke_consent(
                        tenant, user, everything=True, reason="r", method="t"
                    )
            elif op == "promote":
                await promoter.run_once(tenant)
            elif op == "forget":
                with contextlib.suppress(MemoryNotFoundError):
                    await memory.forget(tenant, user, f"preference.k{n}", requested_by=user)
            elif op == "erase":
                if (tenant, user, n) in erased:
                    continue
                erased.add((tenant, user, n))
                await store.erase(
                    tenant, [sources[(tenant, user)][n]], reason="r", requested_by="d"
                )
            else:  # another tenant's source never becomes one of ours
                victim = TENANTS[(TENANTS.index(tenant) + 1) % len(TENANTS)]
                with pytest.raises(MemoryRequestError, match="does not have"):
                    await memory.propose(
                        tenant,
                        user,
                        key="preference.stolen",
                        value="x",
                        category="preference",
                        source_event_ids=[sources[(victim, user)][n]],
                        confidence=1,
                    )
            for t in TENANTS:
                for u in USERS:
                    for m in await memory.recall(t, u):
                        assert m.value.startswith(f"{t}|{u}|"), (t, u, m)
                        assert set(m.source_event_ids) <= set(sources[(t, u)])
                    for c in await memory.candidates(t, u):
                        assert c.value is None or c.value.startswith(f"{t}|{u}|")
        for tenant in TENANTS:
            assert (await store.verify(tenant)).ok


@settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(operation, min_size=1, max_size=25))
def test_recall_never_crosses_tenants_or_users_memory(
    operations: list[tuple[str, str, str, int]],
) -> None:
    asyncio.run(play("memory://", operations))


@settings(max_examples=8, deadline=None)
@given(st.lists(operation, min_size=5, max_size=20))
def test_recall_never_crosses_tenants_or_users_sqlite(
    operations: list[tuple[str, str, str, int]],
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        asyncio.run(play(str(Path(folder) / "ledger.db"), operations))
