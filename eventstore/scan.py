"""Verification of a stored log: read it in batches and feed the :class:`ChainVerifier`."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from eventstore.anchors import AnchorReport, check_anchors
from eventstore.errors import EventValidationError
from eventstore.merkle import ALGORITHMS, Algorithm
from eventstore.notes import Verifier
from eventstore.records import ERASURE_STREAM
from eventstore.verify import ChainVerifier, VerificationFailure, VerificationReport

if TYPE_CHECKING:
    from eventstore.tree import TreeRecorder

__all__ = ["ProgressCallback", "verify_log"]

#: Called with (events checked so far, events to check) while verifying.
ProgressCallback = Callable[[int, int], None]
_BATCH = 5000
_CHUNK_LEVEL = 8  # the lowest stored tree level (eventstore.tree.CHUNK_LEVEL)


async def verify_log(
    recorder: TreeRecorder,
    tenant_id: str,
    stream: str | None = None,
    progress: ProgressCallback | None = None,
    *,
    verifiers: Sequence[Verifier] = (),
    trusted: Sequence[str] = (),
) -> VerificationReport:
    """Recompute every hash of a tenant's log (or of one stream) from the stored bytes; for a
    whole tenant, bind it to its signed checkpoints, the ``trusted`` ones and the stored tree
    (see :mod:`eventstore.anchors`)."""
    if stream is not None and trusted:
        raise EventValidationError(
            "a trusted checkpoint covers the whole tenant's log; verify the tenant without a "
            "stream to check it"
        )
    verifier = ChainVerifier(tenant_id, stream)
    state = await recorder.log_state(tenant_id, stream)
    if stream is None:
        # Scan to the furthest of the tenant head and the last stored event, so that an
        # edited head can neither hide events nor shorten the scan.
        last = max(state.position, state.last_event_position)
        await _scan_log(recorder, verifier, tenant_id, last, progress)
    else:
        head = state.heads.get(stream)
        last = max(head.version if head else 0, state.last_stream_version)
        await _scan_stream(recorder, verifier, tenant_id, stream, last, progress)
    if verifier.pending_erasures and stream != ERASURE_STREAM:
        later = await recorder.read_stream(
            tenant_id, ERASURE_STREAM, verifier.last_version(ERASURE_STREAM) + 1, None
        )
        verifier.feed_erasures(later)
    report = verifier.finish(state.heads, state.position if stream is None else None)
    if stream is not None:
        return report
    nodes = {
        algorithm: await _stored_nodes(recorder, tenant_id, algorithm) for algorithm in ALGORITHMS
    }
    anchors = check_anchors(
        verifier.leaves,
        verifier.checkpoints,
        verifiers=verifiers,
        trusted=trusted,
        stored_nodes={a: levels for a, levels in nodes.items() if levels},
    )
    return _with_anchors(report, anchors)


def _with_anchors(report: VerificationReport, anchors: AnchorReport) -> VerificationReport:
    found = [
        VerificationFailure(
            tenant=report.tenant,
            stream=finding.subject,
            version=None,
            position=finding.position,
            event_id=finding.event_id,
            reason=finding.reason,
        )
        for finding in anchors.findings
    ]
    failures = report.failures + found
    return report.model_copy(
        update={
            "ok": not failures,
            "failures": failures,
            "checkpoints": anchors.checkpoints,
            "trusted_checkpoints": anchors.trusted,
            "signatures_verified": anchors.signatures_verified,
            "signatures_checked": anchors.signatures_checked,
            "tree_nodes": anchors.tree_nodes,
        }
    )


async def _stored_nodes(
    recorder: TreeRecorder, tenant_id: str, algorithm: Algorithm
) -> dict[int, list[bytes]]:
    levels: dict[int, list[bytes]] = {}
    level = _CHUNK_LEVEL
    while count := await recorder.merkle_extent(tenant_id, algorithm, level):
        levels[level] = await recorder.merkle_nodes(tenant_id, algorithm, level, 0, count - 1)
        level += 1
    return levels


async def _scan_log(
    recorder: TreeRecorder,
    verifier: ChainVerifier,
    tenant_id: str,
    last: int,
    progress: ProgressCallback | None,
) -> None:
    # The next batch is read (in the backend's thread or connection) while this one is
    # checked: reading and hashing overlap instead of taking turns.
    cursor = 0
    reading = asyncio.ensure_future(recorder.read_log(tenant_id, cursor, _BATCH, last))
    try:
        while True:
            batch = await reading
            end = batch[-1].position if batch else None
            more = len(batch) == _BATCH and isinstance(end, int) and cursor < end < last
            if more:
                assert isinstance(end, int)
                cursor = end
                reading = asyncio.ensure_future(recorder.read_log(tenant_id, cursor, _BATCH, last))
            verifier.feed(batch)
            if progress:
                progress(verifier.checked, last)
            if not more:
                return
    finally:
        if not reading.done():
            reading.cancel()


async def _scan_stream(
    recorder: TreeRecorder,
    verifier: ChainVerifier,
    tenant_id: str,
    stream: str,
    last: int,
    progress: ProgressCallback | None,
) -> None:
    for start in range(1, last + 1, _BATCH):
        end = min(start + _BATCH - 1, last)
        verifier.feed(await recorder.read_stream(tenant_id, stream, start, end))
        if progress:
            progress(verifier.checked, last)
