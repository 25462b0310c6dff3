"""The time-travel report: one self-contained HTML file (no network) with a session's event
timeline, the context exactly as it was at any selected event, the summary versions and their
diffs, the pins, and charts of tokens per model call and of compaction.

Every context shown is what :meth:`Session.render` returns at that version, precomputed here;
the page only chooses which one to show.
"""

from __future__ import annotations

import html
import json
from typing import Any

from blake3 import blake3

from eventstore import RecordedEvent
from projections.context.budget import Budget
from projections.context.messages import text_of
from projections.errors import MessageValidationError
from projections.ledger import Ledger
from projections.session.events import (
    SESSION_EVENTS,
    MessageAppended,
    MessagesPinned,
    ModelCallRecorded,
    SummaryCommitted,
    SummaryRejected,
    SummaryRolledBack,
)
from projections.session.fold import parse_event

__all__ = ["build_report", "report_data"]


def _describe(event: RecordedEvent) -> str:
    if event.data is None:
        return "[erased]"
    data = parse_event(event)
    if isinstance(data, MessageAppended):
        message = data.message
        text = message.content if isinstance(message.content, str) else ""
        if message.tool_calls:
            text = "calls " + ", ".join(call.name for call in message.tool_calls)
        return f"{message.role} {message.id}: {text or ''}"[:160]
    if isinstance(data, MessagesPinned):
        return f"pinned {', '.join(data.message_ids)}: {data.reason}"
    if isinstance(data, ModelCallRecorded):
        return f"model call: {data.input_tokens} input tokens"
    if isinstance(data, SummaryCommitted):
        return (
            f"summary v{data.summary_version} committed: "
            f"{data.tokens_before} → {data.tokens_after} tokens"
        )
    if isinstance(data, SummaryRejected):
        return f"summary rejected: {', '.join(data.failed_checks)}"
    if isinstance(data, SummaryRolledBack):
        return f"rolled back to v{data.to_version}: {data.reason}"
    return event.type if data is not None or event.type not in SESSION_EVENTS else "[unreadable]"


async def report_data(
    ledger: Ledger, tenant_id: str, session_id: str, *, budget: Budget | None = None
) -> dict[str, Any]:
    """Everything the report shows, as JSON-ready data (the contexts by version included)."""
    session = ledger.session(tenant_id, session_id)
    events = await ledger.store.read_stream(tenant_id, session.stream_id)
    if not events:
        raise MessageValidationError(
            f"tenant {tenant_id!r} has no session {session_id!r}: see 'ctxledger streams'"
        )
    payloads = [parse_event(e) for e in events]
    manifests = [p.manifest for p in payloads if isinstance(p, ModelCallRecorded) and p.manifest]
    if budget is None and manifests:
        budget = Budget.model_validate(
            {k: v for k, v in manifests[-1]["budget"].items() if k in Budget.model_fields}
        )
    budget = budget or Budget(context_limit=128_000, max_output_tokens=4_000)
    texts: dict[str, str] = {}
    contexts: dict[int, dict[str, Any]] = {}
    for event in events:
        rendered = await session.render(budget, at_version=event.version)
        rows = []
        for message, section, tokens in zip(
            rendered.messages,
            rendered.manifest.sections,
            rendered.manifest.message_tokens,
            strict=True,
        ):
            text = text_of(message)
            if message.tool_calls:
                text += " " + "; ".join(f"{c.name}({c.arguments})" for c in message.tool_calls)
            key = blake3(text.encode()).hexdigest()[:16]
            texts[key] = text
            rows.append([message.id, message.role, section, tokens, key])
        contexts[event.version] = {
            "rows": rows,
            "tokens": rendered.manifest.tokens["total"],
            "summary_version": rendered.manifest.summary_version,
            "request_hash": rendered.manifest.request_hash,
        }
    state = await session.latest()
    history = 0
    calls = []
    compactions = []
    pins = []
    for event, data in zip(events, payloads, strict=True):
        if isinstance(data, MessageAppended):
            history += data.tokens
        elif isinstance(data, ModelCallRecorded):
            calls.append({"version": event.version, "history": history, "sent": data.input_tokens})
        elif isinstance(data, SummaryCommitted):
            compactions.append(
                {
                    "version": event.version,
                    "summary_version": data.summary_version,
                    "before": data.tokens_before,
                    "after": data.tokens_after,
                }
            )
        elif isinstance(data, MessagesPinned):
            pins.append({"version": event.version, "ids": data.message_ids, "reason": data.reason})
    return {
        "tenant": tenant_id,
        "session": session_id,
        "budget": budget.model_dump(),
        "timeline": [
            {
                "version": e.version,
                "position": e.position,
                "type": e.type,
                "time": e.recorded_at.isoformat(),
                "text": _describe(e),
                "hash": e.hash,
            }
            for e in events
        ],
        "contexts": contexts,
        "texts": texts,
        "summaries": state.summary_chain(),
        "pins": pins,
        "calls": calls,
        "compactions": compactions,
    }


