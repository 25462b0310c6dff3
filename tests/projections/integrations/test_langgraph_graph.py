"""A real LangGraph graph (a tool node, an interrupt, a fork) run on ``LedgerSaver`` and on
LangGraph's own ``SqliteSaver``: the same final state and the same history; the ledger's
thread verifies, and its messages are stored once."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path
from typing import Annotated, Any, TypedDict

from langchain_core.messages import AIMessage, AnyMessage, HumanMessage, ToolMessage
from langchain_core.tools import tool
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages
from langgraph.prebuilt import ToolNode
from langgraph.types import Command, interrupt

from eventstore import EventStore
from projections.integrations.langgraph import LedgerSaver


class State(TypedDict):
    messages: Annotated[list[AnyMessage], add_messages]
    approved: bool


@tool
def price(train: str) -> str:
    """The price of a train."""
    return f"{train}: 73 CNY"


def agent(state: State) -> dict[str, Any]:
    last = state["messages"][-1]
    if isinstance(last, ToolMessage):
        return {"messages": [AIMessage(content=f"Booking? {last.content}", id="ai-answer")]}
    call = {"name": "price", "args": {"train": "G7311"}, "id": "call-1", "type": "tool_call"}
    return {"messages": [AIMessage(content="", tool_calls=[call], id="ai-call")]}


def approve(state: State) -> dict[str, Any]:
    answer = interrupt("book G7311?")
    return {"approved": answer == "yes", "messages": [HumanMessage(content=answer, id="human-ok")]}


def route(state: State) -> str:
    return "tools" if state["messages"][-1].tool_calls else "approve"


def build() -> Any:
    graph = StateGraph(State)
    graph.add_node("agent", agent)
    graph.add_node("tools", ToolNode([price]))
    graph.add_node("approve", approve)
    graph.add_edge(START, "agent")
    graph.add_conditional_edges("agent", route, ["tools", "approve"])
    graph.add_edge("tools", "agent")
    graph.add_edge("approve", END)
    return graph


def run(checkpointer: Any) -> dict[str, Any]:
    app = build().compile(checkpointer=checkpointer)
    config = {"configurable": {"thread_id": "trip"}}
    app.invoke({"messages": [HumanMessage(content="Price of G7311?", id="human-1")]}, config)
    paused = app.get_state(config)
    app.invoke(Command(resume="yes"), config)
    final = app.get_state(config)
    history = list(app.get_state_history(config))
    fork_from = next(s for s in history if s.next == ("approve",))
    fork = app.update_state(fork_from.config, {"approved": False}, as_node="approve")
    forked = app.get_state(fork).values
    return {
        "paused_next": paused.next,
        "interrupt": [i.value for i in paused.tasks[0].interrupts],
        "final": _plain(final.values),
        "history": [
            (s.next, s.metadata.get("step"), len(s.values.get("messages", []))) for s in history
        ],
        "forked": _plain(forked),
        "after_fork": len(list(app.get_state_history(config))),
    }


def _plain(values: dict[str, Any]) -> dict[str, Any]:
    return {
        "approved": values.get("approved"),
        # ToolNode gives its ToolMessage a random id: compare the call it answers instead.
        "messages": [
            (type(m).__name__, m.content, getattr(m, "tool_call_id", None) or m.id)
            for m in values["messages"]
        ],
    }


def test_same_graph_same_state_and_history(tmp_path: Path) -> None:
    connection = sqlite3.connect(tmp_path / "langgraph.db", check_same_thread=False)
    theirs = run(SqliteSaver(connection))
    with LedgerSaver(EventStore.open(tmp_path / "ledger.db"), tenant_id="acme") as saver:
        ours = run(saver)
    assert ours == theirs
    assert ours["paused_next"] == ("approve",)
    assert ours["interrupt"] == ["book G7311?"]
    assert ours["final"]["approved"] is True
    assert ours["forked"]["approved"] is False
    assert ours["after_fork"] > len(ours["history"])


async def test_the_thread_verifies_and_stores_messages_once(tmp_path: Path) -> None:
    path = tmp_path / "ledger.db"
    with LedgerSaver(EventStore.open(path), tenant_id="acme") as saver:
        run(saver)
    async with EventStore.open(path) as store:
        assert (await store.verify("acme")).ok
        events = await store.read_stream("acme", "langgraph/trip")
    stored_messages = [
        channel
        for e in events
        if e.type == "LangGraphCheckpointSaved" and e.data
        for channel in e.data["blobs"]
        if channel == "messages"
    ]
    checkpoints = [e for e in events if e.type == "LangGraphCheckpointSaved"]
    assert len(stored_messages) < len(checkpoints)  # only when the list changed


def test_a_cold_saver_rebuilds_long_delta_chains_and_edits(tmp_path: Path) -> None:
    from tests.benchmarks.bench_langgraph import graph as steps_graph

    path = tmp_path / "ledger.db"
    config = {"configurable": {"thread_id": "long"}, "recursion_limit": 400}
    with LedgerSaver(EventStore.open(path), tenant_id="acme") as saver:
        app = steps_graph(300).compile(checkpointer=saver)
        app.invoke({"messages": [], "steps": 0}, config)
    with LedgerSaver(EventStore.open(path), tenant_id="acme") as cold:
        app = steps_graph(300).compile(checkpointer=cold)
        state = app.get_state(config)
        assert [m.id for m in state.values["messages"]] == [f"m{n}" for n in range(1, 301)]
        middle = next(s for s in app.get_state_history(config) if s.values.get("steps") == 150)
        assert len(middle.values["messages"]) == 150
        edited = AIMessage(content="rewritten", id="m7")  # add_messages replaces by id
        app.update_state(config, {"messages": [edited]}, as_node="step")
        after = app.get_state(config).values["messages"]
        assert len(after) == 300
        assert after[6].content == "rewritten"


def test_from_conn_string_as_langgraphs_own_savers(tmp_path: Path) -> None:
    """``with LedgerSaver.from_conn_string(...)`` as ``SqliteSaver.from_conn_string``, and
    ``async with`` as ``AsyncSqliteSaver.from_conn_string``: the saver is closed on exit."""
    path, config = str(tmp_path / "ledger.db"), {"configurable": {"thread_id": "trip"}}
    with LedgerSaver.from_conn_string(path, tenant_id="acme") as saver:
        ours = run(saver)
        expected = len(list(saver.list(config)))  # type: ignore[arg-type]
    assert ours["final"]["approved"] is True
    assert saver._loop.stopped
    assert expected > 0

    async def again() -> int:
        async with LedgerSaver.from_conn_string(path, tenant_id="acme") as reopened:
            history = [c async for c in reopened.alist(config)]  # type: ignore[arg-type]
        assert reopened._loop.stopped
        return len(history)

    assert asyncio.run(again()) == expected
