"""Recall as tools of an OpenAI Agents SDK agent: ``search_history`` and ``read_message`` as
the SDK's own ``FunctionTool`` objects, on the session the agent runs in.

An agent searches, reads a message whole (a tool result served masked, say), and searches
again with what it learned, in one run; the results come from the log, checked, like the MCP
server's same two tools (:mod:`projections.recall.tools`)::

    session = LedgerSession("trip", ledger, tenant_id="acme")
    agent = Agent(name="planner", tools=[*recall_tools(session)])
    await Runner.run(agent, "Which train did I book last week?", session=session)

A call with arguments the tool does not take gets an error the model can read (what was
wrong, what the tool takes), never an exception out of the run.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from projections.errors import MessageValidationError
from projections.recall.tools import RECALL_TOOLS, call_recall_tool

if TYPE_CHECKING:
    from agents import FunctionTool

    from projections.integrations.openai_agents import LedgerSession

__all__ = ["recall_tools"]


def recall_tools(session: LedgerSession) -> list[FunctionTool]:
    """The two recall tools on ``session`` (its current generation when the tool runs)."""
    from agents import FunctionTool

    def tool(definition: dict[str, Any]) -> FunctionTool:
        name = definition["function"]["name"]

        async def invoke(context: Any, arguments: str) -> str:
            try:
                return await call_recall_tool(await session.current(), name, arguments or "{}")
            except (MessageValidationError, json.JSONDecodeError) as error:
                return json.dumps({"error": str(error)}, ensure_ascii=False)

        return FunctionTool(
            name=name,
            description=definition["function"]["description"],
            params_json_schema=definition["function"]["parameters"],
            on_invoke_tool=invoke,
            strict_json_schema=False,  # k has a default: strict schemas require every field
        )

    return [tool(definition) for definition in RECALL_TOOLS]
