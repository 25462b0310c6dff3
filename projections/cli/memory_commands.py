"""Commands on long-term memory: consent, memory (candidates, recall, forget, propose,
policy) and the promoter."""

from __future__ import annotations

import asyncio
import contextlib
import signal
from datetime import datetime
from pathlib import Path
from typing import Any

import click
from rich.table import Table

from eventstore import EventStore
from projections.cli.common import (
    cli,
    json_option,
    known_tenant,
    open_store,
    print_json,
    run,
    stdout,
)
from projections.cli.ids import resolved_saying
from projections.cli.params import FRACTION, POSITIVE, POSITIVE_FLOAT, TENANT_HELP, USER_HELP
from projections.cli.progress import task_progress
from projections.cli.recording import print_event, utc
from projections.cli.rows import print_table
from projections.memory import LongTermMemory, MemoryPolicy, Promoter, PromotionReport
from projections.memory.rules import Candidate, RecalledMemory
from projections.render import literal

__all__: list[str] = []

# -- memory -----------------------------------------------------------------------------------


@cli.group("memory")
def memory_group() -> None:
    """Long-term memory of a user: candidates, recall, forget, propose, policy."""


def _at(value: str | None) -> datetime | int | None:
    """``--at``: a tenant position (an integer) or a time (ISO 8601, UTC if no offset)."""
    if value is None:
        return None
    if value.isdigit():
        return int(value)
    try:
        return utc(datetime.fromisoformat(value))
    except ValueError:
        raise click.BadParameter(
            f"{value!r} is neither a tenant position nor an ISO 8601 time", param_hint="--at"
        ) from None


_AT_HELP = "As it was at a tenant position or time (ISO 8601, UTC if no offset)."


@memory_group.command("candidates")
@click.option("--tenant", required=True, help=TENANT_HELP)
@click.option("--user", "user_id", required=True, help=USER_HELP)
@click.option("--at", "at", help=_AT_HELP)
@json_option()
@click.pass_context
def memory_candidates(
    context: click.Context, tenant: str, user_id: str, at: str | None, as_json: bool
) -> None:
    """Every proposal and its status: pending, blocked (why), promoted, retracted…"""

    async def action() -> list[Candidate]:
        async with open_store(context) as store:
            await known_tenant(store, tenant)
            return await LongTermMemory(store).candidates(tenant, user_id, at=_at(at))

    found = run(action)
    if as_json:
        print_json([c.model_dump(mode="json") for c in found])
        return
    table = Table("proposal", "key", "value", "category", "conf.", "status", "reason")
    for c in found:
        table.add_row(
            c.proposal_id[-12:],
            literal(c.key or "[erased]"),
            literal(c.value or "[erased]"),
            literal(c.category or ""),
            "" if c.confidence is None else f"{c.confidence:.2f}",
            c.status,
            c.reason or "",
        )
    print_table(stdout, table, "no proposals: 'ctxledger memory propose' records one")


@memory_group.command("recall")
@click.option("--tenant", required=True, help=TENANT_HELP)
@click.option("--user", "user_id", required=True, help=USER_HELP)
@click.option("--key", "keys", multiple=True, help="Only these keys (repeatable).")
@click.option("--category", "categories", multiple=True, help="Only these categories.")
@click.option("--at", "at", help=_AT_HELP)
@json_option()
@click.pass_context
def memory_recall(
    context: click.Context,
    tenant: str,
    user_id: str,
    keys: tuple[str, ...],
    categories: tuple[str, ...],
    at: str | None,
    as_json: bool,
) -> None:
    """The user's live memories, with sources, confidence, expiry and conflicts."""

    async def action() -> list[RecalledMemory]:
        async with open_store(context) as store:
            await known_tenant(store, tenant)
            return await LongTermMemory(store).recall(
                tenant,
                user_id,
                keys=list(keys) or None,
                categories=list(categories) or None,
                at=_at(at),
            )

    found = run(action)
    if as_json:
        print_json([m.model_dump(mode="json") for m in found])
        return
    table = Table("key", "value", "category", "conf.", "expires", "basis", "sources", "conflict")
    for m in found:
        table.add_row(
            literal(m.key),
            literal(m.value),
            literal(m.category),
            f"{m.confidence:.2f}",
            m.expires_at.isoformat()[:10],
            m.basis,
            ", ".join(m.source_ids or m.source_event_ids),
            "yes" if m.conflict else "",
        )
    print_table(stdout, table, "no memories")


@memory_group.command("forget")
@click.option("--tenant", required=True, help=TENANT_HELP)
@click.option("--user", "user_id", required=True, help=USER_HELP)
@click.argument("key_or_id")
@click.option("--requested-by", required=True, help="Who asked to forget it.")
@click.option(
    "--reason",
    default="the user asked to forget it",
    show_default=True,
    help="Why, recorded with the event.",
)
@json_option()
@click.pass_context
def memory_forget(
    context: click.Context,
    tenant: str,
    user_id: str,
    key_or_id: str,
    requested_by: str,
    reason: str,
    as_json: bool,
) -> None:
    """Forget a memory by key or id: MemoryForgotten, then erasure of its payload."""

    async def action() -> Any:
        async with open_store(context) as store:
            return await LongTermMemory(store).forget(
                tenant, user_id, key_or_id, requested_by=requested_by, reason=reason
            )

    receipt = run(action)
    if as_json:
        print_json(receipt.model_dump(mode="json"))
        return
    stdout.print(
        f"forgot {len(receipt.memory_ids)} memory(ies) from {len(receipt.proposal_ids)} "
        f"proposal(s); erased {len(receipt.erased)} payload(s)"
    )


