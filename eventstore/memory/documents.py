"""Read models of the in-memory backend: rows and checkpoints in dicts.

Its pre-filter returns the rows holding any asked term, the newest first, as every backend
does; callers rank them with the corpus figures of :meth:`MemoryReadModels.document_stats`.
"""

from __future__ import annotations

from collections.abc import Sequence

from eventstore.document_stats import StatChanges, rarest_terms, stat_changes, without_rows
from eventstore.recorder import Document, DocumentStats

__all__ = ["MemoryReadModels"]

_Key = tuple[str, str]  # (tenant, read model name)


class MemoryReadModels:
    """The :class:`~eventstore.recorder.ReadModelStore` part of the memory backend."""

    def __init__(self) -> None:
        self._documents: dict[_Key, dict[str, Document]] = {}
        self._positions: dict[_Key, int] = {}
        # The corpus figures kept per scope, as the SQL backends keep them.
        self._scopes: dict[_Key, dict[str, tuple[int, int]]] = {}
        self._terms: dict[_Key, dict[tuple[str, str], int]] = {}

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
        replaced = [
            rows[k] for k in dict.fromkeys([*deletes, *(d.key for d in upserts)]) if k in rows
        ]
        removed = [(d.scope, d.terms) for d in replaced]
        self._apply(key, stat_changes([(d.scope, d.terms) for d in upserts], removed))
        for document_key in deletes:
            rows.pop(document_key, None)
        for document in upserts:
            rows[document.key] = document
        self._positions[key] = position
        return True

    def _apply(self, key: _Key, changes: StatChanges) -> None:
        scopes = self._scopes.setdefault(key, {})
        for scope, count, length in changes.scopes:
            was = scopes.get(scope, (0, 0))
            scopes[scope] = (was[0] + count, was[1] + length)
            if scopes[scope][0] <= 0:
                del scopes[scope]
        terms = self._terms.setdefault(key, {})
        for scope, term, count in changes.terms:
            terms[scope, term] = terms.get((scope, term), 0) + count
            if terms[scope, term] <= 0:
                del terms[scope, term]

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
        key = (tenant_id, name)
        held = self._scopes.get(key, {})
        wanted = held.keys() if scopes is None else set(scopes) & held.keys()
        counts = self._terms.get(key, {})
        frequencies = {
            term: sum(counts.get((scope, term), 0) for scope in wanted)
            for term in dict.fromkeys(terms)
        }
        stats = DocumentStats(
            sum(held[s][0] for s in wanted), sum(held[s][1] for s in wanted), frequencies
        )
        if max_position is None:
            return stats
        later = [
            d.terms
            for d in self._within(tenant_id, name, scopes, None)
            if d.position > max_position
        ]
        return without_rows(stats, later)

    async def find_documents(
        self,
        tenant_id: str,
        name: str,
        terms: Sequence[str],
        *,
        scopes: Sequence[str] | None,
        limit: int,
        max_position: int | None = None,
    ) -> tuple[list[Document], DocumentStats]:
        stats = await self.document_stats(
            tenant_id, name, terms, scopes=scopes, max_position=max_position
        )
        chosen = rarest_terms(terms, stats.frequencies, limit)
        if not chosen:
            return [], stats
        found = await self.search_documents(
            tenant_id, name, chosen, scopes=scopes, limit=limit, max_position=max_position
        )
        return found, stats

    async def read_documents(
        self, tenant_id: str, name: str, keys: Sequence[str]
    ) -> list[Document]:
        rows = self._documents.get((tenant_id, name), {})
        return [rows[key] for key in dict.fromkeys(keys) if key in rows]

    async def reset_read_model(self, tenant_id: str, name: str) -> None:
        for table in (self._documents, self._positions, self._scopes, self._terms):
            table.pop((tenant_id, name), None)

    def drop_documents_of(self, tenant_id: str, event_ids: Sequence[str]) -> None:
        """Delete every read-model row of the tenant derived from these events (erasure)."""
        erased = set(event_ids)
        for (tenant, name), rows in self._documents.items():
            if tenant == tenant_id:
                gone = [k for k, d in rows.items() if d.event_id in erased]
                self._apply(
                    (tenant, name), stat_changes((), [(rows[k].scope, rows[k].terms) for k in gone])
                )
                for key in gone:
                    del rows[key]
