"""``ctxledger search``: the messages of a session (or of every session of a tenant) that best
match a query."""

from __future__ import annotations

from typing import Any

import click
from rich.table import Table

from projections.cli.common import (
    cli,
    json_option,
    known_tenant,
    open_store,
    print_json,
    run,
    stdout,
    stored_session,
)
from projections.cli.params import TENANT_HELP
from projections.cli.rows import print_table
from projections.context.messages import shown_text
from projections.ledger import Ledger
from projections.recall.index import SEARCH_INDEX
from projections.recall.search import find
from projections.recall.terms import query_terms
from projections.render import literal

__all__: list[str] = []


@cli.command("search")
@click.argument("query")
@click.option("--tenant", required=True, help=TENANT_HELP)
@click.option(
    "--session",
    "session_ids",
    multiple=True,
    help="Search this session (repeat for several; default: every session of the tenant).",
)
@click.option(
    "--limit",
    "--k",
    "limit",
    type=click.IntRange(1, 500),
    default=10,
    show_default=True,
    help="How many results.",
)
@json_option("One JSON object per hit.")
@click.pass_context
def search_command(
    context: click.Context,
    query: str,
    tenant: str,
    session_ids: tuple[str, ...],
    limit: int,
    as_json: bool,
) -> None:
    """Find the messages that best match QUERY (BM25 over the search index), best first."""
    if not query_terms(query):
        raise click.BadParameter(
            f"{query!r} has no word to search for (the index holds words and numbers); "
            "give at least one, e.g. ctxledger search 'hotel'",
            param_hint="QUERY",
        )

    async def action() -> list[dict[str, Any]]:
        async with open_store(context) as store:
            await known_tenant(store, tenant)
            for session_id in session_ids:
                await stored_session(store, tenant, session_id)
            ledger = Ledger(store)
            scopes = [f"session/{s}" for s in session_ids] or None
            index = ledger.read_model(SEARCH_INDEX)
            hits = (await find(index, tenant, query, scopes=scopes))[:limit]
            rows = []
            for hit in hits:
                session_id = hit.message.stream_id.removeprefix("session/")
                message = await ledger.session(tenant, session_id).read_message(
                    hit.message.message_id
                )
                rows.append({
                    "session": session_id,
                    "message_id": hit.message.message_id,
                    "version": hit.message.version,
                    "role": hit.message.role,
                    "score": round(hit.score, 4),
                    "matched": list(hit.matched),
                    "text": shown_text(message) if message is not None else "",
                })  # fmt: skip
            return rows

    rows = run(action)
    if as_json:
        for row in rows:
            print_json(row)
        return
    table = Table(title=f"search {query!r} in {tenant}")
    for column in ("session", "id", "version", "role", "score", "text"):
        table.add_column(column, overflow="fold")
    for row in rows:
        text = " ".join(row["text"].split())
        table.add_row(
            row["session"],
            literal(row["message_id"]),
            str(row["version"]),
            row["role"],
            f"{row['score']:.2f}",
            literal(text if len(text) <= 80 else text[:79] + "…"),
        )
    where = ", ".join(session_ids) if session_ids else "any session"
    print_table(stdout, table, f"no message matches {query!r} in {tenant} ({where})")
