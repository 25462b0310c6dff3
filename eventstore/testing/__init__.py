"""The contract every backend of the event store keeps, as a test suite shipped with the
package, so that a backend outside this repository can run it too.

Subclass :class:`EventStoreContract` in a test module and provide a ``store_url`` fixture that
yields the URL of a fresh, empty database of your backend::

    class TestMyBackend(EventStoreContract):
        @pytest.fixture
        def store_url(self) -> str:
            return "mybackend://..."

Every test then runs on it: appends, optimistic concurrency, idempotent retries, atomic
batches, validation, tenant isolation, verification, erasure, subscriptions, snapshots and read
models. Needs pytest and pytest-asyncio (``asyncio_mode = "auto"``).
"""

from __future__ import annotations

from eventstore.testing.idempotency import IdempotencyContract
from eventstore.testing.log import LogContract, message
from eventstore.testing.read_models import ReadModelContract
from eventstore.testing.snapshots import SnapshotContract

__all__ = [
    "EventStoreContract",
    "IdempotencyContract",
    "LogContract",
    "ReadModelContract",
    "SnapshotContract",
    "message",
]


class EventStoreContract(LogContract, IdempotencyContract, SnapshotContract, ReadModelContract):
    """The whole contract (the log's, idempotency's, snapshots' and the read models')."""
