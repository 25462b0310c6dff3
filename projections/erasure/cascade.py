"""What an erasure must take with it: every derived event that may hold the erased text.

A projection copies text out of the messages it derives from, and those copies are events too.
Erasing a message therefore erases, in the same ``PayloadErased``:

- the summaries whose coverage includes it (a v2 summary's version ranges, a v1 summary's ids),
  unless the summary was made after an earlier erasure of it and saw it as ``[erased]``;
  erasing a summary erases the summaries rolled forward from it (they carry its facts);
- the gate's rejections recorded after it (their reasons quote values of the chunk they judged);
- the masked digests of it (``ResultsMasked`` naming it);
- the model calls recorded after it whose manifest holds a recall query (the query is the
  user's text);
- its copies in the other generations of an Agents SDK or LangChain session (a ``pop`` or
  ``clear`` that kept it copied it), and in an ADK session's mirror the ADK event it came from
  (and the other way round), with the ``user:`` and ``app:`` state deltas taken from that event;
- the memory proposals citing any of these.

The closure is computed from the log (:func:`derived_events`); :func:`erase_events` plans it at
a tenant position and erases everything in one ``PayloadErased`` that the store refuses if the
log moved in between (then it plans again). The session fold keeps an erased summary's place in
the chain, serves its nearest servable ancestor and compacts forward from there.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from uuid import UUID

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from eventstore import (
    ErasureError,
    ErasureReceipt,
    EventNotFoundError,
    EventStore,
    EventValidationError,
    LogMovedError,
    RecordedEvent,
)
from projections.integration_events import ADK_EVENT_APPENDED, ADK_STATE_CHANGED, AdkEventAppended
from projections.memory.events import MEMORY_PROPOSED
from projections.session.events import SummaryCommitted
from projections.summaries.schema import CompactionSummary
from projections.text_caches import forget_texts

__all__ = ["CascadedErasure", "DerivedEvent", "derived_events", "erase_events"]

_SESSION = "session/"
_ADK_SESSION = "adk-session/"
_MIRROR = "session/adk/"
_MEMORY = "memory/"
#: plans made before giving up on a tenant whose log keeps moving
MAX_PLANS = 20


class DerivedEvent(BaseModel):
    """An event erased because it may hold text of an erased one: which, where and why."""

    model_config = ConfigDict(frozen=True)

    event_id: UUID
    stream_id: str
    version: int
    type: str
    because: str


class CascadedErasure(ErasureReceipt):
    """An erasure receipt with the derived events that went with the named ones."""

    derived: list[DerivedEvent] = Field(default_factory=list)


@dataclass
class _Log:
    """The tenant's streams, each read once per plan."""

    store: EventStore
    tenant_id: str
    streams: dict[str, list[RecordedEvent]] = field(default_factory=dict)
    names: list[str] | None = None

    async def stream(self, stream_id: str) -> list[RecordedEvent]:
        if stream_id not in self.streams:
            self.streams[stream_id] = await self.store.read_stream(self.tenant_id, stream_id)
        return self.streams[stream_id]

    async def stream_ids(self, prefix: str) -> list[str]:
        if self.names is None:
            self.names = [head.stream_id for head in await self.store.streams(self.tenant_id)]
        return [name for name in self.names if name.startswith(prefix)]


Found = list[tuple[RecordedEvent, str]]


async def derived_events(
    store: EventStore, tenant_id: str, event_ids: Iterable[UUID | str]
) -> list[DerivedEvent]:
    """Every event that may hold text of ``event_ids`` (see the module docstring), in the order
    found; the named events themselves are not listed."""
    log = _Log(store, tenant_id)
    queue = await store.read_events(tenant_id, event_ids)
    chosen = {str(event.event_id) for event in queue}
    found: list[DerivedEvent] = []
    while queue:
        event = queue.pop(0)
        for derived, because in await _derived_from(log, event):
            if str(derived.event_id) not in chosen:
                chosen.add(str(derived.event_id))
                found.append(_described(derived, because))
                queue.append(derived)
    for proposal in await _proposals_citing(log, chosen):
        found.append(_described(proposal, "a memory proposal citing an erased event"))
    return found


def _described(event: RecordedEvent, because: str) -> DerivedEvent:
    return DerivedEvent(
        event_id=event.event_id,
        stream_id=event.stream_id,
        version=event.version,
        type=event.type,
        because=because,
    )


