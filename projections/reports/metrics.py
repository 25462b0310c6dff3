"""The acceptance metrics in Prometheus terms: counters as ``_total`` counters, compaction
latency as a histogram in seconds, ratios as gauges, and labels bounded by default.

Every series carries ``tenant``; ``session`` only when asked (``per_session=True``), because a
label per session makes the number of series grow without bound. :class:`StatsCollector` is a
``prometheus_client`` collector over :class:`~projections.reports.stats.TenantStats`: the
textfile form (``ctxledger metrics``) and a scrape endpoint (``ctxledger metrics --serve``)
both expose it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
    Metric,
)

from projections.reports.stats import SessionStats, TenantStats

__all__ = ["LATENCY_BUCKETS", "StatsCollector", "metrics_text"]

#: Upper bounds (seconds) of the compaction latency histogram.
LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)

_COUNTERS = {
    "messages": "messages appended",
    "model_calls": "model calls recorded",
    "tool_calls": "tool calls made",
    "protocol_issues": "tool protocol issues recorded (orphan results, calls without results)",
    "rollbacks": "summary rollbacks",
    "results_masked": "tool results masked in the served context",
    "flagged_messages": "messages flagged at append (instruction-like or hostile content)",
    "neutralised": "spots neutralised before summarising (fake blocks, template tokens)",
}
_TOKENS = {
    "history": "history_tokens",
    "sent": "sent_tokens",
    "summarizer": "summarizer_tokens",
    "saved": "tokens_saved",
    "masking_saved": "mask_tokens_saved",
}
_GAUGES = {
    "compression_ratio": "history tokens at each call / input tokens sent",
    "retention": "key items present in the rendered context / key items",
    "protocol_error_rate": "protocol issues / tool calls",
    "rollbacks_per_commit": "rollbacks / committed summaries",
}


class StatsCollector:
    """Metric families for the stats of some tenants (``stats`` is called on every scrape)."""

    def __init__(self, stats: Callable[[], Sequence[TenantStats]], *, per_session: bool = False):
        self._source = stats
        self.per_session = per_session

    def collect(self) -> Iterator[Metric]:
        """The families, one sample per tenant (and session, if asked)."""
        tenants = self._source()  # once per scrape
        rows = [(tenant.tenant_id, group) for tenant in tenants for group in self._groups(tenant)]
        labels = ["tenant", "session"] if self.per_session else ["tenant"]
        families = [
            *self._counters(rows, labels),
            *self._gauges(rows, labels),
            self._latency(rows, labels),
            *self._tenant_families(tenants),
        ]
        # A family without a sample is left out (a HELP and TYPE with nothing under them).
        yield from (family for family in families if family.samples)

    def _groups(self, tenant: TenantStats) -> list[tuple[str | None, list[SessionStats]]]:
        if self.per_session:
            return [(s.session_id, [s]) for s in tenant.sessions]
        return [(None, list(tenant.sessions))]

    @staticmethod
    def _values(tenant: str, session: str | None) -> list[str]:
        return [tenant] if session is None else [tenant, session]

    def _counters(self, rows: list[Row], labels: list[str]) -> Iterator[Metric]:
        for name, text in _COUNTERS.items():
            family = CounterMetricFamily(f"ctxledger_{name}", text, labels=labels)
            for tenant, (session, group) in rows:
                family.add_metric(
                    self._values(tenant, session), sum(getattr(s, name) for s in group)
                )
            yield family
        tokens = CounterMetricFamily("ctxledger_tokens", "tokens by kind", labels=[*labels, "kind"])
        summaries = CounterMetricFamily(
            "ctxledger_summaries", "summaries by gate result", labels=[*labels, "result"]
        )
        redactions = CounterMetricFamily(
            "ctxledger_redactions", "secrets redacted before summarising", labels=[*labels, "kind"]
        )
        for tenant, (session, group) in rows:
            values = self._values(tenant, session)
            for kind, field in _TOKENS.items():
                tokens.add_metric([*values, kind], sum(getattr(s, field) for s in group))
            summaries.add_metric([*values, "committed"], sum(s.summaries_committed for s in group))
            summaries.add_metric([*values, "rejected"], sum(s.summaries_rejected for s in group))
            kinds = sorted({k for s in group for k in s.redactions})
            for kind in kinds:
                redactions.add_metric(
                    [*values, kind], sum(s.redactions.get(kind, 0) for s in group)
                )
        yield from (tokens, summaries, redactions)

    def _gauges(self, rows: list[Row], labels: list[str]) -> Iterator[Metric]:
        for name, text in _GAUGES.items():
            family = GaugeMetricFamily(f"ctxledger_{name}", text, labels=labels)
            for tenant, (session, group) in rows:
                value = _ratio_of(name, group)
                if value is not None:
                    family.add_metric(self._values(tenant, session), value)
            yield family

    def _latency(self, rows: list[Row], labels: list[str]) -> Metric:
        family = HistogramMetricFamily(
            "ctxledger_compaction_duration_seconds",
            "time of one compaction: summarizer, gate and append",
            labels=labels,
        )
        for tenant, (session, group) in rows:
            seconds = [ms / 1000 for s in group for ms in s.compaction_latencies_ms]
            buckets = [(_bound(b), sum(1 for x in seconds if x <= b)) for b in LATENCY_BUCKETS]
            buckets.append(("+Inf", len(seconds)))
            family.add_metric(self._values(tenant, session), buckets, sum_value=sum(seconds))
        return family

    @staticmethod
    def _tenant_families(tenants: Sequence[TenantStats]) -> Iterator[Metric]:
        memory = GaugeMetricFamily(
            "ctxledger_memory_candidates",
            "memory candidates by status",
            labels=["tenant", "status"],
        )
        refused = CounterMetricFamily(
            "ctxledger_refused_access",
            "requests refused for reaching outside the tenant",
            labels=["tenant"],
        )
        for tenant in tenants:
            for status, count in tenant.memory.items():
                if status != "users":
                    memory.add_metric([tenant.tenant_id, status], count)
            refused.add_metric([tenant.tenant_id], tenant.refused_access)
        yield from (memory, refused)


Row = tuple[str, tuple[str | None, list[SessionStats]]]


def _ratio_of(name: str, group: list[SessionStats]) -> float | None:
    if len(group) == 1:
        value = getattr(group[0], name)
        return None if value is None else float(value)
    parts = {
        "compression_ratio": (
            sum((s.compression_ratio or 0) * s.sent_tokens for s in group),
            sum(s.sent_tokens for s in group),
        ),
        "retention": (sum(s.key_items_present for s in group), sum(s.key_items for s in group)),
        "protocol_error_rate": (
            sum(s.protocol_issues for s in group),
            sum(s.tool_calls for s in group),
        ),
        "rollbacks_per_commit": (
            sum(s.rollbacks for s in group),
            sum(s.summaries_committed for s in group),
        ),
    }[name]
    return parts[0] / parts[1] if parts[1] else None


def _bound(seconds: float) -> str:
    return f"{seconds:g}"


def metrics_text(tenants: Sequence[TenantStats], *, per_session: bool = False) -> str:
    """The Prometheus text exposition of the tenants' metrics (the textfile form)."""
    registry = CollectorRegistry()
    registry.register(StatsCollector(lambda: tenants, per_session=per_session))
    return generate_latest(registry).decode()
