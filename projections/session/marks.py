"""What a session's index records beside its messages: the masks that serve a tool result as
a digest, and the stored events the fold could not read. Pure: no I/O."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

__all__ = ["Mask", "Unreadable"]


@dataclass(frozen=True)
class Mask:
    """A tool result served as a digest from stream version ``version`` on (``ResultsMasked``):
    ``text`` in place of the content, ``tokens`` in place of the result's, ``saved`` fewer."""

    message_id: str
    version: int
    text: str
    tokens: int
    saved: int

    def as_dict(self) -> dict[str, Any]:
        """The mask as JSON-ready data (snapshots)."""
        return asdict(self)


@dataclass(frozen=True)
class Unreadable:
    """A stored event of a session type whose data does not validate (an older or foreign
    writer): where it is and why; the fold skipped it."""

    version: int
    position: int
    type: str
    reason: str

    def as_dict(self) -> dict[str, Any]:
        """The figures, for manifests and the CLI."""
        return asdict(self)
