"""ADK ids in stream names, exactly: ADK compares app names and user ids as given (``"alice"``,
``"alice "`` and ``"alice\\u00a0"`` are three users; ``InMemorySessionService`` keys its dicts by
them) and strips session ids (``str.strip``). Stream names must not hold ``/`` inside a
component, nor control or format characters, so those, and ``%`` itself, are percent-encoded
(UTF-8); every other character stays as it is, so the ids of existing streams keep their
names. The encoding is one-to-one: :func:`adk_id` reverses it."""

from __future__ import annotations

import unicodedata
from urllib.parse import unquote

__all__ = ["adk_id", "adk_name", "session_key"]

_ENCODED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Cn"})


def adk_name(value: str) -> str:
    """An ADK app name, user id or session id as one stream-name component."""
    if not isinstance(value, str):
        raise ValueError(f"an ADK id is a string, got {type(value).__name__}")
    return "".join(_encoded(char) for char in value)


def _encoded(char: str) -> str:
    if char in "%/" or unicodedata.category(char) in _ENCODED_CATEGORIES:
        raw = char.encode("utf-8", "surrogatepass")
        return "".join(f"%{byte:02X}" for byte in raw)
    return char


def adk_id(name: str) -> str:
    """The ADK id a stream-name component stands for (the inverse of :func:`adk_name`)."""
    return unquote(name, errors="surrogatepass")


def session_key(session_id: str | None) -> str:
    """A session id as ADK's own services compare it (stripped)."""
    return (session_id or "").strip()
