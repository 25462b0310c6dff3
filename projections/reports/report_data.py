"""The data behind a session's time-travel report, linear in the session's size.

Each message is stored once; the context at each version is a reference: the number of
messages logged by then, the summary served, the planned token total and runs of group indexes
with their section (what :func:`projections.session.render.plan_render` chose there, the plan
:meth:`Session.render` serves). The page expands a reference into rows on demand, exactly as
``render`` assembles them: the prefix, then the summary, then pinned and window groups, masked
tool results as their digest.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from eventstore import RecordedEvent
from projections.context.budget import Budget
from projections.context.messages import Message, text_of
from projections.ledger import Ledger
from projections.session.events import (
    SESSION_EVENTS,
    MessageAppended,
    MessagesPinned,
    ModelCallRecorded,
    SessionEvent,
    SummaryCommitted,
    SummaryRejected,
    SummaryRolledBack,
)
from projections.session.fold import parse_event
from projections.session.render import plan_render, summary_message
from projections.session.state import Cut, SessionState
from projections.summaries.sanitize import redact_for_display

__all__ = ["DEFAULT_REPORT_BUDGET", "KEEP_GROUPS", "SECTION_CODES", "session_report_data"]

#: The budget a report plans with when no model call recorded one.
DEFAULT_REPORT_BUDGET = Budget(context_limit=128_000, max_output_tokens=4_000)
#: The ``keep_groups`` of :meth:`Session.render`'s default, which the report shows.
KEEP_GROUPS = 6
#: One letter per section in the context references (the page maps them back).
SECTION_CODES = {"prefix": "p", "pinned": "n", "window": "w"}

Progress = Callable[[int, int], None]


def describe(event: RecordedEvent, data: SessionEvent | None) -> str | None:
    """A one-line description of a session event (None for a message: the page shows the
    message itself)."""
    if event.data is None:
        return "[erased]"
    if isinstance(data, MessageAppended):
        return None
    if isinstance(data, MessagesPinned):
        return f"pinned {', '.join(data.message_ids)}: {data.reason}"
    if isinstance(data, ModelCallRecorded):
        model = f" ({data.model})" if data.model else ""
        return f"model call{model}: {data.input_tokens} input, {data.output_tokens} output tokens"
    if isinstance(data, SummaryCommitted):
        return (
            f"summary v{data.summary_version} committed: "
            f"{data.tokens_before} → {data.tokens_after} tokens"
        )
    if isinstance(data, SummaryRejected):
        return f"summary rejected: {', '.join(data.failed_checks)}"
    if isinstance(data, SummaryRolledBack):
        return f"rolled back to v{data.to_version}: {data.reason}"
    return event.type if data is not None or event.type not in SESSION_EVENTS else "[unreadable]"


def timeline_entry(event: RecordedEvent, text: str | None, message: int = -1) -> list[Any]:
    """One row of the page's timeline: version, position, type, time, hash, description (None:
    the page shows message ``message``, an index into the report's messages)."""
    return [
        event.version,
        event.position,
        event.type,
        event.recorded_at.isoformat(),
        event.hash,
        text,
        message,
    ]


def tell(progress: Progress | None, done: int, total: int) -> None:
    """Report progress every 500 events and at the end."""
    if progress is not None and (done % 500 == 0 or done == total):
        progress(done, total)


def message_text(message: Message) -> str:
    """What the report shows of a message: its text, then its tool calls, secrets redacted
    (a report is a file that travels: it never carries a password a tool was given)."""
    text = redact_for_display(text_of(message))
    if message.tool_calls:
        calls = "; ".join(
            f"{c.name}({redact_for_display(c.arguments)})" for c in message.tool_calls
        )
        text = f"{text} {calls}" if text else calls
    return text


