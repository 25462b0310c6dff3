"""A session's appends: messages (one event each, with their protocol issues), pins, model
calls, and the typed events the other verbs build (:meth:`SessionWrites.append_events`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import ValidationError

from eventstore import RecordedEvent
from projections.context.messages import Message, parse_messages, validation_problems
from projections.errors import MessageValidationError
from projections.session.events import (
    MessageAppended,
    MessagesPinned,
    MessagesUnpinned,
    ModelCallRecorded,
    ProtocolIssueRecorded,
    SessionEvent,
)
from projections.session_memory import SessionMemory
from projections.telemetry import conversation, model_call, operation

__all__ = ["SessionWrites"]


class SessionWrites(SessionMemory):
    """The append verbs of :class:`~projections.ledger.Session`."""

    async def append_events(
        self, events: Sequence[SessionEvent], *, expected_version: int | None = None
    ) -> list[RecordedEvent]:
        """Append typed session events as they are, atomically, and fold them in (the verbs
        below build them; this is the low-level step they share)."""
        with operation("append", conversation(self.tenant_id, self.session_id)) as span:
            recorded = await self.ledger.store.append(
                self.tenant_id,
                self.stream_id,
                [event.new() for event in events],
                expected_version=expected_version,
            )
            await self.ledger.sessions.advance(self.tenant_id, self.session_id, recorded, events)
            span["events"] = len(recorded)
        return recorded

    async def events_after(self, version: int) -> list[RecordedEvent]:
        """The session stream's events after ``version``, as stored (what moved it)."""
        return await self.ledger.store.read_stream(
            self.tenant_id, self.stream_id, from_version=version + 1
        )

    async def append(
        self, messages: Sequence[Message | dict[str, Any]], *, expected_version: int | None = None
    ) -> list[RecordedEvent]:
        """Append messages: one event each, plus one per protocol issue found, atomically.

        Raises:
            MessageValidationError: a message is malformed or its id is already in the session.
        """
        parsed = parse_messages(messages)
        state = await self.latest()
        batch: set[str] = set()
        for message in parsed:
            if message.id in state.index_of or message.id in batch:
                raise MessageValidationError(
                    f"message id {message.id!r} is already in session {self.session_id}: "
                    f"message ids are unique within a session"
                )
            batch.add(message.id)
        counter = self.ledger.counter
        events: list[SessionEvent] = [
            MessageAppended(
                message=message,
                tokens=counter.count_message(message),
                encoding=counter.encoding_name,
                flags=message.flags,
            )
            for message in parsed
        ]
        events += [ProtocolIssueRecorded(**i.as_dict()) for i in state.grouper.preview(parsed)]
        return await self.append_events(events, expected_version=expected_version)

    async def pin(self, message_ids: Sequence[str], *, reason: str) -> RecordedEvent:
        """Pin messages: their groups stay in context verbatim, whatever the budget."""
        await self._check_marks("pin", message_ids, reason)
        (event,) = await self.append_events(
            [MessagesPinned(message_ids=list(message_ids), reason=reason)]
        )
        return event

    async def unpin(self, message_ids: Sequence[str], *, reason: str) -> RecordedEvent:
        """Remove pins."""
        await self._check_marks("unpin", message_ids, reason)
        unpinned = MessagesUnpinned(message_ids=list(message_ids), reason=reason)
        (event,) = await self.append_events([unpinned])
        return event

    async def _check_marks(self, verb: str, message_ids: Sequence[str], reason: str) -> None:
        if isinstance(message_ids, str):  # its characters would be taken for ids
            raise MessageValidationError(
                f"{verb} takes a list of message ids, got a string: pass [{message_ids!r}]"
            )
        if not message_ids:
            raise MessageValidationError(f"{verb} needs at least one message id")
        if not isinstance(reason, str) or not reason.strip():
            raise MessageValidationError(f"{verb} needs a reason")
        known = (await self.latest()).index_of
        unknown = [i for i in message_ids if i not in known]
        if unknown:
            raise MessageValidationError(
                f"session {self.session_id} has no message {', '.join(map(repr, unknown))}"
            )

    async def record_model_call(
        self,
        *,
        manifest: dict[str, Any] | None = None,
        input_tokens: int,
        cached_input_tokens: int = 0,
        output_tokens: int,
        request_bytes: int | None = None,
        ttft_ms: float | None = None,
        queue_ms: float | None = None,
        model: str | None = None,
    ) -> RecordedEvent:
        """Record a model call with the figures the seed tracks per call.

        Raises:
            MessageValidationError: a figure is negative or of the wrong type (named).
        """
        try:
            call = ModelCallRecorded(
                manifest=manifest,
                input_tokens=input_tokens,
                cached_input_tokens=cached_input_tokens,
                output_tokens=output_tokens,
                request_bytes=request_bytes,
                ttft_ms=ttft_ms,
                queue_ms=queue_ms,
                model=model,
            )
        except ValidationError as error:
            problems = validation_problems(error, "model call")
            raise MessageValidationError(f"the model call is not valid ({problems})") from None
        (event,) = await self.append_events([call])
        model_call(
            conversation(self.tenant_id, self.session_id),
            model=model,
            input_tokens=input_tokens,
            output_tokens=output_tokens,
            cached_input_tokens=cached_input_tokens,
        )
        return event
