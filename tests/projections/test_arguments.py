"""A session's reads name a wrong argument before reading anything: what was wrong, what was
expected and what to pass, as a ledger error (never an AttributeError, IndexError or TypeError
from inside a render), through the async facade and the sync one."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from eventstore import EventStore, EventValidationError, LedgerError
from projections.context.budget import Budget
from projections.errors import ConfigurationError, MessageValidationError
from projections.ledger import Ledger, Session
from projections.sync import SyncLedger

BUDGET = Budget(context_limit=4000, max_output_tokens=100)

CASES: list[tuple[str, Callable[[Any], Any], type[LedgerError], str]] = [
    (
        "an int budget",
        lambda s: s.render(32000),
        ConfigurationError,
        r"pass Budget\(context_limit=32000",
    ),
    (
        "a format",
        lambda s: s.render(BUDGET, fmt="bogus"),
        ConfigurationError,
        "unknown format 'bogus'",
    ),
    (
        "a negative version",
        lambda s: s.render(BUDGET, at_version=-5),
        ConfigurationError,
        "at_version must be",
    ),
    (
        "a negative position",
        lambda s: s.render(BUDGET, at_position=-1),
        ConfigurationError,
        "at_position must be",
    ),
    (
        "a query as recall",
        lambda s: s.render(BUDGET, recall="hi"),
        ConfigurationError,
        r"RecallOptions\(query='hi'\)",
    ),
    (
        "negative keep_groups",
        lambda s: s.render(BUDGET, keep_groups=-1),
        ConfigurationError,
        "keep_groups must be",
    ),
    (
        "a string to pin",
        lambda s: s.pin("m1", reason="r"),
        MessageValidationError,
        r"pass \['m1'\]",
    ),
    (
        "no query",
        lambda s: s.search(None),
        ConfigurationError,
        "query must be a string, got NoneType",
    ),
    ("a negative k", lambda s: s.search("hi", k=-1), ConfigurationError, "k must be"),
    (
        "a version after the head",
        lambda s: s.render(BUDGET, at_version=3),
        MessageValidationError,
        r"session s is at version 2: at_version 3 is after it",
    ),
    (
        "a search after the head",
        lambda s: s.search("hi", at_version=99),
        MessageValidationError,
        "at_version 99 is after it",
    ),
    (
        "a state after the head",
        lambda s: s.state(at_version=5),
        MessageValidationError,
        r"session s is at version 2: at_version 5 is after it",
    ),
    (
        "a negative state version",
        lambda s: s.state(at_version=-1),
        ConfigurationError,
        "at_version must be",
    ),
    (
        "a number to read",
        lambda s: s.read_message(5),
        ConfigurationError,
        "reference must be a string",
    ),
]


@pytest.fixture
def session() -> Iterator[Session]:
    async def opened() -> tuple[EventStore, Session]:
        store = EventStore.open("memory://")
        await store.initialize()
        session = Ledger(store).session("acme", "s")
        await session.append(
            [
                {"id": "m1", "role": "user", "content": "hi"},
                {"id": "m2", "role": "assistant", "content": "hello"},
            ]
        )
        return store, session

    store, session = asyncio.run(opened())
    yield session
    asyncio.run(store.close())


@pytest.mark.parametrize(("what", "call", "error", "message"), CASES, ids=[c[0] for c in CASES])
def test_a_wrong_argument_is_named(
    session: Session, what: str, call: Callable[[Any], Any], error: type[LedgerError], message: str
) -> None:
    async def attempt() -> None:
        with pytest.raises(error, match=message):
            await call(session)
        assert (await session.latest()).version == 2  # nothing was written

    asyncio.run(attempt())


def test_the_sync_facade_names_them_too(tmp_path: Any) -> None:
    with SyncLedger(tmp_path / "ledger.db") as ledger:
        session = ledger.session("acme", "s")
        session.append([{"id": "m1", "role": "user", "content": "hi"}])
        with pytest.raises(ConfigurationError, match="budget must be a Budget"):
            session.render(32000)
        with pytest.raises(ConfigurationError, match="query must be a string"):
            session.search(None)


async def test_erase_names_a_string_of_ids() -> None:
    async with EventStore.open("memory://") as store:
        with pytest.raises(EventValidationError, match=r"pass \['abc'\]"):
            await Ledger(store).erase("acme", "abc", reason="r", requested_by="me")


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"snapshot_every": -1}, "snapshot_every must be a whole number >= 0, got -1"),
        ({"body_cache_bytes": -5}, "body_cache_bytes must be a whole number >= 0, got -5"),
        ({"cached_bytes": "x"}, "cached_bytes"),
        ({"cached_sessions": 0}, "cached_sessions"),
    ],
)
async def test_a_ledgers_bounds_are_checked(options: dict[str, Any], message: str) -> None:
    async with EventStore.open("memory://") as store:
        with pytest.raises(ConfigurationError, match=message):
            Ledger(store, **options)


async def test_a_sessions_names_are_checked_when_it_is_named() -> None:
    async with EventStore.open("memory://") as store:
        ledger = Ledger(store)
        with pytest.raises(EventValidationError, match="tenant must not be empty"):
            ledger.session("", "s")
        with pytest.raises(ConfigurationError, match="session_id must be a string"):
            ledger.session("acme", None)  # type: ignore[arg-type]


async def test_compact_checks_its_budget_and_keep_groups() -> None:
    async with EventStore.open("memory://") as store:
        session = Ledger(store).session("acme", "s")
        with pytest.raises(ConfigurationError, match="budget must be a Budget"):
            await session.compact(32000)  # type: ignore[arg-type]
        with pytest.raises(ConfigurationError, match="keep_groups must be"):
            await session.compact(BUDGET, keep_groups=-1)


async def test_a_model_calls_figures_are_checked() -> None:
    async with EventStore.open("memory://") as store:
        session = Ledger(store).session("acme", "s")
        with pytest.raises(MessageValidationError, match="input_tokens: Input should be greater"):
            await session.record_model_call(input_tokens=-1, output_tokens=1)
        assert (await session.latest()).version == 0
