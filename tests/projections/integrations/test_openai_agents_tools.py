"""Recall as Agents SDK function tools, through the real ``Runner`` with a scripted model: the
agent searches its history, reads a message whole, searches again with what it read, and
answers from the log's text; arguments a tool does not take come back as an error it reads."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agents import Agent, Runner
from agents.items import ModelResponse
from agents.models.interface import Model
from agents.usage import Usage

from eventstore import EventStore
from projections.integrations.openai_agents import LedgerSession
from projections.ledger import Ledger
from tests.projections.integrations.fake_model import StreamsItsResponses, called, said


class Researcher(StreamsItsResponses, Model):
    """search_history -> read_message -> search_history again (by what it read) -> answer;
    first a call with arguments the tool does not take."""

    def __init__(self) -> None:
        super().__init__()
        self.outputs: list[dict[str, Any]] = []

    async def get_response(
        self, system_instructions: Any, input: Any, *args: Any, **kwargs: Any
    ) -> ModelResponse:
        items, turn = self.record(input)
        last = items[-1]
        output: list[Any]
        if last.get("type") != "function_call_output":
            if "train" not in str(last.get("content", "")):
                return ModelResponse(output=[said(turn, "Noted.")], usage=Usage(), response_id=None)
            output = [called(turn, "search_history", {"k": 99})]  # no query, k out of range
        else:
            result = json.loads(last["output"])
            self.outputs.append(result)
            step = len(self.outputs)
            if step == 1:
                output = [called(turn, "search_history", {"query": "booked train", "k": 3})]
            elif step == 2:
                hit = next(hit for hit in result["results"] if "G7311" in hit["text"])
                output = [called(turn, "read_message", {"id": hit["id"]})]
            elif step == 3:
                seat = str(result["message"]["content"]).split("seat ")[1].split(".")[0]
                output = [called(turn, "search_history", {"query": f"seat {seat}", "k": 2})]
            else:
                output = [said(turn, f"Found: {result['results'][0]['text']}")]
        return ModelResponse(output=output, usage=Usage(), response_id=None)


async def test_an_agent_searches_reads_and_searches_again(tmp_path: Path) -> None:
    async with EventStore.open(tmp_path / "ledger.db") as store:
        session = LedgerSession("trip", Ledger(store), tenant_id="acme")
        await session.add_items(
            [
                {"role": "user", "content": "I booked train G7311 to Hangzhou, seat 14C."},
                {"role": "assistant", "content": "Noted: G7311, seat 14C."},
                {"role": "user", "content": "Seat 14C is by the window, next to the bar car."},
                *({"role": "user", "content": f"Stop {i}: museum and lunch."} for i in range(30)),
            ]
        )
        model = Researcher()
        agent = Agent(name="planner", model=model, tools=session.recall_tools())
        result = await Runner.run(agent, "Which train did I book?", session=session)

        assert [tool.name for tool in agent.tools] == ["search_history", "read_message"]
        refused, found, read, again = model.outputs
        assert "query" in refused["error"]
        assert "search_history" in refused["error"]
        assert any("G7311" in hit["text"] for hit in found["results"])
        assert read["message"]["content"] == "I booked train G7311 to Hangzhou, seat 14C."
        assert "bar car" in " ".join(hit["text"] for hit in again["results"])
        assert "G7311" in str(result.final_output) or "14C" in str(result.final_output)
        assert (await store.verify("acme")).ok
