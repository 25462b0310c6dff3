"""``ctxledger mcp``: serve the ledger to an agent over the Model Context Protocol."""

from __future__ import annotations

import asyncio
from typing import Literal

import click

from projections.cli.common import EXIT_ERROR, cli, open_store, stderr

__all__: list[str] = []


@cli.command("mcp")
@click.option("--tenant", required=True, help="The tenant the server acts for (fixed).")
@click.option("--session", "session_id", required=True, help="The session whose history it serves.")
@click.option("--user", "user_id", help="The user, for the memory tools (fixed).")
@click.option(
    "--transport",
    type=click.Choice(["stdio", "http"]),
    default="stdio",
    show_default=True,
    help="stdio for a local agent, or streamable HTTP on 127.0.0.1.",
)
@click.option(
    "--port",
    type=click.IntRange(1, 65535),
    default=8765,
    show_default=True,
    help="The port to serve on (with an HTTP transport).",
)
@click.pass_context
def mcp_command(
    context: click.Context,
    tenant: str,
    session_id: str,
    user_id: str | None,
    transport: Literal["stdio", "http"],
    port: int,
) -> None:
    """Serve search_history, read_message, pin, recall_memory and propose_memory over MCP.

    The tenant, user and session are bound here, never taken from the model. HTTP listens
    on loopback only (http://127.0.0.1:PORT/mcp).
    """
    try:
        from projections.integrations.mcp_server import (
            Binding,
            LedgerTools,
            build_server,
            serve_http,
        )
    except ImportError as error:
        stderr.print(
            f"[bold red]error:[/] the MCP server needs: pip install 'ctxledger[mcp]' ({error})"
        )
        raise SystemExit(EXIT_ERROR) from None

    async def serve() -> None:
        async with open_store(context) as store:
            server = build_server(LedgerTools(store, Binding(tenant, session_id, user_id)))
            if transport == "stdio":
                await server.run_stdio_async()
            else:
                await serve_http(server, port)

    asyncio.run(serve())
