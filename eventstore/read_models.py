"""Read models with rows of their own, through the store: names checked, the store opened.

A read model (the search index of projections.recall, say) folds the tenant's log into
:class:`~eventstore.recorder.Document` rows and commits them with its checkpoint in one
transaction; erasing an event deletes the rows derived from it in the erasure's transaction.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence

from eventstore.errors import EventValidationError
from eventstore.names import validate_tenant
from eventstore.recorder import Document, DocumentStats, ReadModelStore

__all__ = ["ReadModels"]

_MAX_NAME = 64


def _name(name: str) -> str:
    if not isinstance(name, str) or not name or len(name) > _MAX_NAME or not name.isprintable():
        raise EventValidationError(
            f"a read model's name is 1 to {_MAX_NAME} printable characters, got {name!r}"
        )
    return name


class ReadModels:
    """The read-model verbs of an :class:`~eventstore.store.EventStore` (``store.read_models``)."""

    def __init__(self, store: ReadModelStore, opened: Callable[[], Awaitable[None]]) -> None:
        self._store = store
        self._opened = opened

    async def position(self, tenant_id: str, name: str) -> int:
        """The tenant position the read model has folded up to (0: nothing yet)."""
        await self._opened()
        return await self._store.read_model_position(validate_tenant(tenant_id), _name(name))

    async def commit(
        self,
        tenant_id: str,
        name: str,
        *,
        expected_position: int,
        position: int,
        upserts: Sequence[Document] = (),
        deletes: Sequence[str] = (),
    ) -> bool:
        """Write rows and move the checkpoint atomically; False when another process moved
        the checkpoint first (nothing written: catch up again)."""
        if position < expected_position:
            raise EventValidationError(
                f"a read model's checkpoint only moves forward: {expected_position} -> {position}"
            )
        await self._opened()
        return await self._store.commit_documents(
            validate_tenant(tenant_id),
            _name(name),
            expected_position=expected_position,
            position=position,
            upserts=upserts,
            deletes=deletes,
        )

    async def search(
        self,
        tenant_id: str,
        name: str,
        terms: Sequence[str],
        *,
        scopes: Sequence[str] | None = None,
        limit: int = 100,
        max_position: int | None = None,
    ) -> list[Document]:
        """Rows holding any of ``terms``, the newest first (a pre-filter: rank them with
        :meth:`stats`)."""
        await self._opened()
        return await self._store.search_documents(
            validate_tenant(tenant_id),
            _name(name),
            terms,
            scopes=scopes,
            limit=limit,
            max_position=max_position,
        )

    async def stats(
        self,
        tenant_id: str,
        name: str,
        terms: Sequence[str],
        *,
        scopes: Sequence[str] | None = None,
        max_position: int | None = None,
    ) -> DocumentStats:
        """Row count, total length and per-term row frequencies, for ranking."""
        await self._opened()
        return await self._store.document_stats(
            validate_tenant(tenant_id), _name(name), terms, scopes=scopes, max_position=max_position
        )

    async def find(
        self,
        tenant_id: str,
        name: str,
        terms: Sequence[str],
        *,
        scopes: Sequence[str] | None = None,
        limit: int = 100,
        max_position: int | None = None,
    ) -> tuple[list[Document], DocumentStats]:
        """:meth:`stats` for ``terms`` and :meth:`search` for the rarest of them whose rows
        together fit ``limit`` (at least the rarest that occurs), read in one transaction and
        one round trip: what a ranking needs."""
        await self._opened()
        return await self._store.find_documents(
            validate_tenant(tenant_id),
            _name(name),
            terms,
            scopes=scopes,
            limit=limit,
            max_position=max_position,
        )

    async def read(self, tenant_id: str, name: str, keys: Sequence[str]) -> list[Document]:
        """The rows with these keys."""
        await self._opened()
        return await self._store.read_documents(validate_tenant(tenant_id), _name(name), keys)

    async def reset(self, tenant_id: str, name: str) -> None:
        """Drop every row and the checkpoint (the next catch-up rebuilds from the log)."""
        await self._opened()
        await self._store.reset_read_model(validate_tenant(tenant_id), _name(name))
