"""Errors of the projections package, in ctxledger's one tree (rooted at ``LedgerError``).

::

    LedgerError (eventstore.errors)
    ├── EventValidationError
    │   ├── MessageValidationError    a message is not valid in the internal or a wire format
    │   ├── MemoryRequestError        a memory, consent or policy request is not valid
    │   └── IngestConflictError       an ingested id is in the session with other content
    ├── MemoryNotFoundError           ``forget`` names a key or memory the user does not have
    ├── SummarizerError               a summarizer could not produce a summary
    │   └── SummarizerUnavailableError  its server could not be reached or refused the call
    ├── ConfigurationError            settings that cannot work (a summary budget over usable)
    ├── EmbedderError                 an embedder broke its contract (count, dimension, name)
    ├── ContextOverBudgetError        the context served is over the usable budget (on request)
    └── IngestInterruptedError        an ingest stopped part-way (says what was committed)

    ContextOverBudgetWarning (UserWarning): the same, as a warning (the default).
"""

from __future__ import annotations

from eventstore.errors import EventValidationError, LedgerError

__all__ = [
    "ConfigurationError",
    "ContextOverBudgetError",
    "ContextOverBudgetWarning",
    "EmbedderError",
    "IngestConflictError",
    "IngestInterruptedError",
    "MemoryNotFoundError",
    "MemoryRequestError",
    "MessageValidationError",
    "SummarizerError",
    "SummarizerUnavailableError",
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


class SummarizerUnavailableError(SummarizerError):
    """The summarizer's service failed, not its summary: unreachable, timed out, overloaded,
    or it refused the call (authentication, unknown model). Not a gate decision: ``compact``
    records nothing, returns ``unavailable`` and keeps serving the window (the CLI exits 3).
    A summarizer function signals it by raising this or an ``OSError`` (``TimeoutError``,
    ``ConnectionError``)."""


class ConfigurationError(LedgerError, ValueError):
    """Settings that cannot work together (what was given, what is allowed, what to do)."""


class EmbedderError(LedgerError):
    """An embedder broke its contract: a wrong count or dimension of vectors, or a name a
    read model cannot carry (:mod:`projections.recall.vectors`)."""


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


class IngestConflictError(MessageValidationError):
    """An ingested message's id is already in the session with other content; nothing of the
    ingest was written."""

    def __init__(self, session_id: str, message_id: str, position: int | None = None) -> None:
        self.message_id = message_id
        if position is not None:  # a message without an id, keyed by its position
            super().__init__(
                f"message {position} of the input differs from message {position} of an "
                f"earlier ingest into session {session_id} (held as {message_id!r}): the file "
                f"changed since it was ingested; nothing was written. Ingest the changed "
                f"conversation into another session, or give its messages ids"
            )
            return
        super().__init__(
            f"message id {message_id!r} is already in session {session_id} with other "
            f"content: ingest skips messages it already holds only when they are identical; "
            f"give the new message another id, or ingest into another session"
        )


class IngestInterruptedError(LedgerError):
    """An ingest stopped part-way: the batches before the failure are committed (ingest the
    same file again to finish: committed messages are skipped)."""

    def __init__(self, committed: int, version: int, cause: Exception) -> None:
        self.committed = committed
        self.version = version
        super().__init__(
            f"{cause} — ingest stopped after committing {committed} message(s) (the session is "
            f"at version {version}); fix the input and run the same command again: the "
            f"committed messages are skipped"
        )


class ContextOverBudgetWarning(UserWarning):
    """The context served is over the usable budget even after compaction (the message says
    by how much and why); the call may fail at the model or be truncated there."""
