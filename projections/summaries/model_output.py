"""A model's answer as a ``compaction_summary.v2``: what a summarizer that calls a model gets
back is normalised here, and anything else is refused with :class:`SummarizerError` (error text
never becomes a summary). Pure: no I/O.

Accepted:

- a v2 draft: the v2 fields, with ``coverage``, ``created_at`` and ``schema_version`` optional
  (the request supplies them: a model cannot compute the coverage digest, and must not);
- the seed's literal v1 form: ``schema_version: 1`` (an integer, or ``"v1"``), facts, decisions
  and open questions citing message ids, open questions as plain strings. Ids become session
  versions; an item citing no message is attributed to the chunk message holding its text
  (left out when there is none), and an item citing a message the chunk does not have is
  refused.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import ValidationError

from projections.context.messages import Message, text_of
from projections.errors import SummarizerError
from projections.summaries.schema_v2 import SCHEMA_V2, CompactionSummaryV2
from projections.summaries.summarizer import SummaryRequest

__all__ = ["draft_json_schema", "normalize_seed_form", "summary_from_output"]

_V1_FORMS = (1, "1", "v1", "compaction_summary.v1")


def draft_json_schema() -> dict[str, Any]:
    """The JSON Schema a model is asked to fill: v2 without what the request supplies."""
    schema = CompactionSummaryV2.model_json_schema()
    for name in ("coverage", "created_at", "schema_version"):
        schema["properties"].pop(name, None)
    schema["required"] = [r for r in schema.get("required", []) if r in schema["properties"]]
    schema["$defs"].pop("Coverage", None)
    return schema


def summary_from_output(data: Any, request: SummaryRequest) -> CompactionSummaryV2:
    """The summary a model answered, normalised (see the module docstring).

    Raises:
        SummarizerError: not a JSON object, or not a valid summary after normalisation.
    """
    if not isinstance(data, dict):
        raise SummarizerError("the response is not a JSON object")
    if data.get("schema_version") in _V1_FORMS or "source_message_ids" in data:
        data = _from_v1(data, request)
    data = {**data, "schema_version": SCHEMA_V2, "created_at": request.created_at.isoformat()}
    if request.coverage is not None:
        data["coverage"] = request.coverage.model_dump(mode="json")
    try:
        return CompactionSummaryV2.model_validate(data)
    except ValidationError as error:
        fields = sorted({".".join(map(str, e["loc"])) for e in error.errors()})
        raise SummarizerError(
            f"the response violates {SCHEMA_V2} at {', '.join(fields)}"
        ) from error


def _from_v1(data: dict[str, Any], request: SummaryRequest) -> dict[str, Any]:
    versions = {m.id: v for m, v in zip(request.chunk, request.versions, strict=False)}
    texts = [(v, text_of(m)) for m, v in zip(request.chunk, request.versions, strict=False)]

    def cite(item: dict[str, Any], text: str) -> list[int]:
        ids = [str(i) for i in item.get("source_ids") or []]
        foreign = [i for i in ids if i not in versions]
        if foreign:
            raise SummarizerError(
                f"the summary cites {', '.join(map(repr, foreign))}, which the chunk does not "
                f"have: a summary may cite only the messages it summarises"
            )
        if ids:
            return sorted({versions[i] for i in ids})
        squeezed = " ".join(text.split()).lower()
        return [v for v, body in texts if squeezed and squeezed in " ".join(body.split()).lower()][
            -1:
        ]

    facts = []
    for fact in _items(data.get("facts")):
        src = cite(fact, str(fact.get("value", "")))
        if src:
            status = fact.get("status", "confirmed")
            facts.append(
                {"key": fact.get("key"), "value": fact.get("value"), "status": status, "src": src}
            )
    decisions = [
        {"text": d.get("text"), "src": src}
        for d in _items(data.get("decisions"))
        if (src := cite(d, str(d.get("text", ""))))
    ]
    questions = [
        {"text": q.get("text"), "src": src}
        for q in _items(data.get("open_questions"))
        if (src := cite(q, str(q.get("text", ""))))
    ]
    return {"facts": facts, "decisions": decisions, "open_questions": questions}


def _items(raw: Any) -> list[dict[str, Any]]:
    """A list of items; plain strings become ``{"text": ...}`` (the seed's open questions)."""
    if not isinstance(raw, list):
        return []
    return [item if isinstance(item, dict) else {"text": str(item)} for item in raw]


def normalize_seed_form(data: dict[str, Any], sources: Sequence[Message]) -> dict[str, Any]:
    """The seed's literal v1 summary as ``compaction_summary.v1`` data: an integer (or
    ``"v1"``) ``schema_version`` becomes the schema's name, and an open question given as a
    plain string cites the last source message holding its text (none: it cites nothing, and
    the schema check refuses it). Anything else is returned unchanged, for the checks to judge.
    """
    if data.get("schema_version") not in _V1_FORMS:
        return data
    texts = [(m.id, " ".join(text_of(m).split()).lower()) for m in sources]

    def question(item: Any) -> Any:
        if not isinstance(item, str):
            return item
        wanted = " ".join(item.split()).lower()
        holders = [i for i, body in texts if wanted and wanted in body]
        return {"text": item, "source_ids": holders[-1:]}

    questions = data.get("open_questions")
    if isinstance(questions, list):
        data = {**data, "open_questions": [question(q) for q in questions]}
    return {**data, "schema_version": "compaction_summary.v1"}
