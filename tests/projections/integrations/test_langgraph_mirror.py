"""A LangGraph thread mirrored into a ctxledger session: the graph's conversation in order,
each message once (through an interrupt, a resume and a fork), searchable and renderable;
erased with the thread; off on request."""

from __future__ import annotations

import asyncio
from pathlib import Path

from eventstore import EventStore
from projections.context.budget import Budget
from projections.integrations.langgraph import LedgerSaver
from projections.integrations.langgraph_mirror import mirror_session_id
from projections.ledger import Ledger
from tests.projections.integrations.test_langgraph_graph import run
from tests.projections.test_cli import ctxledger


async def _mirror(path: Path) -> tuple[list[tuple[str, str]], list[str], str]:
    async with EventStore.open(path) as store:
        session = Ledger(store).session("acme", mirror_session_id("trip"))
        messages = await session.messages()
        found = await session.search("G7311", k=3)
        rendered = await session.render(Budget(context_limit=2000, max_output_tokens=100))
        assert (await store.verify("acme")).ok
    return (
        [(m.role, m.id) for m in messages],
        [hit.message.id for hit in found],
        rendered.manifest.request_hash,
    )


def test_the_graphs_conversation_is_a_session(tmp_path: Path) -> None:
    path = tmp_path / "ledger.db"
    with LedgerSaver(EventStore.open(path), tenant_id="acme") as saver:
        run(saver)  # a tool call, an interrupt, a resume, then a fork
    order, found, request_hash = asyncio.run(_mirror(path))
    roles = [role for role, _ in order]
    assert roles == ["user", "assistant", "tool", "assistant", "user"]
    ids = [message_id for _, message_id in order]
    assert ids[:2] == ["human-1", "ai-call"]
    assert ids[3:] == ["ai-answer", "human-ok"]
    assert len(set(ids)) == len(ids)  # each once, though every checkpoint holds the list
    assert found  # "G7311" is in the call, the tool result and the answer
    assert request_hash


def test_the_mirror_is_erased_with_the_thread_and_can_be_off(tmp_path: Path) -> None:
    path = tmp_path / "ledger.db"
    with LedgerSaver(EventStore.open(path), tenant_id="acme") as saver:
        run(saver)
        saver.delete_thread("trip")

    async def readable() -> int:
        async with EventStore.open(path) as store:
            events = await store.read_stream("acme", f"session/{mirror_session_id('trip')}")
        return sum(event.data is not None for event in events)

    assert asyncio.run(readable()) == 0
    quiet = tmp_path / "quiet.db"
    with LedgerSaver(EventStore.open(quiet), tenant_id="acme", mirror=False) as saver:
        run(saver)

    async def streams() -> list[str]:
        async with EventStore.open(quiet) as store:
            return [head.stream_id for head in await store.streams("acme")]

    names = asyncio.run(streams())
    assert any(name.startswith("langgraph/") for name in names)
    assert not any(name.startswith("session/") for name in names)


def test_the_cli_reads_a_graphs_conversation(tmp_path: Path) -> None:
    """Through the real console script: the mirror is a session like any other."""
    path = tmp_path / "ledger.db"
    with LedgerSaver(EventStore.open(path), tenant_id="acme") as saver:
        run(saver)
    session = mirror_session_id("trip")
    shown = ctxledger("context", "--tenant", "acme", "--session", session, db=path)
    assert shown.returncode == 0, shown.stderr
    assert "G7311" in shown.stdout
    found = ctxledger("search", "--tenant", "acme", "--session", session, "G7311", db=path)
    assert found.returncode == 0, found.stderr
    assert "ai-answer" in found.stdout or "G7311" in found.stdout
