"""Long-term memory: proposals, consent, the tenant policy, the promoter, recall, forgetting.

Only what the user allowed (a ``ConsentGranted`` whose scope covers it) or what the tenant's
policy allows is promoted, by a separate process (:class:`Promoter`); everything promoted keeps
its sources, confidence, expiry and basis, and can be retracted or forgotten. See docs/memory.md.
"""

from projections.memory.events import consent_stream, memory_stream
from projections.memory.policy import MemoryPolicy
from projections.memory.promoter import Promoter, PromotionReport
from projections.memory.rules import Candidate, RecalledMemory
from projections.memory.service import ForgetReceipt, LongTermMemory
from projections.memory.state import UserMemory

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
