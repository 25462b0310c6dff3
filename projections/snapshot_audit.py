"""``verify`` for derived state: every stored session snapshot against a rebuild from the log.

A snapshot's guard is a hash of public fields, so anyone who can write the database can edit
a snapshot and recompute it. Renders never serve what a snapshot says without checking it
against the log (:mod:`projections.session.bodies`, :mod:`projections.session.checks`); this
audit names the forged or damaged ones, so an operator learns that someone wrote there.
"""

from __future__ import annotations

from eventstore import EventStore, VerificationFailure, VerificationReport
from projections.session.codec import decode_state, head_parts, state_digest
from projections.session.fold import SessionView
from projections.snapshot_parts import load_parts

__all__ = ["audit_snapshots", "with_snapshot_audit"]


async def audit_snapshots(
    store: EventStore, tenant_id: str, stream: str | None = None
) -> tuple[int, list[VerificationFailure]]:
    """How many session snapshots were compared with a rebuild of their projection from the
    log, and the ones that differ (or whose guard does not match)."""
    heads = await store.streams(tenant_id)
    streams = [h.stream_id for h in heads if h.stream_id.startswith("session/")]
    failures: list[VerificationFailure] = []
    checked = 0
    for stream_id in streams if stream is None else [s for s in streams if s == stream]:
        problem = await _snapshot_problem(store, tenant_id, stream_id)
        if problem is None:
            continue
        version, reason = problem
        checked += reason != "absent"
        if reason not in ("absent", "ok"):
            failures.append(VerificationFailure(
                tenant=tenant_id, stream=stream_id, version=version, position=None,
                event_id=None, reason=reason,
            ))  # fmt: skip
    return checked, failures


async def _snapshot_problem(
    store: EventStore, tenant_id: str, stream_id: str
) -> tuple[int, str] | None:
    """``(version, verdict)`` of the stream's snapshot: "ok", "absent" or what is wrong;
    None when there is none of the current projection version."""
    records = await store.recorder.load_snapshots(tenant_id, stream_id, [SessionView.name])
    if not records:
        return None
    (record,) = records
    if record.projection_version != SessionView.version:
        return None  # an older projection's: never read, replaced at the next save
    snapshot = await store.load_snapshot(tenant_id, SessionView.name, stream_id)
    if snapshot is None:
        return record.version, "snapshot: its guard hash does not match its bytes (damaged)"
    events = await store.read_stream(tenant_id, stream_id, to_version=snapshot.version)
    if not events or events[-1].version != snapshot.version:
        return snapshot.version, "snapshot: taken at a version the log does not hold"
    rebuilt = SessionView.fold(events)
    try:
        count = len(head_parts(snapshot.state))
        parts = await load_parts(store, tenant_id, stream_id, SessionView.name, count)
        if parts is None:
            return snapshot.version, f"snapshot: parts missing (it names {count})"
        held = decode_state(snapshot.state, parts)
    except (ValueError, KeyError, TypeError) as error:
        return snapshot.version, f"snapshot: does not decode ({type(error).__name__}: {error})"
    if rebuilt.position != snapshot.position or state_digest(held) != state_digest(rebuilt):
        return snapshot.version, (
            "snapshot: differs from a rebuild of its projection from the log (forged or "
            "written by a faulty process); renders check what they serve against the log, "
            "the next save replaces it"
        )
    return snapshot.version, "ok"


async def with_snapshot_audit(store: EventStore, report: VerificationReport) -> VerificationReport:
    """The report with the tenant's (or stream's) snapshots audited as well."""
    checked, failures = await audit_snapshots(store, report.tenant, report.stream)
    if not failures and not checked:
        return report
    return report.model_copy(
        update={
            "ok": report.ok and not failures,
            "failures": [*report.failures, *failures],
            "snapshots": checked,
        }
    )
