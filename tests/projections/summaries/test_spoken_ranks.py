"""The summary of a conversation keeps the values people said, ranked against the statements
that hold them and the values its tool calls used (the user's words next to the call's)."""

from __future__ import annotations

import json

from projections.context.messages import Message
from projections.summaries.block_v2 import render_summary_block_v2
from tests.projections.summaries.offline_summary import summary_of


def test_the_summary_keeps_the_users_words_next_to_the_calls_values() -> None:
    call = {"date": "2019-03-08", "time": "13:30", "party_size": 2, "restaurant": "Ruth's Chris"}
    chunk = [
        Message(
            id="u1",
            role="user",
            content="A table for two at Ruth's Chris Steak House on the 8th, "
            "half past 1 in the afternoon.",
        ),
        Message(
            id="a1",
            role="assistant",
            tool_calls=[{"id": "c1", "name": "reserve", "arguments": json.dumps(call)}],
        ),
        Message(id="t1", role="tool", tool_call_id="c1", content='{"status": "booked"}'),
        Message(id="a2", role="assistant", content="Booked."),
    ]
    block = render_summary_block_v2(summary_of(chunk, 400))
    for said in ("table for two", "the 8th", "half past 1 in the afternoon", "Steak House"):
        assert said in block, block
    for canonical in ("2019-03-08", "13:30"):
        assert canonical in block, block


def test_a_users_value_outranks_the_long_statement_that_holds_it() -> None:
    # The value says in a few tokens what the statement says in thirty: with room for one,
    # the value is kept (docs/quality.md, "A statement yields to its values").
    statement = (
        "Honestly, after all those years of late nights and endless spreadsheets, the one tool "
        "I keep coming back to for every single deal is Dealogic Connect, no question about it."
    )
    chunk = [Message(id="u1", role="user", content=statement)]
    summary = summary_of(chunk, 70)
    assert [v.value for v in summary.values] == ["Dealogic Connect"], summary
    assert summary.facts == [], summary


def test_an_assistants_statement_without_a_value_yields_to_a_tools_value() -> None:
    # A request or a pleasantry of the agent's holds nothing a later turn can act on; a tool's
    # value does (docs/quality.md, "An assistant's statement without a value").
    chunk = [
        Message(
            id="a1",
            role="assistant",
            tool_calls=[{"id": "c1", "name": "get_flight", "arguments": "{}"}],
        ),
        Message(id="t1", role="tool", tool_call_id="c1", content='{"terminal": "North"}'),
        Message(
            id="a2",
            role="assistant",
            content="Please let me know which option you would like, if you need anything more.",
        ),
    ]
    roomy = summary_of(chunk, 400)
    assert [f.value for f in roomy.facts] == [chunk[2].content]  # a fact when there is room
    for budget in range(40, 160, 5):  # at every budget, the statement only beside the value
        summary = summary_of(chunk, budget)
        if summary.facts:
            assert "North" in [v.value for v in summary.values], (budget, summary)


def test_a_tally_ranks_under_the_users_statement_that_holds_it() -> None:
    # "three continents" says less than the sentence it is in; a count of known units ("two
    # tickets") still ranks over the statement (docs/quality.md, "Orders, seats and tallies")
    from projections.summaries.offline_v2 import _STATEMENT_WITH_VALUE
    from projections.summaries.values import value_candidates

    said = Message(id="u1", role="user", content="We covered three continents with two tickets.")
    found = {c.value: c for c in value_candidates([said], [1])}
    assert found["three continents"].kind == "tally"
    assert found["three continents"].score < _STATEMENT_WITH_VALUE
    assert found["two tickets"].score > _STATEMENT_WITH_VALUE
