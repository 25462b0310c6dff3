"""The untrusted data block a summary is rendered in. Pure: no I/O.

``<compaction_summary trust='untrusted' schema='v1'>`` + JSON + ``</compaction_summary>``. The
JSON is written with ``<``, ``>`` and ``&`` escaped as ``\\u003c``, ``\\u003e``, ``\\u0026``, so no
content of the summary can close the block, open another one, or look like markup; it still
parses back to the same summary.
"""

from __future__ import annotations

import json

from projections.summaries.schema import CompactionSummary

__all__ = ["BLOCK_CLOSE", "BLOCK_OPEN", "parse_summary_block", "render_summary_block"]

BLOCK_OPEN = "<compaction_summary trust='untrusted' schema='v1'>"
BLOCK_CLOSE = "</compaction_summary>"
_ESCAPES = str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026"})


def render_summary_block(summary: CompactionSummary) -> str:
    """The summary as an untrusted block (carried by a user-role message, never system)."""
    body = json.dumps(
        summary.model_dump(mode="json"), ensure_ascii=False, sort_keys=True, indent=1
    ).translate(_ESCAPES)
    return f"{BLOCK_OPEN}\n{body}\n{BLOCK_CLOSE}"


def parse_summary_block(text: str) -> CompactionSummary:
    """The summary inside a block made by :func:`render_summary_block`.

    Raises:
        ValueError: the text is not exactly one such block.
    """
    if not (text.startswith(BLOCK_OPEN + "\n") and text.endswith("\n" + BLOCK_CLOSE)):
        raise ValueError("not a compaction_summary block")
    body = text[len(BLOCK_OPEN) + 1 : -len(BLOCK_CLOSE) - 1]
    return CompactionSummary.model_validate(json.loads(body))