def _runs(chosen: Iterable[tuple[int, str]]) -> list[list[Any]]:
    """Consecutive group indexes of one section as ``[first, end, code]``."""
    runs: list[list[Any]] = []
    for group, section in chosen:
        code = SECTION_CODES[section]
        if runs and runs[-1][1] == group and runs[-1][2] == code:
            runs[-1][1] = group + 1
        else:
            runs.append([group, group + 1, code])
    return runs


class _Contexts:
    """The context reference at each version, and the summary blocks they serve."""

    def __init__(self, state: SessionState, budget: Budget) -> None:
        self.state = state
        self.budget = budget
        self.summaries: dict[int, list[Any]] = {}

    def at(self, version: int) -> list[Any]:
        cut: Cut = self.state.cut(version)
        plan = plan_render(cut, self.budget, keep_groups=KEEP_GROUPS)
        active = cut.summary()
        if active is not None and active.version not in self.summaries:
            block = summary_message(active)
            self.summaries[active.version] = [block.id, str(block.content), active.tokens]
        served = active.version if active is not None else None
        return [cut.count, served, plan.tokens, _runs(plan.chosen)]


def _messages(everything: Cut) -> list[list[Any]]:
    tokens = everything.state.tokens
    return [[m.id, m.role, tokens[m.id], message_text(m)] for m in everything.messages()]


def _masks(state: SessionState) -> dict[str, list[Any]]:
    return {
        str(state.index_of[mask.message_id]): [mask.version, mask.tokens, mask.text]
        for mask in state.masks.values()
        if mask.message_id in state.index_of
    }


def budget_of(payloads: Iterable[SessionEvent | None]) -> Budget:
    """The budget of the last recorded model call, or the report's default."""
    manifests = [p.manifest for p in payloads if isinstance(p, ModelCallRecorded) and p.manifest]
    if not manifests:
        return DEFAULT_REPORT_BUDGET
    recorded = manifests[-1]["budget"]
    return Budget.model_validate({k: v for k, v in recorded.items() if k in Budget.model_fields})


async def session_report_data(
    ledger: Ledger,
    tenant_id: str,
    session_id: str,
    events: list[RecordedEvent],
    *,
    budget: Budget | None = None,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """Everything a session's report shows, as JSON-ready data (see the module docstring)."""
    everything = await ledger.session(tenant_id, session_id).all_messages()
    state = everything.state
    payloads = [parse_event(e) for e in events]
    budget = budget or budget_of(payloads)
    contexts = _Contexts(state, budget)
    timeline, references, history_series = [], [], []
    calls, compactions, pins = [], [], []
    history = 0
    index_of = state.index_of
    for count, (event, data) in enumerate(zip(events, payloads, strict=True), start=1):
        message = -1
        if isinstance(data, MessageAppended):
            history += data.tokens
            message = index_of.get(data.message.id, -1)
        elif isinstance(data, ModelCallRecorded):
            request = (data.manifest or {}).get("request_hash")
            calls.append([event.version, data.input_tokens, data.output_tokens, request])
        elif isinstance(data, SummaryCommitted):
            compactions.append(
                [event.version, data.summary_version, data.tokens_before, data.tokens_after]
            )
        elif isinstance(data, MessagesPinned):
            pins.append({"version": event.version, "ids": data.message_ids, "reason": data.reason})
        timeline.append(timeline_entry(event, describe(event, data), message))
        references.append(contexts.at(event.version))
        history_series.append(history)
        tell(progress, count, len(events))
    return {
        "kind": "session",
        "tenant": tenant_id,
        "session": session_id,
        "budget": {**budget.model_dump(), "usable": budget.usable, "trigger": budget.trigger},
        "messages": _messages(everything),
        "groups": list(state.grouper.starts),
        "masks": _masks(state),
        "summary_blocks": {str(k): v for k, v in contexts.summaries.items()},
        "timeline": timeline,
        "contexts": references,
        "history": history_series,
        "summaries": state.summary_chain(),
        "pins": pins,
        "calls": calls,
        "compactions": compactions,
    }
