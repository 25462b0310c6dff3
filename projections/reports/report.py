"""The time-travel report: one self-contained HTML file (no network) with a session's event
timeline (filterable by type), the context exactly as it was at any selected event, the
summary versions and their diffs, the pins, and an interactive chart of tokens (history, the
planned context, what each model call was sent, the usable budget, compactions marked).

The page's data is linear in the session (:mod:`projections.reports.report_data`: each message
once, each version a reference the page expands on demand). The chart is uPlot (MIT, vendored
in ``assets/``), inlined like everything else. Streams that are not ctxledger sessions (ADK
sessions, LangGraph threads) get the same page over the stream itself
(:mod:`projections.reports.stream_report`).
"""

from __future__ import annotations

import html
import json
from collections.abc import Callable
from functools import cache
from importlib.resources import files
from typing import Any

from projections.context.budget import Budget
from projections.errors import MessageValidationError
from projections.ledger import Ledger
from projections.reports.report_data import session_report_data
from projections.reports.stream_report import stream_report_data

__all__ = ["build_report", "report_data"]

SESSION_PREFIX = "session/"

# Nothing may be fetched: the report must open offline and cannot leak data anywhere.
_CSP = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'"


@cache
def _asset(name: str) -> str:
    return files("projections.reports").joinpath("assets", name).read_text(encoding="utf-8")


async def report_data(
    ledger: Ledger,
    tenant_id: str,
    session_id: str | None = None,
    *,
    stream_id: str | None = None,
    budget: Budget | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """Everything the report shows, as JSON-ready data: of session ``session_id``, or of any
    stream ``stream_id`` (``session/<id>`` is that session)."""
    if (session_id is None) == (stream_id is None):
        raise ValueError("report_data needs exactly one of session_id and stream_id")
    stream = stream_id if stream_id is not None else f"{SESSION_PREFIX}{session_id}"
    events = await ledger.store.read_stream(tenant_id, stream)
    if not events:
        what = f"session {session_id!r}" if session_id is not None else f"stream {stream_id!r}"
        raise MessageValidationError(f"tenant {tenant_id!r} has no {what}: see 'ctxledger streams'")
    if stream.startswith(SESSION_PREFIX):
        return await session_report_data(
            ledger,
            tenant_id,
            stream.removeprefix(SESSION_PREFIX),
            events,
            budget=budget,
            progress=progress,
        )
    return stream_report_data(tenant_id, stream, events, ledger.counter, progress=progress)


def _summaries_html(data: dict[str, Any]) -> str:
    rows = []
    for s in data.get("summaries", []):
        diff = s.get("diff") or {}
        changes = "; ".join(
            f"{kind}: {', '.join(map(str, items))}" for kind, items in diff.items() if items
        )
        if s["status"] == "rejected":
            changes = "failed: " + ", ".join(s.get("failed_checks", []))
        parent = s.get("parent")
        rows.append(
            f"<tr><td>v{s['version']}</td><td>{html.escape(str(s['status']))}</td>"
            f"<td>{'' if parent is None else f'v{parent}'}</td>"
            f"<td>{s.get('covered', '')}</td><td class='text'>{html.escape(changes)}</td></tr>"
        )
    return (
        "<table id='summaries'><tr><th>version</th><th>status</th><th>parent</th>"
        "<th>covers</th><th>fact diff vs parent</th></tr>" + "".join(rows) + "</table>"
    )


def _pins_html(data: dict[str, Any]) -> str:
    rows = "".join(
        f"<tr><td>{p['version']}</td><td>{html.escape(', '.join(p['ids']))}</td>"
        f"<td>{html.escape(p['reason'])}</td></tr>"
        for p in data.get("pins", [])
    )
    return (
        f"<table id='pins'><tr><th>version</th><th>messages</th><th>reason</th></tr>{rows}</table>"
    )


def _script_json(data: dict[str, Any]) -> str:
    # JSON inside <script>: "</" is escaped so no content can close the element, and "<!--"
    # so none can open an HTML comment the parser would honour there.
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return text.replace("</", "<\\/").replace("<!--", "<\\!--")


def report_html(data: dict[str, Any]) -> str:
    """The report page of :func:`report_data`'s result: data, style, script and chart inline."""
    title = f"ctxledger report: {data['tenant']} / {data['session']}"
    session = data["kind"] == "session"
    extra = (
        f"<section><h2>Summary versions</h2>{_summaries_html(data)}</section>"
        f"<section><h2>Pins</h2>{_pins_html(data)}</section>"
        if session
        else ""
    )
    first = "id" if session else "version"
    second = "role" if session else "author"
    third = "section" if session else "type"
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{_CSP}">
<title>{html.escape(title)}</title>
<style>{_asset("uPlot.min.css")}</style><style>{_asset("report.css")}</style></head>
<body><header><h1>{html.escape(title)}</h1>
<p>{len(data["timeline"])} events ({html.escape(data["kind"])}); click an event or the chart to
see the context exactly as it was then; drag on the chart to zoom, double-click to reset.</p>
</header><main>
<section class="wide"><h2>Tokens</h2><div id="tokens-chart"></div>
<p id="chart-note">Compactions are the orange dashed lines; hover for the values.</p></section>
<section id="timeline"><h2>Timeline</h2><div id="timeline-filters"></div>
<input id="timeline-search" type="search" placeholder="filter the timeline by text">
<ol id="timeline-list"></ol></section>
<section id="context"><h2 id="context-title"></h2><table><thead><tr><th>{first}</th>
<th>{second}</th><th>{third}</th><th>tokens</th><th>content</th></tr></thead>
<tbody id="context-rows"></tbody></table></section>
{extra}
</main>
<script type="application/json" id="report-data">{_script_json(data)}</script>
<script>{_asset("uPlot.iife.min.js")}</script>
<script>{_asset("report.js")}</script></body></html>
"""


async def build_report(
    ledger: Ledger,
    tenant_id: str,
    session_id: str | None = None,
    *,
    stream_id: str | None = None,
    budget: Budget | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> str:
    """The report as one HTML document (see :func:`report_data` for the arguments)."""
    data = await report_data(
        ledger, tenant_id, session_id, stream_id=stream_id, budget=budget, progress=progress
    )
    return report_html(data)
