"""OpenTelemetry: appends, renders, compactions and recorded model calls as spans and metrics
with the GenAI semantic-convention names, checked with the SDK's in-memory exporter and
reader."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from eventstore import EventStore
from projections import telemetry
from projections.context.budget import Budget
from projections.ledger import Ledger
from tests.projections.test_compaction import filler

BUDGET = Budget(context_limit=700, max_output_tokens=0, tool_reserve=0, safety_margin=0)


@pytest.fixture
def exported() -> Iterator[tuple[InMemorySpanExporter, InMemoryMetricReader]]:
    spans = InMemorySpanExporter()
    tracing = TracerProvider()
    tracing.add_span_processor(SimpleSpanProcessor(spans))
    reader = InMemoryMetricReader()
    telemetry.configure(tracing, MeterProvider(metric_readers=[reader]))
    yield spans, reader
    telemetry.configure()


def _metrics(reader: InMemoryMetricReader) -> dict[str, list[Any]]:
    data = reader.get_metrics_data()
    found: dict[str, list[Any]] = {}
    for resource in data.resource_metrics if data else []:
        for scope in resource.scope_metrics:
            for metric in scope.metrics:
                found.setdefault(metric.name, []).extend(metric.data.data_points)
    return found


async def test_spans_and_metrics(
    exported: tuple[InMemorySpanExporter, InMemoryMetricReader],
) -> None:
    spans, reader = exported
    async with EventStore.open("memory://") as store:
        session = Ledger(store).session("acme", "trip")
        await session.append(filler(0, 14))
        await session.render(BUDGET, keep_groups=2)
        await session.compact(BUDGET, keep_groups=2, summary_budget=1500)
        await session.record_model_call(input_tokens=420, output_tokens=37, model="gpt-4o")
    by_name = {s.name: s for s in spans.get_finished_spans()}
    assert {"ctxledger.append", "ctxledger.render", "ctxledger.compact", "chat gpt-4o"} <= set(
        by_name
    )
    call = by_name["chat gpt-4o"].attributes
    assert call["gen_ai.operation.name"] == "chat"
    assert call["gen_ai.request.model"] == "gpt-4o"
    assert call["gen_ai.usage.input_tokens"] == 420
    assert call["gen_ai.usage.output_tokens"] == 37
    assert call["gen_ai.conversation.id"] == "trip"
    appends = [s for s in spans.get_finished_spans() if s.name == "ctxledger.append"]
    assert max(s.attributes["ctxledger.events"] for s in appends) >= 14
    assert by_name["ctxledger.compact"].attributes["ctxledger.result"] == "committed"
    metrics = _metrics(reader)
    tokens = {
        p.attributes["gen_ai.token.type"]: p.sum for p in metrics["gen_ai.client.token.usage"]
    }
    assert tokens == {"input": 420, "output": 37}
    assert sum(p.value for p in metrics["ctxledger.events.appended"]) >= 14
    assert metrics["ctxledger.render.duration"]
    assert metrics["ctxledger.compact.duration"]


async def test_without_a_provider_nothing_breaks() -> None:
    telemetry.configure()
    async with EventStore.open("memory://") as store:
        session = Ledger(store).session("acme", "quiet")
        await session.append(filler(0, 2))
        await session.render(BUDGET)


def test_the_api_is_imported_only_when_the_application_uses_opentelemetry() -> None:
    import os
    import subprocess
    import sys

    script = """
import asyncio, sys
from eventstore import EventStore
from projections.context.budget import Budget
from projections.ledger import Ledger

async def main():
    async with EventStore.open("memory://") as store:
        session = Ledger(store).session("acme", "s")
        await session.append([{"role": "user", "content": "hello"}])
        await session.render(Budget(context_limit=4000, max_output_tokens=0))
        print("opentelemetry.trace" in sys.modules)
        from opentelemetry import trace  # the application sets OpenTelemetry up later
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import SimpleSpanProcessor
        from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
        spans = InMemorySpanExporter()
        provider = TracerProvider()
        provider.add_span_processor(SimpleSpanProcessor(spans))
        trace.set_tracer_provider(provider)
        await session.render(Budget(context_limit=4000, max_output_tokens=0))
        print([span.name for span in spans.get_finished_spans()])

asyncio.run(main())
"""
    quiet = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=quiet, check=True
    )
    assert done.stdout.split("\n")[:2] == ["False", "['ctxledger.render']"]
