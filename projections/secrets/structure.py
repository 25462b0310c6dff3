"""Secrets by structure: every value under a key that names a secret, at any depth of a JSON
value (tool-call arguments, tool results, content parts, Responses and Anthropic items), JSON
inside strings included. Pure. Strings elsewhere go to the text finder."""

from __future__ import annotations

import json
from collections.abc import Callable

from projections.secrets.vocabulary import is_sensitive_key

__all__ = ["STRUCTURAL_KEYS", "redact_json_text", "redact_structure"]

#: keys that name structure and never carry free text (type tags, ids, tool names)
STRUCTURAL_KEYS = frozenset(
    {"type", "id", "call_id", "tool_call_id", "tool_use_id", "name", "mime_type", "media_type"}
)
REDACTED = "[redacted:credential]"

TextRedactor = Callable[[str], str]
Counter = Callable[[str], None]


def redact_structure(value: object, text: TextRedactor, count: Counter) -> object:
    """``value`` with every value under a sensitive key replaced (``count("credential")``
    for each) and every other string passed through ``text`` (JSON strings parsed first)."""
    if isinstance(value, str):
        return redact_json_text(value, text, count)
    if isinstance(value, list):
        return [redact_structure(item, text, count) for item in value]
    if isinstance(value, dict):
        return {key: _redact_item(key, item, text, count) for key, item in value.items()}
    return value


def _redact_item(key: object, item: object, text: TextRedactor, count: Counter) -> object:
    if key in STRUCTURAL_KEYS:
        return item
    if isinstance(key, str) and is_sensitive_key(key) and _holds_value(item):
        return _blanked(item, count)
    return redact_structure(item, text, count)


def _holds_value(item: object) -> bool:
    """Booleans and nulls say whether a secret is set; they are not secrets."""
    return not (item is None or isinstance(item, bool) or item == "")


def _blanked(item: object, count: Counter) -> object:
    if isinstance(item, dict):
        return {key: _blanked(inner, count) for key, inner in item.items()}
    if isinstance(item, list):
        return [_blanked(inner, count) for inner in item]
    if not _holds_value(item):
        return item
    count("credential")
    return REDACTED


def redact_json_text(raw: str, text: TextRedactor, count: Counter) -> str:
    """A string that holds a JSON object or array is redacted by structure and written back
    (compact, Unicode kept); any other string goes through ``text``."""
    stripped = raw.strip()
    if stripped[:1] in ("{", "[") and stripped[-1:] in ("}", "]"):
        try:
            parsed = json.loads(stripped)
        except ValueError:
            return text(raw)
        if isinstance(parsed, dict | list):
            hits: list[str] = []
            cleaned = redact_structure(parsed, lambda inner: inner, hits.append)
            if hits:  # written back only when a key named a secret: the rest stays as it was
                for kind in hits:
                    count(kind)
                return text(json.dumps(cleaned, ensure_ascii=False, separators=(", ", ": ")))
    return text(raw)
