"""The gate benchmark's one rule of its own: which changed digits it counts apart."""

from __future__ import annotations

from projections.context.messages import Message
from projections.summaries.schema_v2 import CompactionSummaryV2
from tests.benchmarks.gate_damage import _changed_text_value
from tests.projections.summaries.offline_summary import summary_of


def _summary() -> CompactionSummaryV2:
    return summary_of(
        [
            Message(id="m1", role="user", content="Which departures are left tonight?"),
            Message(id="m2", role="assistant", content="Trains at 03:00 and 00:00 from Pier 4."),
        ],
        400,
    )


def _with_value(summary: CompactionSummaryV2, old: str, **update: object) -> CompactionSummaryV2:
    values = [v.model_copy(update=update) if v.value == old else v for v in summary.values]
    return summary.model_copy(update={"values": values})


def test_a_text_value_changed_into_another_is_counted_apart() -> None:
    summary = _summary()
    assert {"03:00", "00:00"} <= {v.value for v in summary.values}
    assert _changed_text_value(summary, _with_value(summary, "03:00", value="00:00"))


def test_a_keyed_or_anchored_value_and_an_untouched_summary_are_not() -> None:
    summary = _summary()
    assert not _changed_text_value(summary, summary)
    keyed = _with_value(summary, "03:00", value="00:00", path="trains[0].time")
    assert not _changed_text_value(summary, keyed)
    anchored = _with_value(summary, "03:00", value="00:00", anchor="tonight")
    assert not _changed_text_value(summary, anchored)
