"""Errors of the projections package, in ctxledger's one tree (rooted at ``LedgerError``).

::

    LedgerError (eventstore.errors)
    └── EventValidationError
        └── MessageValidationError    a message is not valid in the internal or a wire format
"""

from __future__ import annotations

from eventstore.errors import EventValidationError

__all__ = ["MessageValidationError"]


class MessageValidationError(EventValidationError):
    """A message is malformed: what was wrong, where, and what a valid one looks like."""
