"""Commands on consent: grant, revoke, list."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
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
    stderr,
    stdout,
)
from projections.cli.ids import event_ids_of
from projections.cli.params import POSITIVE_FLOAT, TENANT_HELP, USER_HELP
from projections.cli.recording import TIME, data_of, print_event, split_scopes, utc
from projections.cli.rows import print_table
from projections.memory import LongTermMemory
from projections.render import literal

WITHDRAWN = "withdrawn by the user"

__all__: list[str] = []

# -- consent ----------------------------------------------------------------------------------


@cli.group("consent")
def consent_group() -> None:
    """Record a user's consent for long-term memory, or revoke it."""


_SCOPE_HELP = "category:NAME (or NAME) or key:PATTERN (glob); repeatable."


@consent_group.command("grant")
@click.option("--tenant", required=True, help=TENANT_HELP)
@click.option("--user", "user_id", required=True, help=USER_HELP)
@click.option("--scope", "scopes", multiple=True, required=True, help=_SCOPE_HELP)
@click.option("--expires", type=TIME, help="When the consent ends (ISO 8601, UTC if no offset).")
@click.option("--days", type=POSITIVE_FLOAT, help="The consent ends this many days from now.")
@click.option("--method", default="cli", show_default=True, help="How the consent was given.")
@click.option(
    "--evidence",
    multiple=True,
    help="Where the user agreed: a message id (as 'context' shows) or an event id of this "
    "tenant; recorded as the event id. Repeatable; an id the tenant does not hold is refused.",
)
@json_option()
@click.pass_context
def consent_grant(
    context: click.Context,
    tenant: str,
    user_id: str,
    scopes: tuple[str, ...],
    expires: datetime | None,
    days: float | None,
    method: str,
    evidence: tuple[str, ...],
    as_json: bool,
) -> None:
    """Record that the user allows memories of these categories or keys to be kept."""
    categories, keys = split_scopes(scopes)
    if expires is not None and days is not None:
        raise click.UsageError("give --expires or --days, not both")
    until = utc(expires) or (datetime.now(UTC) + timedelta(days=days) if days else None)

    async def action() -> tuple[Any, list[str]]:
        async with open_store(context, create=True) as store:
            memory = LongTermMemory(store)
            named = await event_ids_of(store, tenant, evidence) if evidence else []
            event = await memory.grant_consent(
                tenant,
                user_id,
                categories=categories,
                keys=keys,
                expires_at=until,
                method=method,
                evidence_ids=named,
            )
            return event, (await memory.policy(tenant)).consent_notes(categories)

    event, notes = run(action)
    for note in notes:
        stderr.print(f"[yellow]warning:[/] {literal(note)}", markup=True, highlight=False)
    print_event(
        event,
        as_json,
        f"consent {data_of(event)['consent_id']} granted for {', '.join(scopes)}"
        + (f" until {until.isoformat()}" if until else ""),
    )


@consent_group.command("revoke")
@click.option("--tenant", required=True, help=TENANT_HELP)
@click.option("--user", "user_id", required=True, help=USER_HELP)
@click.option("--scope", "scopes", multiple=True, help=_SCOPE_HELP)
@click.option("--consent-id", help="Revoke this consent.")
@click.option("--all", "everything", is_flag=True, help="Revoke every consent of the user.")
@click.option(
    "--reason",
    default=WITHDRAWN,
    show_default=True,
    help="Why (optional: withdrawing consent is as easy as giving it, GDPR art. 7(3)).",
)
@click.option("--method", default="cli", show_default=True, help="How the revocation was made.")
@json_option()
@click.pass_context
def consent_revoke(
    context: click.Context,
    tenant: str,
    user_id: str,
    scopes: tuple[str, ...],
    consent_id: str | None,
    everything: bool,
    reason: str,
    method: str,
    as_json: bool,
) -> None:
    """Revoke consents: by --scope exactly the scopes named (a consent for more keeps the
    rest), by --consent-id or --all whole ones; the promoter retracts what they allowed
    (recall stops at once)."""
    categories, keys = split_scopes(scopes)

    async def action() -> Any:
        async with open_store(context) as store:
            return await LongTermMemory(store).revoke_consent(
                tenant,
                user_id,
                consent_id=consent_id,
                categories=categories,
                keys=keys,
                everything=everything,
                reason=reason,
                method=method,
            )

    event = run(action)
    print_event(event, as_json, f"revoked consent(s) {', '.join(data_of(event)['consent_ids'])}")


@consent_group.command("list")
@click.option("--tenant", required=True, help=TENANT_HELP)
@click.option("--user", "user_id", required=True, help=USER_HELP)
@json_option()
@click.pass_context
def consent_list(context: click.Context, tenant: str, user_id: str, as_json: bool) -> None:
    """The user's consents: scope, expiry, how given, and whether revoked."""

    async def action() -> list[dict[str, Any]]:
        async with open_store(context) as store:
            await known_tenant(store, tenant)
            state = await LongTermMemory(store).state(tenant, user_id)
        return [
            {
                "consent_id": c.consent_id,
                "granted_at": c.granted_at.isoformat(),
                "categories": c.data.categories if c.data else None,
                "keys": c.data.keys if c.data else None,
                "expires_at": c.data.expires_at.isoformat()
                if c.data and c.data.expires_at
                else None,
                "method": c.data.method if c.data else None,
                "revoked_at": c.revoked_at.isoformat() if c.revoked_at else None,
                "erased": c.data is None,
            }
            for c in sorted(state.consents.values(), key=lambda c: c.position)
        ]

    rows = run(action)
    if as_json:
        print_json(rows)
        return
    table = Table("consent", "granted", "scope", "expires", "method", "revoked")
    for row in rows:
        scope = [f"category:{c}" for c in row["categories"] or []]
        scope += [f"key:{k}" for k in row["keys"] or []]
        table.add_row(
            row["consent_id"],
            row["granted_at"][:19],
            literal(", ".join(scope) or "[erased]"),
            (row["expires_at"] or "never")[:19],
            row["method"] or "",
            (row["revoked_at"] or "")[:19],
        )
    print_table(stdout, table, "no consent recorded: 'ctxledger consent grant' records one")
