"""Random appends, erasures and searches: no erased text is ever returned, by search or by a
render with recall (BM25 alone, and fused with the embedding ranker), and neither the index
rows nor the vectors hold anything of an erased message once the erasure is recorded (SQLite
file and the memory backend)."""

from __future__ import annotations

import asyncio
import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from eventstore import EventStore
from projections.context.budget import Budget
from projections.ledger import Ledger
from projections.recall.index import SEARCH_INDEX
from projections.recall.search import RecallOptions
from tests.projections.recall.concepts import ConceptEmbedder

WORDS = ["train", "G7311", "Hangzhou", "budget", "排除", "酒店", "sunset", "painting", "omar_3817"]
TEXT = st.lists(st.sampled_from(WORDS), min_size=1, max_size=5).map(" ".join)
STEP = st.one_of(
    st.tuples(st.just("append"), TEXT),
    st.tuples(st.just("erase"), st.integers(0, 40)),
    st.tuples(st.just("search"), TEXT),
)
BUDGET = Budget(context_limit=260, max_output_tokens=0, tool_reserve=0, safety_margin=0)


async def play(url: str, steps: list[tuple[str, object]], ranker: str) -> None:
    async with EventStore.open(url) as store:
        ledger = Ledger(store, embedder=ConceptEmbedder() if ranker == "vectors" else None)
        session = ledger.session("acme", "s")
        appended: list[tuple[str, str]] = []  # (event id, secret word)
        erased: set[str] = set()
        for number, (kind, value) in enumerate(steps):
            if kind == "append":
                secret = f"secret{number}x"  # never a prefix of another
                (event,) = await session.append(
                    [{"id": f"m{number}", "role": "user", "content": f"{value} {secret}"}]
                )
                appended.append((str(event.event_id), secret))
            elif kind == "erase" and appended:
                event_id, secret = appended[int(str(value)) % len(appended)]
                if secret not in erased:
                    await store.erase("acme", [event_id], reason="r", requested_by="t")
                    erased.add(secret)
            else:
                await check(ledger, session, str(value), erased, appended)
        await check(ledger, session, " ".join(WORDS), erased, appended)


async def check(
    ledger: Ledger, session: object, query: str, erased: set[str], appended: list[tuple[str, str]]
) -> None:
    results = await session.search(query + " " + " ".join(erased), 50)  # type: ignore[attr-defined]
    for result in results:
        assert not any(secret in str(result.message.content) for secret in erased)
    rendered = await session.render(BUDGET, keep_groups=1, recall=RecallOptions(query=query))  # type: ignore[attr-defined]
    sent = json.dumps(rendered.wire)
    assert not any(secret in sent for secret in erased)
    name = ledger.read_model(SEARCH_INDEX).name
    keys = [event_id for event_id, _ in appended]
    rows = await ledger.store.read_models.read("acme", name, keys)
    assert not any(secret in row.terms for row in rows for secret in erased)
    if ledger.vectors is not None:
        vectors = ledger.read_model(ledger.vectors).name
        kept = {row.key for row in await ledger.store.read_models.read("acme", vectors, keys)}
        assert not kept & {event_id for event_id, secret in appended if secret in erased}


@pytest.mark.parametrize("ranker", ["bm25", "vectors"])
@pytest.mark.parametrize("backend", ["memory", "sqlite"])
@settings(
    max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(steps=st.lists(STEP, min_size=1, max_size=25))
def test_no_erased_text_is_ever_returned(
    backend: str, ranker: str, steps: list[tuple[str, object]]
) -> None:
    if backend == "memory":
        asyncio.run(play("memory://", steps, ranker))
        return
    with tempfile.TemporaryDirectory() as directory:
        asyncio.run(play(str(Path(directory) / "ledger.db"), steps, ranker))
