"""The context manager :meth:`LedgerSaver.from_conn_string
<projections.integrations.langgraph.LedgerSaver.from_conn_string>` gives, as LangGraph's own
savers do: ``with`` and ``async with`` alike, the saver closed on the way out. Generic over
anything with a blocking ``close``, so that it needs nothing of the saver's module."""

from __future__ import annotations

import asyncio
from typing import Generic, Protocol, TypeVar

__all__ = ["OpenedSaver"]


class _Closable(Protocol):
    def close(self) -> None: ...


S = TypeVar("S", bound=_Closable)


class OpenedSaver(Generic[S]):
    """The context of :meth:`LedgerSaver.from_conn_string`: sync and async alike."""

    def __init__(self, saver: S) -> None:
        self.saver = saver

    def __enter__(self) -> S:
        return self.saver

    def __exit__(self, *_: object) -> None:
        self.saver.close()

    async def __aenter__(self) -> S:
        return self.saver

    async def __aexit__(self, *_: object) -> None:
        await asyncio.to_thread(self.saver.close)  # it waits for the saver's own loop
