"""Commands for operators: ``stats`` (the acceptance metrics) and ``report`` (the time-travel
report)."""

from __future__ import annotations

from pathlib import Path

import click
from rich.table import Table

from projections.cli.common import (
    cannot_write,
    cli,
    json_option,
    known_stream,
    known_tenant,
    open_store,
    out_file_option,
    print_json,
    run,
    stdout,
    stored_session,
)
from projections.cli.params import TENANT_HELP
from projections.cli.progress import task_progress
from projections.ledger import Ledger
from projections.reports.stats import SessionStats, TenantStats, tenant_stats

__all__ = ["prometheus_text"]


# The table's rows: every per-session figure but the id and the raw lists.
_SESSION_METRICS = [
    name
    for name in SessionStats.model_fields
    if name not in ("session_id", "redactions", "consistency_measure", "compaction_latencies_ms")
]


def prometheus_text(stats: TenantStats) -> str:
    """The tenant's metrics in Prometheus' text format (see :mod:`projections.reports.metrics`:
    counters, a latency histogram in seconds, gauges for ratios; labelled by tenant)."""
    from projections.reports.metrics import metrics_text

    return metrics_text([stats])


def _fmt(value: object) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:.3f}" if value < 100 else f"{value:,.0f}"
    return f"{value:,}" if isinstance(value, int) else str(value)


@cli.command("stats")
@click.option("--tenant", required=True, help=TENANT_HELP)
@click.option("--session", "session_id", help="Only this session.")
@json_option("The metrics as JSON.")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["table", "json", "prometheus"]),
    default="table",
    show_default=True,
    help="How to print them (--json is --format json).",
)
@click.pass_context
def stats_command(
    context: click.Context, tenant: str, session_id: str | None, as_json: bool, fmt: str
) -> None:
    """The acceptance metrics per session and for the tenant: compression, retention,
    protocol errors, compaction overhead, rollbacks, staleness, security counters."""

    async def action() -> TenantStats:
        async with open_store(context) as store:
            await known_tenant(store, tenant)
            stored = None if session_id is None else await stored_session(store, tenant, session_id)
            return await tenant_stats(Ledger(store), tenant, session_id=stored)

    stats = run(action)
    if as_json or fmt == "json":
        print_json(stats.model_dump(mode="json"))
        return
    if fmt == "prometheus":
        click.echo(prometheus_text(stats), nl=False)
        return
    table = Table("metric", *[s.session_id for s in stats.sessions], "tenant")
    for name in _SESSION_METRICS:
        total = stats.totals.get(name)
        table.add_row(name, *[_fmt(getattr(s, name)) for s in stats.sessions], _fmt(total))
    table.add_row(
        "redactions",
        *[_fmt(sum(s.redactions.values())) for s in stats.sessions],
        _fmt(stats.totals.get("redactions")),
    )
    stdout.print(table)
    stdout.print(
        f"memory: {', '.join(f'{k} {v}' for k, v in stats.memory.items()) or 'none'}; "
        f"refused access: {stats.refused_access}"
    )
    stdout.print(
        "answer consistency: no model is called here, evidence_present stands in for it "
        "(`ctxledger consistency --base-url URL --answer-model M` asks a model and reports "
        "the share of agreeing answers)"
    )


@cli.command("report")
@click.option("--tenant", required=True, help=TENANT_HELP)
@click.option(
    "--session",
    "session_id",
    help="The session to report on (an Agents SDK session by the id you gave it).",
)
@click.option(
    "--stream",
    "stream_id",
    help="Any other stream instead, by its id from 'ctxledger streams' (an ADK session "
    "adk-session/APP/USER/ID, a LangGraph thread langgraph/THREAD).",
)
@out_file_option("The HTML file to write.", required=True)
@json_option("Print the result as JSON.")
@click.pass_context
def report_command(
    context: click.Context,
    tenant: str,
    session_id: str | None,
    stream_id: str | None,
    output: Path,
    as_json: bool,
) -> None:
    """A self-contained HTML time-travel report of a session (no network needed to view it)."""
    from projections.reports.report import build_report

    if (session_id is None) == (stream_id is None):
        raise click.UsageError("give exactly one of --session and --stream")

    async def action() -> str:
        async with open_store(context) as store:
            with task_progress("reporting", enabled=not as_json) as progress:
                if session_id is not None:
                    stored = await stored_session(store, tenant, session_id)
                    return await build_report(Ledger(store), tenant, stored, progress=progress)
                await known_stream(store, tenant, stream_id or "")
                return await build_report(
                    Ledger(store), tenant, stream_id=stream_id, progress=progress
                )

    html = run(action)
    try:
        output.write_text(html, encoding="utf-8")
    except OSError as error:
        cannot_write(output, error)
    size = len(html.encode())
    if as_json:
        print_json({"output": str(output), "bytes": size})
        return
    stdout.print(f"wrote {output} ({size:,} bytes)")
