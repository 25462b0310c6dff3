"""Errors of the projections package, in ctxledger's one tree (rooted at ``LedgerError``).

::

    LedgerError (eventstore.errors)
    ├── EventValidationError
    │   ├── MessageValidationError    a message is not valid in the internal or a wire format
    │   └── MemoryRequestError        a memory, consent or policy request is not valid
    ├── MemoryNotFoundError           ``forget`` names a key or memory the user does not have
    ├── SummarizerError               a summarizer could not produce a summary
    ├── ConfigurationError            settings that cannot work (a summary budget over usable)
    └── ContextOverBudgetError        the context served is over the usable budget (on request)

    ContextOverBudgetWarning (UserWarning): the same, as a warning (the default).
"""

from __future__ import annotations

from eventstore.errors import EventValidationError, LedgerError

__all__ = [
    "ConfigurationError",
    "ContextOverBudgetError",
    "ContextOverBudgetWarning",
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


class ConfigurationError(LedgerError, ValueError):
    """Settings that cannot work together (what was given, what is allowed, what to do)."""


class ContextOverBudgetError(LedgerError):
    """The context to serve is over the usable budget even after compaction; ``tokens``,
    ``usable`` and ``why`` say by how much and why (raised when the caller asked for it)."""

    def __init__(self, tokens: int, usable: int, why: str) -> None:
        super().__init__(
            f"the context is {tokens} tokens, over the usable budget of {usable}: {why}"
        )
        self.tokens = tokens
        self.usable = usable
        self.why = why


class ContextOverBudgetWarning(UserWarning):
    """The context served is over the usable budget even after compaction (the message says
    by how much and why); the call may fail at the model or be truncated there."""
