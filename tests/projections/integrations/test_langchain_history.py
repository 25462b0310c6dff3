"""LangChain's chat history on ctxledger: ``RunnableWithMessageHistory`` with a fake chat model
(no network) gives the same messages on ``LedgerChatMessageHistory`` as on LangChain's own
``InMemoryChatMessageHistory``, sync and async; tool calls round-trip; ``clear`` is not
destructive; a new process reads the same conversation; ``budget`` serves the compacted
context; the CLI finds the session by the id the user gave."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from langchain_core.chat_history import BaseChatMessageHistory, InMemoryChatMessageHistory
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.prompts import ChatPromptTemplate, MessagesPlaceholder
from langchain_core.runnables.history import RunnableWithMessageHistory

from eventstore import EventStore
from projections.context.budget import Budget
from projections.integrations.langchain_history import LedgerChatMessageHistory
from projections.recall.search import RecallOptions
from tests.conftest import ROOT
from tests.projections.test_cli import ctxledger

# LangChain 1.6 deprecated chat histories for LangGraph's persistence; the API is still served.
pytestmark = pytest.mark.filterwarnings("ignore::langchain_core._api.LangChainDeprecationWarning")

REPLIES = ["G7311 costs 73 CNY.", "It leaves at 08:05.", "Booked."]
QUESTIONS = ["Price of G7311?", "When does it leave?", "Book it."]


def chain(history: BaseChatMessageHistory) -> RunnableWithMessageHistory:
    prompt = ChatPromptTemplate.from_messages(
        [("system", "You plan trains."), MessagesPlaceholder("history"), ("human", "{question}")]
    )
    return RunnableWithMessageHistory(
        prompt | FakeListChatModel(responses=REPLIES),
        lambda session_id: history,
        input_messages_key="question",
        history_messages_key="history",
    )


def plain(messages: list[Any]) -> list[tuple[str, str]]:
    return [(m.type, str(m.content)) for m in messages]


def test_same_conversation_as_langchains_own_history(tmp_path: Path) -> None:
    reference = InMemoryChatMessageHistory()
    theirs = chain(reference)
    for question in QUESTIONS:
        theirs.invoke({"question": question}, {"configurable": {"session_id": "t"}})
    with LedgerChatMessageHistory.open(str(tmp_path / "l.db"), "trip", tenant_id="acme") as ours:
        runnable = chain(ours)
        for question in QUESTIONS:
            runnable.invoke({"question": question}, {"configurable": {"session_id": "trip"}})
        assert plain(ours.messages) == plain(reference.messages)
        assert len(ours.messages) == 6


async def test_async_tool_calls_round_trip_and_clear_keeps_the_log(tmp_path: Path) -> None:
    path = tmp_path / "l.db"
    call = {"id": "call-1", "name": "price", "args": {"train": "G7311", "class": "second"}}
    added = [
        HumanMessage(content="Price of G7311?", id="h1"),
        AIMessage(content="", id="a1", tool_calls=[call], response_metadata={"model": "fake"}),
        ToolMessage(content='{"price_cny": 73}', tool_call_id="call-1", id="t1"),
        AIMessage(content="73 CNY.", id="a2", name="planner"),
    ]
    with LedgerChatMessageHistory.open(str(path), "trip", tenant_id="acme") as history:
        await history.aadd_messages(added)
        assert await history.aget_messages() == added  # exactly what was added
        reloaded = (await history.aget_messages())[1]
        assert list(reloaded.tool_calls[0]["args"]) == ["train", "class"]  # in their order
        session = await history._loop.run(history.session())
        state = await history._loop.run(session.latest())
        assert [m.role for m in state.messages] == ["user", "assistant", "tool", "assistant"]
        assert state.grouper.issues == []  # the tool call and its result are one group
        await history.aclear()
        assert await history.aget_messages() == []
        history.add_messages([HumanMessage(content="Start over.", id="h2")])
        assert plain(history.messages) == [("human", "Start over.")]
    async with EventStore.open(path) as store:
        assert (await store.verify("acme")).ok
        kept = [
            s.stream_id for s in await store.streams("acme") if s.stream_id.startswith("session/")
        ]
        assert len(kept) == 2  # the cleared generation is still in the log
    shown = ctxledger("context", "--tenant", "acme", "--session", "trip", "--json", db=path)
    assert shown.returncode == 0, shown.stderr
    assert json.loads(shown.stdout)["manifest"]["message_ids"] == ["h2"]


def test_a_new_process_reads_the_same_conversation(tmp_path: Path) -> None:
    path = tmp_path / "l.db"
    with LedgerChatMessageHistory.open(str(path), "trip", tenant_id="acme") as history:
        runnable = chain(history)
        for question in QUESTIONS[:2]:
            runnable.invoke({"question": question}, {"configurable": {"session_id": "trip"}})
    script = (
        "import sys, json\n"
        "from projections.integrations.langchain_history import LedgerChatMessageHistory\n"
        "with LedgerChatMessageHistory.open(sys.argv[1], 'trip', tenant_id='acme') as h:\n"
        "    print(json.dumps([[m.type, m.content] for m in h.messages]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(path)], cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [
        ["human", QUESTIONS[0]],
        ["ai", REPLIES[0]],
        ["human", QUESTIONS[1]],
        ["ai", REPLIES[1]],
    ]


def test_budget_serves_the_compacted_context(tmp_path: Path) -> None:
    budget = Budget(context_limit=400, max_output_tokens=50, tool_reserve=0, safety_margin=0)
    path = str(tmp_path / "l.db")
    with LedgerChatMessageHistory.open(path, "long", tenant_id="acme", budget=budget) as history:
        for turn in range(60):
            history.add_messages(
                [
                    HumanMessage(content=f"Question {turn}: what about train G{7000 + turn}?"),
                    AIMessage(content=f"Train G{7000 + turn} leaves at {turn % 24:02d}:15."),
                ]
            )
        served = history.messages
        assert 0 < len(served) < 120  # the window under the budget, not all 120
        assert served[-1].content == "Train G7059 leaves at 11:15."


def test_recall_pages_back_an_old_turn_for_the_latest_question(tmp_path: Path) -> None:
    budget = Budget(context_limit=600, max_output_tokens=50, tool_reserve=0, safety_margin=0)
    path = str(tmp_path / "l.db")
    with LedgerChatMessageHistory.open(
        path, "long", tenant_id="acme", budget=budget, recall=RecallOptions(share=0.3)
    ) as history:
        history.add_messages([HumanMessage("My seat on the sleeper is berth 14B.")])
        for turn in range(40):
            history.add_messages(
                [HumanMessage(f"Stop {turn}: any delays?"), AIMessage(f"None at stop {turn}.")]
            )
        history.add_messages([HumanMessage("Which berth is my seat on the sleeper?")])
        served = history.messages
        recalled = [m for m in served if "<recalled trust='untrusted'>" in str(m.content)]
        assert len(recalled) == 1
        assert "berth 14B" in str(recalled[0].content)
        assert served[-1].content == "Which berth is my seat on the sleeper?"
        with LedgerChatMessageHistory.open(path, "long", tenant_id="acme") as raw:
            assert not any("<recalled" in str(m.content) for m in raw.messages)  # never stored


def test_recall_without_a_budget_is_refused(tmp_path: Path) -> None:
    from projections.errors import ConfigurationError

    with pytest.raises(ConfigurationError, match="give a budget too"):
        LedgerChatMessageHistory.open(
            str(tmp_path / "l.db"), "x", tenant_id="acme", recall=RecallOptions()
        )


def test_a_message_without_a_role_is_a_clear_error(tmp_path: Path) -> None:
    from langchain_core.messages import ChatMessage

    from projections.errors import LedgerError

    with LedgerChatMessageHistory.open(str(tmp_path / "l.db"), "t", tenant_id="acme") as history:
        with pytest.raises(LedgerError, match="expected a human, AI, tool or system message"):
            history.add_messages([ChatMessage(role="critic", content="meh")])
        assert history.messages == []
