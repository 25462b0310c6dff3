"""Ingesting a conversation into a session: checked before the first write, idempotent when
repeated, and honest about what it committed when it stops.

``ingest`` is what ``ctxledger ingest`` runs. Messages whose id the session already holds with
the same content are skipped (running the same import twice adds nothing, and a retry after a
failure picks up where it stopped); an id held with other content is refused before anything
is written. Every payload is sized before the first batch, so an oversized message at line 601
fails the import up front instead of after 500 committed messages.

A message given without an id (OpenAI exports carry none) is keyed by its position in the
input and its content: ``ingest-<position>-<blake3 of the content, 16 hex>``. Running the
same file again adds nothing; a file that grew adds its new messages; a file changed at
position k is refused, naming k, when an earlier ingest holds another message at k.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from blake3 import blake3

from eventstore import LedgerError
from eventstore.encoding import canonical_json
from projections.context.messages import Message
from projections.errors import IngestConflictError, IngestInterruptedError, MessageValidationError
from projections.ledger import Session

__all__ = ["IngestReport", "ingest"]

#: Room for the fields MessageAppended adds around the message (tokens, encoding, flags).
_ENVELOPE = 512


@dataclass(frozen=True)
class IngestReport:
    """What an ingest did."""

    appended: int
    skipped: int
    version: int
    #: tool-protocol issues found in what was appended (each recorded as an event)
    protocol_issues: tuple[str, ...] = ()


async def ingest(
    session: Session,
    messages: Sequence[Message],
    *,
    batch_size: int = 500,
    progress: Callable[[int, int], None] | None = None,
) -> IngestReport:
    """Append the messages the session does not hold yet, in batches of ``batch_size``.

    Raises:
        IngestConflictError: an id is in the session (or twice in the input) with other
            content; nothing was written.
        MessageValidationError: a message is over the store's payload limit; nothing was
            written.
        IngestInterruptedError: a batch failed; the ones before it are committed.
    """
    new = await _new_messages(session, keyed(messages))
    _check_sizes(new, session.ledger.store.max_payload_bytes)
    appended, issues = 0, []
    for start in range(0, len(new), batch_size):
        try:
            events = await session.append(new[start : start + batch_size])
        except LedgerError as error:
            version = (await session.state()).version
            raise IngestInterruptedError(appended, version, error) from error
        issues += [_issue(e.data) for e in events if e.type == "ProtocolIssueRecorded" and e.data]
        appended += len(new[start : start + batch_size])
        if progress:
            progress(appended, len(new))
    version = (await session.state()).version
    return IngestReport(appended, len(messages) - len(new), version, tuple(issues))


_KEYED = re.compile(r"ingest-([0-9]+)-[0-9a-f]{16}")


def keyed(messages: Sequence[Message]) -> list[Message]:
    """``messages``, those given without an id keyed by position (from 1) and content."""
    out = []
    for position, message in enumerate(messages, start=1):
        if "id" in message.model_fields_set:
            out.append(message)
            continue
        content = canonical_json(message.model_dump(mode="json", exclude={"id"}))
        key = f"ingest-{position}-{blake3(content).hexdigest()[:16]}"
        out.append(message.model_copy(update={"id": key}))
    return out


def _issue(data: dict[str, object]) -> str:
    return f"{data.get('kind')}: message {data.get('message_id')!r}: {data.get('detail')}"


async def _new_messages(session: Session, messages: Sequence[Message]) -> list[Message]:
    async def held_bodies() -> tuple[dict[str, Message], dict[int, str]]:
        state = await session.latest()
        indexes = {i for m in messages if (i := state.index_of.get(m.id)) is not None}
        cut = await session.with_bodies(state.cut(), indexes)
        return {state.ids[i]: cut.message(i) for i in indexes}, _keyed_positions(state.ids)

    held, positions = await session._checked(held_bodies)
    new: list[Message] = []
    seen: dict[str, Message] = {}
    for message in messages:
        known = held.get(message.id) or seen.get(message.id)
        if known is None:
            _check_position(session.session_id, message.id, positions)
            seen[message.id] = message
            new.append(message)
        elif _content(known) != _content(message):
            raise IngestConflictError(session.session_id, message.id)
    return new


def _keyed_positions(ids: Sequence[str]) -> dict[int, str]:
    """Position → id of the messages earlier ingests keyed by position."""
    return {int(m.group(1)): i for i in ids if (m := _KEYED.fullmatch(i))}


def _check_position(session_id: str, message_id: str, positions: dict[int, str]) -> None:
    """A new keyed message where an earlier ingest holds another: the file changed."""
    match = _KEYED.fullmatch(message_id)
    if match and (held := positions.get(int(match.group(1)))) is not None:
        raise IngestConflictError(session_id, held, position=int(match.group(1)))


def _content(message: Message) -> bytes:
    return canonical_json(message.model_dump(mode="json"))


def _check_sizes(messages: Sequence[Message], limit: int) -> None:
    for number, message in enumerate(messages, start=1):
        size = len(_content(message)) + _ENVELOPE
        if size > limit:
            raise MessageValidationError(
                f"message {number} (id {message.id!r}) is about {size:,} bytes encoded, over the "
                f"store's payload limit of {limit:,}; nothing was ingested: shorten or split it"
            )
