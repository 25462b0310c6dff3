"""Verification of a stored log: read it in batches and feed the :class:`ChainVerifier`."""

from __future__ import annotations

from collections.abc import Callable

from eventstore.recorder import LogRecorder
from eventstore.records import ERASURE_STREAM
from eventstore.verify import ChainVerifier, VerificationReport

__all__ = ["ProgressCallback", "verify_log"]

#: Called with (events checked so far, events to check) while verifying.
ProgressCallback = Callable[[int, int], None]
_BATCH = 5000


async def verify_log(
    recorder: LogRecorder,
    tenant_id: str,
    stream: str | None = None,
    progress: ProgressCallback | None = None,
) -> VerificationReport:
    """Recompute every hash of a tenant's log (or of one stream) from the stored bytes."""
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
    return verifier.finish(state.heads, state.position if stream is None else None)


async def _scan_log(
    recorder: LogRecorder,
    verifier: ChainVerifier,
    tenant_id: str,
    last: int,
    progress: ProgressCallback | None,
) -> None:
    cursor = 0
    while cursor < last:
        batch = await recorder.read_log(tenant_id, cursor, _BATCH, last)
        verifier.feed(batch)
        if progress:
            progress(verifier.checked, last)
        end = batch[-1].position if batch else None
        if len(batch) < _BATCH or not isinstance(end, int) or end <= cursor:
            return
        cursor = end


async def _scan_stream(
    recorder: LogRecorder,
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