async def _derived_from(log: _Log, event: RecordedEvent) -> Found:
    if event.stream_id.startswith(_SESSION) and event.type == "MessageAppended":
        found = await _of_message(log, event)
        found += await _copies(log, event)
        return found
    if event.stream_id.startswith(_SESSION) and event.type == "SummaryCommitted":
        return await _rolled_forward(log, event)
    if event.stream_id.startswith(_ADK_SESSION) and event.type == ADK_EVENT_APPENDED:
        return await _of_adk_event(log, event)
    return []


async def _of_message(log: _Log, message: RecordedEvent) -> Found:
    """The session events after a message that may quote it."""
    version = message.version
    message_id = _message_id(message)
    found: Found = []
    for later in (await log.stream(message.stream_id))[version:]:
        data = later.data
        if data is None:
            continue
        where = f"{message.stream_id} v{version}"
        if later.type == "SummaryCommitted" and _covers(data, version, message_id):
            found.append((later, f"summary at v{later.version} covers {where}"))
        elif later.type == "SummaryRejected":
            found.append((later, f"a gate rejection after {where} may quote it"))
        elif later.type == "ResultsMasked" and message_id in _masked_ids(data):
            found.append((later, f"the masked digest of {where}"))
        elif later.type == "ModelCallRecorded" and (data.get("manifest") or {}).get("recall_query"):
            found.append((later, f"a model call's recall query after {where}"))
    return found


def _message_id(message: RecordedEvent) -> str | None:
    inner = (message.data or {}).get("message")
    return str(inner["id"]) if isinstance(inner, dict) and "id" in inner else None


def _covers(data: dict[str, object], version: int, message_id: str | None) -> bool:
    try:
        committed = SummaryCommitted.model_validate(data)
    except ValidationError:
        return True  # unreadable: it may hold anything
    summary = committed.summary
    if isinstance(summary, CompactionSummary):
        ids = {*summary.source_message_ids, *committed.covered_ids}
        return message_id is not None and message_id in ids
    return summary.coverage.contains(version) and version not in committed.erased_versions


def _masked_ids(data: dict[str, object]) -> set[str]:
    results = data.get("results")
    if not isinstance(results, list):
        return set()
    return {str(r.get("message_id")) for r in results if isinstance(r, dict)}


async def _rolled_forward(log: _Log, summary: RecordedEvent) -> Found:
    """The summaries rolled forward from an erased one (their parent chain holds it)."""
    if summary.data is None:
        return []
    erased = {summary.data.get("summary_version")}
    found: Found = []
    for later in (await log.stream(summary.stream_id))[summary.version :]:
        data = later.data
        if later.type == "SummaryCommitted" and data and data.get("parent_version") in erased:
            erased.add(data.get("summary_version"))
            found.append((later, f"summary v{data.get('summary_version')} rolls forward from it"))
    return found


async def _copies(log: _Log, message: RecordedEvent) -> Found:
    """The same message in the session's other generations, and its ADK event."""
    session = message.stream_id[len(_SESSION) :]
    found: Found = []
    if "~" in session and message.data is not None:
        base = session.split("~", 1)[0]
        for stream in await log.stream_ids(f"{_SESSION}{base}~"):
            for other in await log.stream(stream):
                if other.event_id != message.event_id and _same_message(other, message):
                    found.append((other, f"a copy of {message.stream_id} v{message.version}"))
    if message.stream_id.startswith(_MIRROR) and message.data is not None:
        adk_event = ((message.data.get("message") or {}).get("metadata") or {}).get("adk_event")
        stream = _ADK_SESSION + message.stream_id[len(_MIRROR) :]
        for source in await log.stream(stream):
            if adk_event is not None and _adk_id(source) == adk_event:
                found.append((source, f"the ADK event mirrored as {message.stream_id}"))
    return found


def _same_message(a: RecordedEvent, b: RecordedEvent) -> bool:
    return (
        a.type == "MessageAppended"
        and a.data is not None
        and b.data is not None
        and a.data.get("message") == b.data.get("message")
    )


def _adk_id(event: RecordedEvent) -> str | None:
    if event.type != ADK_EVENT_APPENDED or event.data is None:
        return None
    try:
        return str(AdkEventAppended.model_validate(event.data).body().get("id"))
    except (ValidationError, ValueError):
        return None


