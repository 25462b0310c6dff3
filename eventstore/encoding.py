"""Canonical JSON: the exact bytes that are stored and hashed (hash spec v1, docs/hash-spec.md).

Canonical form: UTF-8, object keys sorted by Unicode code point, no insignificant white space,
no NaN or Infinity, strings with only the escapes JSON requires (``"``, ``\\``, and U+0000 to
U+001F), everything else written as itself. Pure: no I/O.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

from eventstore.errors import EventValidationError

__all__ = ["MAX_DEPTH", "canonical_json", "check_json_value", "decode_json"]

_encoder = json.JSONEncoder(
    ensure_ascii=False, allow_nan=False, sort_keys=True, separators=(",", ":"), check_circular=True
)


MAX_DEPTH = 100


def check_json_value(value: Any, path: str = "$", depth: int = 0) -> None:
    """Raise :class:`EventValidationError` if ``value`` is not exactly representable as JSON.

    ``json.dumps`` alone would silently turn integer keys into strings, or fail with a message
    that does not say where; this walk names the offending path. Tuples are taken as arrays.
    """
    if depth > MAX_DEPTH:
        raise EventValidationError(
            f"{path[:80]}… is nested more than {MAX_DEPTH} levels deep (or refers to itself): "
            f"flatten the data"
        )
    if value is None or isinstance(value, (bool, int, str)):
        return
    if isinstance(value, float):
        if not math.isfinite(value):
            raise EventValidationError(
                f"{path} is {value!r}: JSON has no NaN or Infinity; store it as null or a string"
            )
        return
    if isinstance(value, Mapping):
        for key, item in value.items():
            if not isinstance(key, str):
                raise EventValidationError(
                    f"{path} has a key {key!r} of type {type(key).__name__}: JSON object keys "
                    f"must be strings; convert the key with str() before appending"
                )
            check_json_value(item, f"{path}.{key}", depth + 1)
        return
    if isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            check_json_value(item, f"{path}[{index}]", depth + 1)
        return
    raise EventValidationError(
        f"{path} is a {type(value).__name__}, which is not JSON: use only dict, list, str, int, "
        f"float, bool and None (convert dates with .isoformat(), bytes with base64)"
    )


def canonical_json(value: Any) -> bytes:
    """Return the canonical JSON bytes of ``value``.

    Raises:
        EventValidationError: ``value`` holds something JSON cannot represent exactly.
    """
    check_json_value(value)
    try:
        return _encoder.encode(value).encode("utf-8")
    except (ValueError, UnicodeEncodeError) as error:  # lone surrogates, circular references
        raise EventValidationError(f"value cannot be encoded as canonical JSON: {error}") from error


def decode_json(payload: bytes) -> Any:
    """Decode stored canonical JSON bytes."""
    return json.loads(payload)
