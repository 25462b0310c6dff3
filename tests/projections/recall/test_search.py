"""Search over the index read model, on every backend: ranking from the store's own figures
(the same on each), rebuilds give the same results, tenants never see each other's messages,
and an erased message is never found and leaves no copy in the index."""

from __future__ import annotations

from typing import Any

from eventstore import EventStore
from projections.ledger import Ledger
from projections.recall.index import SEARCH_INDEX
from projections.recall.search import find

CHAT = [
    {"id": "m1", "role": "user", "content": "My daughter Ana loves painting sunsets."},
    {"id": "m2", "role": "assistant", "content": "Lovely! Does she paint with oils?"},
    {
        "id": "m3",
        "role": "user",
        "content": "Watercolours. We also booked train G7311 to Hangzhou.",
    },
    {"id": "m4", "role": "assistant", "content": "G7311 leaves at 08:05 and arrives 09:02."},
    {"id": "m5", "role": "user", "content": "我们不要 G123，到达太晚了。"},
    {"id": "m6", "role": "assistant", "content": "好的，已排除 G123。"},
]


async def ids(session: Any, query: str, k: int = 10) -> list[str]:
    return [result.message.id for result in await session.search(query, k)]


async def test_search_ranks_by_bm25(store: EventStore) -> None:
    session = Ledger(store).session("acme", "trip")
    await session.append(CHAT)
    assert (await ids(session, "When does G7311 arrive?"))[0] == "m4"
    assert await ids(session, "paintings") == ["m2", "m1"]  # "paint", stemmed; m2 is shorter
    assert (await ids(session, "为什么排除G123"))[0] == "m6"  # bigrams and the id
    assert await ids(session, "the and of") == []  # nothing but stop words
    results = await session.search("G7311 Hangzhou", 5)
    assert [r.message.id for r in results] == ["m3", "m4"]
    assert results[0].score > results[1].score
    assert results[0].matched == ("g7311", "hangzhou")
    assert results[0].version == 3


async def test_a_rebuild_gives_the_same_results(store: EventStore) -> None:
    ledger = Ledger(store)
    session = ledger.session("acme", "trip")
    await session.append(CHAT)
    before = await session.search("G123 train Hangzhou", 10)
    await ledger.read_model(SEARCH_INDEX).rebuild("acme")
    assert await session.search("G123 train Hangzhou", 10) == before


async def test_tenants_never_see_each_others_messages(store: EventStore) -> None:
    ledger = Ledger(store)
    await ledger.session("acme", "trip").append(CHAT)
    other = ledger.session("globex", "trip")
    await other.append([{"id": "x1", "role": "user", "content": "Nothing about trains here."}])
    assert await ids(other, "G7311 Hangzhou") == []
    assert await ids(other, "trains") == ["x1"]


async def test_an_erased_message_is_never_found_and_leaves_no_row(store: EventStore) -> None:
    ledger = Ledger(store)
    session = ledger.session("acme", "trip")
    await session.append(CHAT)
    assert "m3" in await ids(session, "G7311")
    (event,) = [
        e
        for e in await store.read_stream("acme", "session/trip")
        if e.data and e.data["message"]["id"] == "m3"
    ]
    await store.erase("acme", [event.event_id], reason="GDPR art. 17", requested_by="dpo")
    assert "m3" not in await ids(session, "G7311 watercolours Hangzhou")
    name = ledger.read_model(SEARCH_INDEX).name
    assert await store.read_models.read("acme", name, [str(event.event_id)]) == []
    await ledger.read_model(SEARCH_INDEX).rebuild("acme")
    assert "m3" not in await ids(session, "G7311 watercolours Hangzhou")


async def test_search_as_of_an_earlier_version(store: EventStore) -> None:
    session = Ledger(store).session("acme", "trip")
    await session.append(CHAT[:2])
    before = await session.search("painting", 5)
    await session.append([*CHAT[2:], {"id": "m7", "role": "user", "content": "More painting!"}])
    assert [r.message.id for r in await session.search("painting", 5, at_version=2)] == [
        r.message.id for r in before
    ]
    assert await session.search("painting", 5, at_version=2) == before  # same scores too


async def test_feedback_expansion_adds_what_the_best_hits_share(store: EventStore) -> None:
    ledger = Ledger(store)
    session = ledger.session("acme", "trip")
    await session.append(CHAT)
    await session.append(
        [
            {"id": "m8", "role": "user", "content": "Hangzhou West Lake at sunset, then tea."},
            {"id": "m9", "role": "assistant", "content": "West Lake tea houses close at 18:00."},
            {"id": "m10", "role": "user", "content": "Sunset over West Lake in Hangzhou!"},
        ]
    )
    index = ledger.read_model(SEARCH_INDEX)
    plain = await find(index, "acme", "Hangzhou sunset", scopes=["session/trip"])
    expanded = await find(index, "acme", "Hangzhou sunset", scopes=["session/trip"], expand=True)
    assert [h.message.message_id for h in plain][:1] == [h.message.message_id for h in expanded][:1]
    # "west" and "lake", shared by the best hits, find m9, which has no query term
    assert "m9" not in [h.message.message_id for h in plain]
    assert "m9" in [h.message.message_id for h in expanded]
    again = await find(index, "acme", "Hangzhou sunset", scopes=["session/trip"], expand=True)
    assert again == expanded  # deterministic
