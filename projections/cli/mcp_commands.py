"""``ctxledger mcp``: serve the ledger to an agent over the Model Context Protocol."""

from __future__ import annotations

from typing import Literal

import click

from projections.cli.common import (
    EXIT_ERROR,
    cli,
    open_store,
    run,
    stderr,
    stored_session,
)

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
@click.option(
    "--new-session",
    is_flag=True,
    help="Serve a session that has no messages yet (the agent is about to write them); "
    "without it an unknown tenant or session is refused, as by every read command.",
)
@click.pass_context
def mcp_command(
    context: click.Context,
    tenant: str,
    session_id: str,
    user_id: str | None,
    transport: Literal["stdio", "http"],
    port: int,
    new_session: bool,
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
            policy_categories,
            serve_http,
        )
    except ImportError as error:
        stderr.print(
            f"[bold red]error:[/] the MCP server needs: pip install 'ctxledger[mcp]' ({error})"
        )
        raise SystemExit(EXIT_ERROR) from None

    async def serve() -> None:
        async with open_store(context, create=new_session) as store:
            stored = session_id
            if not new_session:  # names the tenants first when the tenant is unknown
                stored = await stored_session(store, tenant, session_id)
            tools = LedgerTools(store, Binding(tenant, stored, user_id))
            policy = await tools.memory.policy(tenant)
            server = build_server(tools, categories=policy_categories(policy))
            if transport == "stdio":
                await server.run_stdio_async()
            else:
                await serve_http(server, port)

    run(serve)
