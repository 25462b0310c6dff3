"""Secrets never leave the log for a model or a derived store: found by structure (values under
sensitive keys at any depth), by key and value in text, by detect-secrets' provider formats,
by checksummed rules and by the shape of random tokens; see :func:`find_secrets` and
:func:`redact_structure`. The summary gate refuses a summary that still carries one."""

from projections.secrets.structure import STRUCTURAL_KEYS, redact_json_text, redact_structure
from projections.secrets.text import Finding, find_secrets, looks_random
from projections.secrets.vocabulary import is_sensitive_key, key_words

__all__ = [
    "STRUCTURAL_KEYS",
    "Finding",
    "find_secrets",
    "is_sensitive_key",
    "key_words",
    "looks_random",
    "redact_json_text",
    "redact_structure",
]
