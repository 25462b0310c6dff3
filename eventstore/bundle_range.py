"""The range of a one-stream bundle: every event is of the labelled stream, the first links to
the stream's genesis, and the last is the stream's head in the heads its checkpoint signs
(:mod:`eventstore.stream_heads`). A bundle that cannot show both ends is partial: the report
says which versions of how many it holds, and it does not verify unless the auditor accepts a
partial bundle."""

from __future__ import annotations

from typing import Any

from eventstore.bundle_checks import Fail
from eventstore.hashing import genesis_hash
from eventstore.merkle import Algorithm, ProofError
from eventstore.notes import NoteError, open_note, parse_checkpoint
from eventstore.stream_heads import verify_head

__all__ = ["check_stream_range"]


def check_stream_range(bundle: dict[str, Any], events: list[Any], fail: Fail) -> str | None:
    """Check a stream bundle's label and range; return how it is partial (None: complete)."""
    stream = bundle.get("stream")
    mine = []
    for event in events:
        if not isinstance(event, dict) or event.get("stream_id") != stream:
            found = event.get("stream_id") if isinstance(event, dict) else event
            where = event.get("position") if isinstance(event, dict) else None
            fail("stream", f"an event of stream {found!r} in a bundle of {stream!r}", where)
        else:
            mine.append(event)
    if not mine:
        return f"partial: no event of {stream!r}"
    mine.sort(key=lambda e: e.get("version", 0))
    first, last = mine[0], mine[-1]
    starts = first.get("version") == 1 and first.get("prev_hash") == _genesis(bundle, stream)
    head = _proved_head(bundle, last, fail)
    if starts and head:
        return None
    of = f"{last.get('version')}" if head else "an unproved number"
    return f"partial: versions {first.get('version')}–{last.get('version')} of {of}"


def _genesis(bundle: dict[str, Any], stream: Any) -> str | None:
    try:
        return genesis_hash(str(bundle.get("tenant")), str(stream)).hex()
    except (TypeError, ValueError):
        return None


def _proved_head(bundle: dict[str, Any], last: dict[str, Any], fail: Fail) -> bool:
    """Whether the last event is the stream's head at the bundle's newest checkpoint."""
    signed = _newest_heads(bundle)
    proof = bundle.get("stream_head")
    if signed is None or not isinstance(proof, dict):
        return False  # a checkpoint from before heads were signed, or no proof: unproved
    count, expected = signed
    algorithm: Algorithm = bundle.get("algorithm", "blake3")
    try:
        head = (str(bundle.get("stream")), int(last["version"]), bytes.fromhex(last["hash"]))
        verify_head(head, proof, count, expected, algorithm)
    except (ProofError, ValueError, KeyError, TypeError) as error:
        fail(
            "range",
            f"the last event (version {last.get('version')}) is not the head of "
            f"{bundle.get('stream')!r} that the checkpoint of size {bundle.get('tree_size')} "
            f"signs: later events of the stream were left out ({error})",
            last.get("position"),
        )
        return False
    return True


def _newest_heads(bundle: dict[str, Any]) -> tuple[int, bytes] | None:
    for note in bundle.get("checkpoints") or []:
        try:
            checkpoint = parse_checkpoint(open_note(note, [])[0])
        except (NoteError, TypeError, AttributeError):
            continue
        if checkpoint.size == bundle.get("tree_size"):
            return checkpoint.heads
    return None
