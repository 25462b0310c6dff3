"""The context manager :meth:`LedgerSaver.from_conn_string
<projections.integrations.langgraph.LedgerSaver.from_conn_string>` gives, as LangGraph's own
savers do: ``with`` and ``async with`` alike, the saver closed on the way out."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from projections.integrations.langgraph import LedgerSaver

__all__ = ["OpenedSaver"]


class OpenedSaver:
    """The context of :meth:`LedgerSaver.from_conn_string`: sync and async alike."""

    def __init__(self, saver: LedgerSaver) -> None:
        self.saver = saver

    def __enter__(self) -> LedgerSaver:
        return self.saver

    def __exit__(self, *_: object) -> None:
        self.saver.close()

    async def __aenter__(self) -> LedgerSaver:
        return self.saver

    async def __aexit__(self, *_: object) -> None:
        await asyncio.to_thread(self.saver.close)  # it waits for the saver's own loop
