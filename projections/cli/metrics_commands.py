"""``ctxledger metrics``: the metrics in Prometheus' text format, or a scrape endpoint."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path

import click

from projections.cli.common import (
    EXIT_ERROR,
    cannot_write,
    cli,
    known_tenant,
    open_store,
    out_file_option,
    run,
    stderr,
    stdout,
)
from projections.ledger import Ledger
from projections.reports.stats import TenantStats, tenant_stats

__all__: list[str] = []


@cli.command("metrics")
@click.option("--tenant", "tenants", multiple=True, help="Only these tenants (default: all).")
@click.option(
    "--per-session",
    is_flag=True,
    help="Label every series with its session too (the series grow with the sessions).",
)
@out_file_option(
    "Write the textfile (for node_exporter's textfile collector) instead of stdout.", required=False
)
@click.option("--serve", is_flag=True, help="Serve /metrics on 127.0.0.1 for a Prometheus scrape.")
@click.option(
    "--port",
    type=click.IntRange(1, 65535),
    default=9464,
    show_default=True,
    help="The port to serve the metrics on.",
)
@click.pass_context
def metrics_command(
    context: click.Context,
    tenants: tuple[str, ...],
    per_session: bool,
    output: Path | None,
    serve: bool,
    port: int,
) -> None:
    """The acceptance metrics as Prometheus metrics: counters (_total), the compaction latency
    histogram in seconds, ratios as gauges; labelled by tenant (and session on request)."""
    from projections.reports.metrics import metrics_text

    def collect() -> list[TenantStats]:
        return run(lambda: _stats(context, tenants))

    if not serve:
        text = metrics_text(collect(), per_session=per_session)
        if output is None:
            click.echo(text, nl=False)
            return
        try:
            output.write_text(text, encoding="utf-8")
        except OSError as error:
            cannot_write(output, error)
        return
    # A scrape that fails answers 500 (prometheus_client), the server stays up.
    _serve(lambda: asyncio.run(_stats(context, tenants)), per_session, port)


async def _stats(context: click.Context, tenants: tuple[str, ...]) -> list[TenantStats]:
    async with open_store(context) as store:
        for name in tenants:
            await known_tenant(store, name)
        names = list(tenants) or await store.tenants()
        ledger = Ledger(store)
        return [await tenant_stats(ledger, name) for name in names]


def _serve(collect: Callable[[], list[TenantStats]], per_session: bool, port: int) -> None:
    from prometheus_client import CollectorRegistry, start_http_server

    from projections.reports.metrics import StatsCollector

    registry = CollectorRegistry()
    registry.register(StatsCollector(collect, per_session=per_session))
    try:
        server, thread = start_http_server(port, addr="127.0.0.1", registry=registry)
    except OSError as error:
        stderr.print(f"[bold red]error:[/] cannot listen on 127.0.0.1:{port}: {error}")
        raise SystemExit(EXIT_ERROR) from None
    stdout.print(f"serving http://127.0.0.1:{port}/metrics (Ctrl-C stops)")
    try:
        while thread.is_alive():
            time.sleep(0.5)
    except KeyboardInterrupt:
        server.shutdown()  # each scrape opened and closed the store: nothing else to close