def _chart(data: dict[str, Any]) -> str:
    """Tokens per model call (history vs sent) with compactions marked, as inline SVG."""
    calls = data["calls"]
    if not calls:
        return "<p>No model calls recorded.</p>"
    width, height, pad = 900, 260, 40
    top = max(max(c["history"], c["sent"]) for c in calls) or 1
    last = max(c["version"] for c in calls) or 1

    def x(version: int) -> float:
        return pad + (width - 2 * pad) * version / last

    def y(tokens: int) -> float:
        return height - pad - (height - 2 * pad) * tokens / top

    def line(key: str) -> str:
        return " ".join(f"{x(c['version']):.1f},{y(c[key]):.1f}" for c in calls)

    usable = data["budget"]["context_limit"] - data["budget"]["max_output_tokens"]
    usable -= data["budget"]["tool_reserve"] + data["budget"]["safety_margin"]
    marks = "".join(
        f'<line x1="{x(c["version"]):.1f}" x2="{x(c["version"]):.1f}" y1="{pad}" '
        f'y2="{height - pad}" class="compaction"><title>summary v{c["summary_version"]}: '
        f"{c['before']} → {c['after']} tokens</title></line>"
        for c in data["compactions"]
    )
    budget_line = ""
    if usable <= top:
        budget_line = (
            f'<line x1="{pad}" x2="{width - pad}" y1="{y(usable):.1f}" y2="{y(usable):.1f}" '
            f'class="budget"><title>usable budget {usable}</title></line>'
        )
    return (
        f'<svg id="tokens-chart" viewBox="0 0 {width} {height}" role="img" '
        f'aria-label="tokens per model call">'
        f'<polyline class="history" points="{line("history")}"/>'
        f'<polyline class="sent" points="{line("sent")}"/>{marks}{budget_line}'
        f'<text x="{pad}" y="20">tokens per model call: history (grey) vs sent (blue); '
        f"compactions (orange); usable budget (red), max {top:,}</text></svg>"
    )


# Nothing may be fetched: the report must open offline and cannot leak data anywhere.
_CSP = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'"

_STYLE = """
body{font:14px system-ui,sans-serif;margin:0;color:#222}
header{background:#1f2937;color:#fff;padding:12px 20px}
main{display:grid;grid-template-columns:minmax(320px,1fr) 2fr;gap:16px;padding:16px}
section{border:1px solid #ddd;border-radius:6px;padding:10px;overflow:auto}
#timeline{max-height:80vh}
#timeline li{cursor:pointer;padding:2px 4px;list-style:none;border-bottom:1px solid #f0f0f0}
#timeline li.selected{background:#dbeafe}
#timeline ol{padding:0;margin:0}
.type{font-weight:600;color:#374151}
table{border-collapse:collapse;width:100%}
td,th{border-bottom:1px solid #eee;padding:3px 6px;text-align:left;vertical-align:top}
td.text{white-space:pre-wrap;font-family:ui-monospace,monospace;font-size:12px}
tr.pinned{background:#fef9c3} tr.summary{background:#ede9fe} tr.prefix{background:#f3f4f6}
svg polyline{fill:none;stroke-width:2} .history{stroke:#9ca3af} .sent{stroke:#2563eb}
.compaction{stroke:#f97316;stroke-dasharray:4} .budget{stroke:#dc2626}
.wide{grid-column:1/3}
"""