async def _of_adk_event(log: _Log, event: RecordedEvent) -> Found:
    """The mirror's messages and the shared state deltas taken from an ADK event."""
    adk_id = _adk_id(event)
    mirror = _MIRROR + event.stream_id[len(_ADK_SESSION) :]
    found: Found = []
    for message in await log.stream(mirror):
        metadata = ((message.data or {}).get("message") or {}).get("metadata") or {}
        if adk_id is not None and metadata.get("adk_event") == adk_id:
            found.append((message, f"the mirror of ADK event {adk_id}"))
    for scope in ("adk-user/", "adk-app/"):
        for stream in await log.stream_ids(scope):
            for delta in await log.stream(stream):
                data = delta.data or {}
                if delta.type == ADK_STATE_CHANGED and data.get("source") == str(event.event_id):
                    found.append((delta, "a state delta taken from an erased ADK event"))
    return found


async def _proposals_citing(log: _Log, erased: set[str]) -> list[RecordedEvent]:
    found = []
    for stream in await log.stream_ids(_MEMORY):
        for event in await log.stream(stream):
            sources = (event.data or {}).get("source_event_ids") or []
            citing = erased.intersection(map(str, sources))
            if event.type == MEMORY_PROPOSED and str(event.event_id) not in erased and citing:
                found.append(event)
    return found


async def erase_events(
    store: EventStore,
    tenant_id: str,
    event_ids: Iterable[UUID | str],
    *,
    reason: str,
    requested_by: str,
    dry_run: bool = False,
) -> CascadedErasure:
    """Erase ``event_ids`` and every event derived from them (see the module docstring), in
    one ``PayloadErased``. The set is planned at a tenant position and the store refuses the
    erasure if the log moved since; then it is planned again. With ``dry_run``, nothing is
    erased: the receipt (``erasure`` None) lists what would be.

    Raises:
        ErasureError: the log kept moving through :data:`MAX_PLANS` plans (nothing erased);
            and the errors of :meth:`EventStore.erase`.
    """
    if isinstance(event_ids, str):  # its characters would be taken for ids
        raise EventValidationError(f"erase takes a list of event ids: pass [{event_ids!r}]")
    ids = list(dict.fromkeys(str(i) for i in event_ids))
    for _ in range(MAX_PLANS):
        position = await store.tenant_position(tenant_id)
        derived = await derived_events(store, tenant_id, ids)
        if dry_run:
            return await _planned(store, tenant_id, ids, derived)
        every = ids + [str(d.event_id) for d in derived]
        try:
            receipt = await store.erase(
                tenant_id,
                every,
                reason=reason,
                requested_by=requested_by,
                expected_position=position,
            )
        except LogMovedError:
            continue
        forget_texts()  # this process's caches of text hold no erased text either
        return _with_derived(receipt, derived)
    raise ErasureError(
        f"the log of tenant {tenant_id} moved during each of {MAX_PLANS} plans of this erasure "
        f"(appends kept arriving); nothing was erased: retry when it is quieter"
    )


async def _planned(
    store: EventStore, tenant_id: str, ids: Sequence[str], derived: Sequence[DerivedEvent]
) -> CascadedErasure:
    """What an erasure of ``ids`` would erase, without erasing (a dry run)."""
    named = await store.read_events(tenant_id, ids)
    missing = {str(UUID(i)) for i in ids} - {str(event.event_id) for event in named}
    if missing:
        raise EventNotFoundError(tenant_id, sorted(missing))
    return CascadedErasure(
        erasure=None,
        erased=[e.event_id for e in named if not e.erased]
        + [d.event_id for d in derived if d.event_id not in {e.event_id for e in named}],
        already_erased={e.event_id: e.erased_by or 0 for e in named if e.erased},
        derived=list(derived),
    )


def _with_derived(receipt: ErasureReceipt, derived: Sequence[DerivedEvent]) -> CascadedErasure:
    erased = {str(i) for i in receipt.erased}
    return CascadedErasure(
        erasure=receipt.erasure,
        erased=receipt.erased,
        already_erased=receipt.already_erased,
        residue=receipt.residue,
        derived=[d for d in derived if str(d.event_id) in erased],
    )
