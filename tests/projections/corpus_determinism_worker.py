"""Compact and render every conversation of the corpora at 4x and 8x, without and with
recall, and print a digest of each request:
``python -m tests.projections.corpus_determinism_worker``. Run under different
``PYTHONHASHSEED`` values, the output must be byte-identical (test_determinism.py); the corpora
are read from ``$CTXLEDGER_CORPORA``.

The one-conversation test did not catch a fact key that moved with the hash seed (two terms
found at one place, tau-bench run 3-1): its conversation has no such clause. The corpora's
187 conversations hold many.
"""

from __future__ import annotations

import asyncio
import hashlib
import json

from eventstore import EventStore
from projections.context.messages import text_of
from projections.ledger import Ledger
from projections.recall.search import RecallOptions
from tests.benchmarks.quality import KEEP_GROUPS, budget_for, corpora, wire_text

RATIOS = (4, 8)


async def digests() -> dict[str, str]:
    """Each conversation's request after compaction at each ratio, and the same with recall
    for an old turn's words, as a sha256 of its wire text, keyed ``name@ratio`` (``name@ratio
    recall``)."""
    found = {}
    for cases in corpora(None).values():
        for name, messages, _ in cases:
            for ratio in RATIOS:
                async with EventStore.open("memory://") as store:
                    session = Ledger(store, snapshot_every=0).session("determinism", name)
                    await session.append(messages)
                    budget = budget_for(await session.state(), ratio)
                    await session.compact(budget, keep_groups=KEEP_GROUPS, target=1.0, max_steps=8)
                    rendered = await session.render(budget, keep_groups=KEEP_GROUPS)
                    # Recall for an old turn's words: ranks, ties and the block's packing.
                    asked = RecallOptions(query=text_of(messages[len(messages) // 3]))
                    recalled = await session.render(budget, keep_groups=KEEP_GROUPS, recall=asked)
                for kind, request in (("", rendered), (" recall", recalled)):
                    text = wire_text(request).encode()
                    found[f"{name}@{ratio}{kind}"] = hashlib.sha256(text).hexdigest()
    return found


if __name__ == "__main__":
    print(json.dumps(asyncio.run(digests()), sort_keys=True))
