"""Tools an agent can call to page history back in itself: ``search_history`` (the best
matching messages of its session) and ``read_message`` (one message whole, by its id or its
event's id, e.g. a result served masked). The definitions are JSON Schema in the OpenAI
function-calling shape; :func:`call_recall_tool` runs one call and returns JSON text for the
tool result. The MCP server of the integrations serves the same two tools.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from projections.context.messages import shown_text
from projections.errors import MessageValidationError

if TYPE_CHECKING:
    from projections.session_reads import SessionReads

__all__ = ["RECALL_TOOLS", "call_recall_tool"]

RECALL_TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": "search_history",
            "description": (
                "Search this conversation's whole history, including what no longer fits the "
                "context, for messages matching a query; returns ids, versions, roles, scores "
                "and texts, best first."
            ),
            "parameters": {
                "type": "object",
                "properties": {
                    "query": {"type": "string", "description": "words to look for"},
                    "k": {"type": "integer", "minimum": 1, "maximum": 20, "default": 5},
                },
                "required": ["query"],
                "additionalProperties": False,
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "read_message",
            "description": (
                "Read one earlier message of this conversation in full, by its message id or "
                "by the event id a masked result names."
            ),
            "parameters": {
                "type": "object",
                "properties": {"id": {"type": "string", "description": "message or event id"}},
                "required": ["id"],
                "additionalProperties": False,
            },
        },
    },
]


async def call_recall_tool(
    session: SessionReads, name: str, arguments: str | dict[str, Any]
) -> str:
    """Run one recall tool call on ``session``; the JSON text to return as its result.

    Raises:
        MessageValidationError: an unknown tool, or arguments that are not what it takes.
    """
    args = json.loads(arguments) if isinstance(arguments, str) else arguments
    if not isinstance(args, dict):
        raise MessageValidationError(
            f"a recall tool's arguments are a JSON object, got {args!r}; expected "
            "search_history(query, k) or read_message(id)"
        )
    if name == "search_history" and isinstance(args.get("query"), str):
        k = args.get("k", 5)
        if not isinstance(k, int) or not 1 <= k <= 20:
            raise MessageValidationError(f"search_history: k is an integer in 1..20, got {k!r}")
        results = await session.search(args["query"], k)
        found = [
            {
                "id": r.message.id,
                "version": r.version,
                "role": r.message.role,
                "score": round(r.score, 3),
                "text": shown_text(r.message),
            }
            for r in results
        ]
        return json.dumps({"results": found}, ensure_ascii=False)
    if name == "read_message" and isinstance(args.get("id"), str):
        message = await session.read_message(args["id"])
        if message is None:
            return json.dumps({"error": f"no readable message {args['id']!r} in this session"})
        return json.dumps({"message": message.model_dump(mode="json", exclude={"metadata"})})
    raise MessageValidationError(
        f"not a recall tool call: {name!r} with {args!r}; expected search_history(query, k) "
        f"or read_message(id)"
    )
