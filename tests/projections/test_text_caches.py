"""Every in-process cache of message text is emptied by an erasure: after a compaction has
filled them (values, counts, the last summary block, key paths, stems, names the user
said, cleaned inputs, verdicts), erasing one message leaves none of them holding text."""

from __future__ import annotations

from pathlib import Path

from eventstore import EventStore
from projections.context import tokens
from projections.context.budget import Budget
from projections.ledger import Ledger
from projections.recall import terms
from projections.summaries import block_v2, values
from projections.text_caches import _CACHES

BUDGET = Budget(context_limit=1200, max_output_tokens=100, tool_reserve=0, safety_margin=0)


def sizes() -> dict[str, int]:
    return {
        "values": values.text_values.cache_info().currsize,
        "short counts": tokens._short_count.cache_info().currsize,
        "long counts": tokens._long_count.cache_info().currsize,
        "tool candidates": values._tool_candidates.cache_info().currsize,
        "turn candidates": values._turn_candidates.cache_info().currsize,
        "key paths": block_v2._path_key.cache_info().currsize,
        "stems": terms._stem.cache_info().currsize,
        "names said": values._matcher.cache_info().currsize,
        "last block": int(block_v2._LAST.entry is not None),
    }


async def test_an_erasure_empties_every_cache_of_text(tmp_path: Path) -> None:
    async with EventStore.open(tmp_path / "ledger.db") as store:
        ledger = Ledger(store)
        session = ledger.session("acme", "trip")
        rows = [
            {"id": f"m{i}", "role": "user" if i % 2 == 0 else "assistant",
             "content": f"Booking ZX{i:04d}: seat {i}A, my password is hunter{i}. " * 3}
            for i in range(40)
        ]  # fmt: skip
        call = {"id": "c1", "name": "find_booking", "arguments": '{"ref": "ZX0001"}'}
        result = '{"booking": {"ref": "ZX0001", "seat": "1A", "fare": "EUR 320"}}'
        rows[1:1] = [
            {"id": "a0", "role": "assistant", "tool_calls": [call]},
            {"id": "t0", "role": "tool", "tool_call_id": "c1", "content": result},
            # a name the user types in lower case and the assistant spells (echoes.py)
            {"id": "u0", "role": "user", "content": "we land in new york at noon"},
            {"id": "r0", "role": "assistant", "content": "Noted, you land in New York at noon."},
        ]
        await session.append(rows)
        outcome = await session.compact(BUDGET, keep_groups=2)
        assert outcome.summarised
        await session.search("seat booking", 3)
        filled = sizes()
        assert all(filled.values()), filled  # the compaction and the search filled each one
        event = (await store.read_stream("acme", "session/trip", to_version=1))[0]
        await ledger.erase("acme", [str(event.event_id)], reason="test", requested_by="dpo")
        assert set(sizes().values()) == {0}, sizes()
        assert _CACHES  # and every registered lru_cache went with them, named or not
        left = {
            clear.__self__.__wrapped__.__qualname__: clear.__self__.cache_info().currsize
            for clear in _CACHES
            if clear.__self__.cache_info().currsize
        }
        assert left == {}
