"""OpenTelemetry spans and metrics for appends, renders, compactions and recorded model calls.

Active when the OpenTelemetry API (``opentelemetry-api``) is installed and the application uses
it (it configured providers here, imported the API or set ``OTEL_*`` variables), and then a
no-op until the application configures a tracer and meter provider; otherwise nothing is
imported and nothing is recorded. Names follow the GenAI semantic conventions where they
apply: a recorded model call is a span ``chat <model>`` with ``gen_ai.operation.name``,
``gen_ai.request.model``, ``gen_ai.usage.input_tokens``, ``gen_ai.usage.output_tokens`` and
``gen_ai.conversation.id`` (the session id), and its tokens go to the histogram
``gen_ai.client.token.usage`` with ``gen_ai.token.type`` = input or output. ctxledger's own
operations are spans ``ctxledger.append``, ``ctxledger.render`` and ``ctxledger.compact`` with
durations in the histograms ``ctxledger.<operation>.duration`` (seconds) and the counter
``ctxledger.events.appended``.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from importlib import import_module
from typing import Any

__all__ = ["configure", "conversation", "model_call", "operation"]

_SCOPE = "ctxledger"
AttributeValue = str | int | float | bool


class _Telemetry:
    """The tracer and instruments, made on first use (so providers set later are used)."""

    def __init__(self) -> None:
        self.ready = False
        self.tracer: Any = None
        self.instruments: dict[str, Any] = {}
        self.providers: tuple[Any, Any] = (None, None)

    def load(self) -> bool:
        if not self.ready:
            if not self.wanted():
                return False  # asked again next time: the application may set OTel up later
            self.ready = True
            try:
                trace = import_module("opentelemetry.trace")
                metrics = import_module("opentelemetry.metrics")
            except ImportError:
                return False
            tracing, metering = self.providers
            self.tracer = (tracing or trace.get_tracer_provider()).get_tracer(_SCOPE)
            meter = (metering or metrics.get_meter_provider()).get_meter(_SCOPE)
            self.instruments = {
                "tokens": meter.create_histogram(
                    "gen_ai.client.token.usage", unit="{token}", description="tokens per call"
                ),
                "events": meter.create_counter(
                    "ctxledger.events.appended", unit="{event}", description="events appended"
                ),
                **{
                    name: meter.create_histogram(
                        f"ctxledger.{name}.duration", unit="s", description=f"{name} time"
                    )
                    for name in ("append", "render", "compact")
                },
            }
        return self.tracer is not None

    def wanted(self) -> bool:
        """Whether the application uses OpenTelemetry: it passed providers to
        :func:`configure`, imported the API (setting a provider, or run under
        ``opentelemetry-instrument``) or set it up through ``OTEL_*`` variables. Otherwise the
        API is not imported (11 ms, a third of a cold render): its global providers would be
        no-ops anyway."""
        return any(self.providers) or "opentelemetry.trace" in sys.modules or _OTEL_ENVIRONMENT


# Read once, at import: every operation asks until the application uses OpenTelemetry, and
# walking the environment costs 7 µs a time against 18 ns for the module check.
_OTEL_ENVIRONMENT = any(name.startswith("OTEL_") for name in os.environ)
_telemetry = _Telemetry()


def configure(tracer_provider: Any = None, meter_provider: Any = None) -> None:
    """Use these providers instead of the global ones (None: the global ones, the default);
    takes effect at the next operation."""
    _telemetry.providers = (tracer_provider, meter_provider)
    _telemetry.ready = False
    _telemetry.tracer = None


def conversation(tenant_id: str, session_id: str) -> dict[str, AttributeValue]:
    """The attributes naming a session."""
    return {"gen_ai.conversation.id": session_id, "ctxledger.tenant": tenant_id}


@contextmanager
def operation(name: str, attributes: Mapping[str, AttributeValue]) -> Iterator[dict[str, Any]]:
    """A span ``ctxledger.<name>`` and its duration; the caller may add result attributes to
    the dict it is given (``events`` also counts appended events)."""
    if not _telemetry.load():
        yield {}
        return
    results: dict[str, Any] = {}
    began = time.perf_counter()
    with _telemetry.tracer.start_as_current_span(
        f"ctxledger.{name}", attributes=dict(attributes)
    ) as span:
        yield results
        for key, value in results.items():
            span.set_attribute(f"ctxledger.{key}", value)
    _telemetry.instruments[name].record(time.perf_counter() - began, dict(attributes))
    if "events" in results:
        _telemetry.instruments["events"].add(results["events"], dict(attributes))


def model_call(
    attributes: Mapping[str, AttributeValue],
    *,
    model: str | None,
    input_tokens: int,
    output_tokens: int,
    cached_input_tokens: int = 0,
) -> None:
    """Record a model call (already made) as a GenAI span and token-usage measurements."""
    if not _telemetry.load():
        return
    call = {
        **attributes,
        "gen_ai.operation.name": "chat",
        **({"gen_ai.request.model": model} if model else {}),
    }
    usage = {
        "gen_ai.usage.input_tokens": input_tokens,
        "gen_ai.usage.output_tokens": output_tokens,
        "gen_ai.usage.cache_read.input_tokens": cached_input_tokens,
    }
    name = f"chat {model}" if model else "chat"
    with _telemetry.tracer.start_as_current_span(name, attributes={**call, **usage}):
        pass
    tokens = _telemetry.instruments["tokens"]
    tokens.record(input_tokens, {**call, "gen_ai.token.type": "input"})
    tokens.record(output_tokens, {**call, "gen_ai.token.type": "output"})
