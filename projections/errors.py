"""Errors of the projections package, in ctxledger's one tree (rooted at ``LedgerError``).

::

    LedgerError (eventstore.errors)
    ├── EventValidationError
    │   ├── MessageValidationError    a message is not valid in the internal or a wire format
    │   └── MemoryRequestError        a memory, consent or policy request is not valid
    ├── MemoryNotFoundError           ``forget`` names a key or memory the user does not have
    └── SummarizerError               a summarizer could not produce a summary
"""

from __future__ import annotations

from eventstore.errors import EventValidationError, LedgerError

__all__ = [
    "MemoryNotFoundError",
    "MemoryRequestError",
    "MessageValidationError",
    "SummarizerError",
]


class MessageValidationError(EventValidationError):
    """A message is malformed: what was wrong, where, and what a valid one looks like."""


class MemoryRequestError(EventValidationError):
    """A memory proposal, a consent decision or a memory policy is not valid as given."""


class MemoryNotFoundError(LedgerError, LookupError):
    """A memory operation names a key or memory id that the user does not have."""


class SummarizerError(LedgerError):
    """The summarizer could not produce a summary (the reason says why); ``compact`` records
    the attempt as rejected and keeps serving the window."""
