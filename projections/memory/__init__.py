"""Long-term memory: proposals, consent, the tenant policy, the promoter, recall, forgetting.

Only what the user allowed (a ``ConsentGranted`` whose scope covers it) or what the tenant's
policy allows is promoted, by a separate process (:class:`Promoter`); everything promoted keeps
its sources, confidence, expiry and basis, and can be retracted or forgotten. See docs/memory.md.

The names below are imported on first use: a process that only registers the memory events
(every ledger does) or reads a session does not load the promoter, the service and the
sanitiser they bring.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from projections.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from projections.memory.events import consent_stream, memory_stream
    from projections.memory.policy import MemoryPolicy
    from projections.memory.promoter import Promoter, PromotionReport
    from projections.memory.rules import Candidate, RecalledMemory
    from projections.memory.service import ForgetReceipt, LongTermMemory
    from projections.memory.state import UserMemory

_EXPORTS = {
    "Candidate": "projections.memory.rules",
    "ForgetReceipt": "projections.memory.service",
    "LongTermMemory": "projections.memory.service",
    "MemoryPolicy": "projections.memory.policy",
    "Promoter": "projections.memory.promoter",
    "PromotionReport": "projections.memory.promoter",
    "RecalledMemory": "projections.memory.rules",
    "UserMemory": "projections.memory.state",
    "consent_stream": "projections.memory.events",
    "memory_stream": "projections.memory.events",
}

__all__ = [
    "Candidate",
    "ForgetReceipt",
    "LongTermMemory",
    "MemoryPolicy",
    "Promoter",
    "PromotionReport",
    "RecalledMemory",
    "UserMemory",
    "consent_stream",
    "memory_stream",
]


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