_SCRIPT = """
const data = JSON.parse(document.getElementById('report-data').textContent);
function show(version) {
  const ctx = data.contexts[version];
  const panel = document.getElementById('context');
  panel.dataset.shownVersion = version;
  panel.dataset.tokens = ctx.tokens;
  panel.dataset.requestHash = ctx.request_hash;
  document.getElementById('context-title').textContent =
    'Context at version ' + version + ': ' + ctx.rows.length + ' messages, ' + ctx.tokens +
    ' tokens, summary ' + (ctx.summary_version === null ? 'none' : 'v' + ctx.summary_version);
  const body = document.getElementById('context-rows');
  body.replaceChildren();
  for (const [id, role, section, tokens, key] of ctx.rows) {
    const tr = document.createElement('tr');
    tr.className = section;
    tr.dataset.messageId = id;
    for (const value of [id, role, section, tokens]) {
      const td = document.createElement('td'); td.textContent = value; tr.appendChild(td);
    }
    const text = document.createElement('td');
    text.className = 'text'; text.textContent = data.texts[key]; tr.appendChild(text);
    body.appendChild(tr);
  }
  for (const li of document.querySelectorAll('#timeline li')) {
    li.classList.toggle('selected', li.dataset.version === String(version));
  }
}
for (const li of document.querySelectorAll('#timeline li')) {
  li.addEventListener('click', () => show(li.dataset.version));
}
const last = data.timeline[data.timeline.length - 1].version;
show(location.hash.startsWith('#v') ? location.hash.slice(2) : last);
"""


def _summaries_html(data: dict[str, Any]) -> str:
    rows = []
    for s in data["summaries"]:
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
        for p in data["pins"]
    )
    return (
        f"<table id='pins'><tr><th>version</th><th>messages</th><th>reason</th></tr>{rows}</table>"
    )


async def build_report(
    ledger: Ledger, tenant_id: str, session_id: str, *, budget: Budget | None = None
) -> str:
    """The report as one HTML document: data, style, script and charts inline."""
    data = await report_data(ledger, tenant_id, session_id, budget=budget)
    # JSON inside <script>: "</" is escaped so no content can close the element.
    payload = json.dumps(data, ensure_ascii=False, sort_keys=True).replace("</", "<\\/")
    timeline = "".join(
        f'<li data-version="{e["version"]}" title="{html.escape(e["hash"])}">'
        f'{e["version"]}. <span class="type">{html.escape(e["type"])}</span> '
        f"{html.escape(e['text'])}</li>"
        for e in data["timeline"]
    )
    title = f"ctxledger report: {tenant_id} / {session_id}"
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{_CSP}">
<title>{html.escape(title)}</title><style>{_STYLE}</style></head>
<body><header><h1>{html.escape(title)}</h1>
<p>{len(data["timeline"])} events; click an event to see the context exactly as it was then.</p>
</header><main>
<section class="wide"><h2>Tokens</h2>{_chart(data)}</section>
<section id="timeline"><h2>Timeline</h2><ol>{timeline}</ol></section>
<section id="context"><h2 id="context-title"></h2><table><thead><tr><th>id</th><th>role</th>
<th>section</th><th>tokens</th><th>content</th></tr></thead><tbody id="context-rows"></tbody>
</table></section>
<section><h2>Summary versions</h2>{_summaries_html(data)}</section>
<section><h2>Pins</h2>{_pins_html(data)}</section>
</main>
<script type="application/json" id="report-data">{payload}</script>
<script>{_SCRIPT}</script></body></html>
"""
