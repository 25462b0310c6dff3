"""The data behind the report of a stream that is not a ctxledger session: a Google ADK
session (``adk-session/…``), a LangGraph thread (``langgraph/…``) or any other stream.

Such a stream has no window plan: what the framework hands its model is the stream itself
(ADK passes the session's events; LangGraph restores a checkpoint). So the report shows, at
each version, the stream as it was then (every event up to it), each event described in the
framework's terms, with the tokens of the text it carries.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from eventstore import RecordedEvent
from projections.context.tokens import TokenCounter
from projections.integration_events import (
    ADK_EVENT_APPENDED,
    ADK_SESSION_CREATED,
    ADK_SESSION_DELETED,
    ADK_STATE_CHANGED,
    AdkEventAppended,
)
from projections.integrations.langgraph_thread import (
    CHECKPOINT_SAVED,
    THREAD_DELETED,
    WRITES_SAVED,
    unpack,
)
from projections.reports.report_data import tell, timeline_entry

__all__ = ["stream_kind", "stream_report_data"]

_PREVIEW = 600


def stream_kind(stream_id: str) -> str:
    """``adk``, ``langgraph`` or ``stream`` (anything else)."""
    if stream_id.startswith("adk-"):
        return "adk"
    if stream_id.startswith("langgraph/"):
        return "langgraph"
    return "stream"


def _adk_part(part: dict[str, Any]) -> str:
    if "text" in part:
        return str(part["text"])
    if "function_call" in part:
        call = part["function_call"]
        return f"calls {call.get('name')}({json.dumps(call.get('args', {}), sort_keys=True)})"
    if "function_response" in part:
        response = part["function_response"]
        body = json.dumps(response.get("response", {}), sort_keys=True)
        return f"{response.get('name')} returned {body}"
    return json.dumps(part, sort_keys=True)


def _adk(event: RecordedEvent, data: dict[str, Any]) -> tuple[str, str]:
    if event.type == ADK_EVENT_APPENDED:
        body = AdkEventAppended.model_validate(data).body()
        parts = (body.get("content") or {}).get("parts") or []
        text = " ".join(_adk_part(part) for part in parts)
        delta = (body.get("actions") or {}).get("state_delta")
        if delta:
            text += f" [state: {json.dumps(delta, sort_keys=True)}]"
        return str(body.get("author", "?")), text
    if event.type == ADK_SESSION_CREATED:
        return "session", "created, state " + json.dumps(data.get("state", {}), sort_keys=True)
    if event.type == ADK_STATE_CHANGED:
        return "state", json.dumps(data, sort_keys=True)
    if event.type == ADK_SESSION_DELETED:
        return "session", "deleted"
    return event.type, json.dumps(data, sort_keys=True)


def _metadata(packed: list[str] | None) -> dict[str, Any] | None:
    """A checkpoint's metadata, when LangGraph's serde is installed to decode it."""
    if not packed:
        return None
    try:
        from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
    except ImportError:
        return None
    try:
        value = JsonPlusSerializer().loads_typed(unpack(packed))
    except Exception:  # a value this serde cannot read: shown without its metadata
        return None
    return value if isinstance(value, dict) else None


def _langgraph(event: RecordedEvent, data: dict[str, Any]) -> tuple[str, str]:
    if event.type == CHECKPOINT_SAVED:
        metadata = _metadata(data.get("metadata"))
        step = f" step {metadata.get('step')}, {metadata.get('source')}" if metadata else ""
        channels = sorted({*data.get("blobs", {}), *data.get("deltas", {})})
        parent = data.get("parent")
        return "checkpoint", (
            f"{data.get('id')}{step}; parent {parent or 'none'}; "
            f"channels changed: {', '.join(channels) or 'none'}"
        )
    if event.type == WRITES_SAVED:
        channels = [write[1] for write in data.get("writes", [])]
        return "writes", f"task {data.get('task_id')}: {', '.join(channels) or 'nothing'}"
    if event.type == THREAD_DELETED:
        return "thread", "deleted (earlier payloads erased)"
    return event.type, json.dumps(data, sort_keys=True)


def _row(kind: str, event: RecordedEvent) -> tuple[str, str]:
    if event.data is None:
        return "erased", "[erased]"
    if kind == "adk":
        return _adk(event, event.data)
    if kind == "langgraph":
        return _langgraph(event, event.data)
    return event.type, json.dumps(event.data, sort_keys=True)


def stream_report_data(
    tenant_id: str,
    stream_id: str,
    events: list[RecordedEvent],
    counter: TokenCounter,
    *,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """Everything the report of a non-session stream shows, as JSON-ready data."""
    kind = stream_kind(stream_id)
    timeline, rows, totals = [], [], []
    total = 0
    for count, event in enumerate(events, start=1):
        who, text = _row(kind, event)
        tokens = counter.count_text(text) if event.data is not None else 0
        total += tokens
        preview = text if len(text) <= _PREVIEW else text[:_PREVIEW] + " …"
        rows.append([who, tokens, preview])
        timeline.append(timeline_entry(event, f"{who}: {preview[:160]}"))
        totals.append(total)
        tell(progress, count, len(events))
    return {
        "kind": kind,
        "tenant": tenant_id,
        "session": stream_id,
        "rows": rows,
        "timeline": timeline,
        "history": totals,
    }
