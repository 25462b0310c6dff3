"""Read models of the in-memory backend: rows and checkpoints in dicts.

Its pre-filter returns the rows holding any asked term, the newest first, as every backend
does; callers rank them with the corpus figures of :meth:`MemoryReadModels.document_stats`.
"""

from __future__ import annotations

from collections.abc import Sequence

from eventstore.recorder import Document, DocumentStats

__all__ = ["MemoryReadModels"]

_Key = tuple[str, str]  # (tenant, read model name)


class MemoryReadModels:
    """The :class:`~eventstore.recorder.ReadModelStore` part of the memory backend."""

    def __init__(self) -> None:
        self._documents: dict[_Key, dict[str, Document]] = {}
        self._positions: dict[_Key, int] = {}

    async def read_model_position(self, tenant_id: str, name: str) -> int:
        return self._positions.get((tenant_id, name), 0)

    async def commit_documents(
        self,
        tenant_id: str,
        name: str,
        *,
        expected_position: int,
        position: int,
        upserts: Sequence[Document],
        deletes: Sequence[str] = (),
    ) -> bool:
        key = (tenant_id, name)
        if self._positions.get(key, 0) != expected_position:
            return False
        rows = self._documents.setdefault(key, {})
        for document_key in deletes:
            rows.pop(document_key, None)
        for document in upserts:
            rows[document.key] = document
        self._positions[key] = position
        return True

    def _within(
        self, tenant_id: str, name: str, scopes: Sequence[str] | None, max_position: int | None
    ) -> list[Document]:
        wanted = set(scopes) if scopes is not None else None
        return [
            document
            for document in self._documents.get((tenant_id, name), {}).values()
            if (wanted is None or document.scope in wanted)
            and (max_position is None or document.position <= max_position)
        ]

    async def search_documents(
        self,
        tenant_id: str,
        name: str,
        terms: Sequence[str],
        *,
        scopes: Sequence[str] | None,
        limit: int,
        max_position: int | None = None,
    ) -> list[Document]:
        asked = set(terms)
        found = [
            document
            for document in self._within(tenant_id, name, scopes, max_position)
            if asked.intersection(document.terms.split())
        ]
        found.sort(key=lambda document: document.position, reverse=True)
        return found[:limit]

    async def document_stats(
        self,
        tenant_id: str,
        name: str,
        terms: Sequence[str],
        *,
        scopes: Sequence[str] | None,
        max_position: int | None = None,
    ) -> DocumentStats:
        rows = self._within(tenant_id, name, scopes, max_position)
        frequencies = dict.fromkeys(terms, 0)
        for document in rows:
            for term in set(document.terms.split()) & frequencies.keys():
                frequencies[term] += 1
        return DocumentStats(len(rows), sum(d.length for d in rows), frequencies)

    async def read_documents(
        self, tenant_id: str, name: str, keys: Sequence[str]
    ) -> list[Document]:
        rows = self._documents.get((tenant_id, name), {})
        return [rows[key] for key in dict.fromkeys(keys) if key in rows]

    async def reset_read_model(self, tenant_id: str, name: str) -> None:
        self._documents.pop((tenant_id, name), None)
        self._positions.pop((tenant_id, name), None)

    def drop_documents_of(self, tenant_id: str, event_ids: Sequence[str]) -> None:
        """Delete every read-model row of the tenant derived from these events (erasure)."""
        erased = set(event_ids)
        for (tenant, _), rows in self._documents.items():
            if tenant == tenant_id:
                for key in [k for k, d in rows.items() if d.event_id in erased]:
                    del rows[key]
