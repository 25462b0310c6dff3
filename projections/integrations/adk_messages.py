"""ADK events as ctxledger messages, and the session they are mirrored into. Pure: no I/O and
no ADK import (it reads the event as ADK serialises it), so the CLI can use it without ADK.

An ADK event with text or function calls is one message (``user`` when the user wrote it,
``assistant`` when an agent did; function calls become tool calls with ADK's call ids); an
event with function responses is one ``tool`` message per response, answering its call id.
Events without content (state-only changes, ADK's compaction and rewind markers) are no
message: ADK keeps them in its own stream. Each message keeps the ADK event id, author and
invocation in its metadata.
"""

from __future__ import annotations

import json
from typing import Any

from projections.adk_ids import adk_name
from projections.context.messages import Message, ToolCall

__all__ = ["MIRROR_PREFIX", "adk_messages", "mirror_session_id"]

#: Mirrored sessions are ``session/adk/<app>/<user>/<session>``.
MIRROR_PREFIX = "adk/"


def mirror_session_id(app_name: str, user_id: str, session_id: str) -> str:
    """The ctxledger session an ADK session is mirrored into (ids encoded as in the ADK
    streams: :func:`~projections.adk_ids.adk_name`)."""
    return f"{MIRROR_PREFIX}{adk_name(app_name)}/{adk_name(user_id)}/{adk_name(session_id)}"


def _json(value: Any) -> str:
    # ADK's own order: the model reads these as ADK serialised them.
    return json.dumps(value if value is not None else {}, ensure_ascii=False)


def adk_messages(body: dict[str, Any]) -> list[Message]:
    """The messages of one ADK event (as ``Event.model_dump(mode="json")`` gives it)."""
    event_id = str(body["id"])
    author = str(body.get("author") or "")
    parts = (body.get("content") or {}).get("parts") or []
    metadata = {
        "source": "adk",
        "adk_event": event_id,
        "adk_author": author,
        "adk_invocation": body.get("invocation_id"),
    }
    responses = [p["function_response"] for p in parts if p.get("function_response")]
    if responses:
        return _tool_results(event_id, responses, metadata)
    return _said(event_id, author, parts, metadata)


def _tool_results(
    event_id: str, responses: list[dict[str, Any]], metadata: dict[str, Any]
) -> list[Message]:
    """One ``tool`` message per function response, answering its call id."""
    return [
        Message(
            id=event_id if len(responses) == 1 else f"{event_id}:{index}",
            role="tool",
            name=response.get("name"),
            tool_call_id=str(response.get("id") or response.get("name")),
            content=_json(response.get("response")),
            metadata=metadata,
        )
        for index, response in enumerate(responses)
    ]


def _said(
    event_id: str, author: str, parts: list[dict[str, Any]], metadata: dict[str, Any]
) -> list[Message]:
    """The user's or an agent's text and function calls as one message (none without)."""
    texts = [str(p["text"]) for p in parts if p.get("text") and not p.get("thought")]
    calls = [p["function_call"] for p in parts if p.get("function_call")]
    if not texts and not calls:
        return []
    tool_calls = [
        ToolCall(
            id=str(call.get("id") or f"{event_id}:{index}"),
            name=call["name"],
            arguments=_json(call.get("args")),
        )
        for index, call in enumerate(calls)
    ]
    return [
        Message(
            id=event_id,
            role="user" if author == "user" else "assistant",
            content="\n".join(texts) if texts else None,
            tool_calls=tool_calls,
            metadata=metadata,
        )
    ]