@memory_group.command("propose")
@click.option("--tenant", required=True, help=TENANT_HELP)
@click.option("--user", "user_id", required=True, help=USER_HELP)
@click.option("--key", required=True, help="What the memory is about, e.g. seat_preference.")
@click.option("--value", required=True, help="What to remember.")
@click.option("--category", required=True, help="Its category (the policy promotes by category).")
@click.option(
    "--source",
    "sources",
    multiple=True,
    required=True,
    help="A source: its message id (as 'context' and 'search' show) or event id. Repeatable.",
)
@click.option("--confidence", type=FRACTION, required=True, help="How sure, from 0 to 1.")
@click.option("--session", "session_id", help="The session it was proposed in.")
@click.option("--ttl-days", type=POSITIVE_FLOAT, help="Overrides the policy's time to live.")
@json_option()
@click.pass_context
def memory_propose(
    context: click.Context,
    tenant: str,
    user_id: str,
    key: str,
    value: str,
    category: str,
    sources: tuple[str, ...],
    confidence: float,
    session_id: str | None,
    ttl_days: float | None,
    as_json: bool,
) -> None:
    """Propose a memory citing the events it comes from (the promoter decides)."""

    async def action() -> Any:
        async with open_store(context) as store:
            await known_tenant(store, tenant)
            resolved = await resolved_saying(store, tenant, sources)
            messages = [item.message_id for item in resolved if item.message_id is not None]
            return await LongTermMemory(store).propose(
                tenant,
                user_id,
                key=key,
                value=value,
                category=category,
                source_event_ids=[item.event_id for item in resolved],
                source_ids=messages if len(messages) == len(resolved) else (),
                confidence=confidence,
                session_id=session_id,
                ttl_days=ttl_days,
            )

    event = run(action)
    print_event(event, as_json, f"proposed {key} ({event.event_id})")


@memory_group.command("policy")
@click.option("--tenant", required=True, help=TENANT_HELP)
@click.option(
    "--set",
    "policy_file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Record the policy in this TOML file as the tenant's policy.",
)
@json_option()
@click.pass_context
def memory_policy(
    context: click.Context, tenant: str, policy_file: Path | None, as_json: bool
) -> None:
    """Show the tenant's memory policy, or record a new one from a TOML file."""

    async def action() -> MemoryPolicy:
        async with open_store(context, create=policy_file is not None) as store:
            memory = LongTermMemory(store)
            if policy_file is not None:
                await memory.set_policy(tenant, MemoryPolicy.from_toml(policy_file))
            return await memory.policy(tenant)

    policy = run(action)
    if as_json:
        print_json(policy.model_dump(mode="json"))
        return
    table = Table("setting", "value")
    for name, value in policy.model_dump(mode="json").items():
        table.add_row(name, str(value))
    stdout.print(table)


# -- promote ----------------------------------------------------------------------------------


@cli.command("promote")
@click.option("--tenant", help="Only this tenant (default: every tenant).")
@click.option("--follow", is_flag=True, help="Keep running and promote as events arrive.")
@click.option(
    "--batch-size", type=POSITIVE, default=100, show_default=True, help="Decisions per transaction."
)
@click.option(
    "--interval", type=POSITIVE_FLOAT, default=1.0, show_default=True, help="Poll interval (s)."
)
@json_option("One JSON report per pass and tenant.")
@click.pass_context
def promote_command(
    context: click.Context,
    tenant: str | None,
    follow: bool,
    batch_size: int,
    interval: float,
    as_json: bool,
) -> None:
    """Promote what consent or the tenant policy allows; retract what they no longer allow."""

    def show(report: PromotionReport) -> None:
        if as_json:
            print_json(report.as_dict())
        else:
            stdout.print(
                f"{report.tenant_id}: {report.users} user(s), promoted {report.promoted}, "
                f"retracted {report.retracted}, erased {report.erased}"
            )

    async def action() -> None:
        async with open_store(context) as store:
            promoter = Promoter(store, batch_size=batch_size)
            if not follow:
                for name in [tenant] if tenant else await store.tenants():
                    with task_progress(f"promoting {name}", enabled=not as_json) as progress:
                        report = await promoter.run_once(name, progress=progress)
                    show(report)
                return
            stop = asyncio.Event()
            loop = asyncio.get_running_loop()
            for sig in (signal.SIGINT, signal.SIGTERM):
                loop.add_signal_handler(sig, stop.set)
            if tenant:
                await promoter.follow(tenant, stop=stop, poll_interval=interval, on_report=show)
            else:
                await _follow_all(store, promoter, stop, interval, show)

    run(action)


async def _follow_all(
    store: EventStore,
    promoter: Promoter,
    stop: asyncio.Event,
    interval: float,
    show: Any,
) -> None:
    """Every tenant, including new ones: a pass per tenant whose log moved, every interval."""
    seen: dict[str, int] = {}
    while not stop.is_set():
        for name in await store.tenants():
            position = await store.tenant_position(name)
            if seen.get(name) != position:
                report = await promoter.run_once(name)
                if name not in seen or report.promoted or report.retracted or report.erased:
                    show(report)
                seen[name] = report.position
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), interval)
