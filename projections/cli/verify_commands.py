"""``ctxledger verify``: every hash recomputed, bound to the signed checkpoints."""

from __future__ import annotations

from pathlib import Path

import click

from eventstore import EventStore, LedgerError, VerificationReport
from eventstore.notes import Verifier
from eventstore.records import checkpoint_advice
from projections.cli.common import (
    EXIT_FAILED_VERIFICATION,
    cli,
    json_option,
    open_store,
    print_json,
    run,
    stdout,
)
from projections.cli.keys import public_key_option, read_checkpoint, verifiers
from projections.cli.progress import task_progress
from projections.render import failure_table
from projections.snapshot_audit import with_snapshot_audit

__all__: list[str] = []


@cli.command("verify")
@click.option("--tenant", help="Verify this tenant (default: every tenant).")
@click.option("--stream", help="Verify only this stream of the tenant.")
@public_key_option
@click.option(
    "--trusted-checkpoint",
    "trusted_files",
    multiple=True,
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
    help="A checkpoint published earlier (the note, or checkpoint --json output): the log "
    "must extend it. Repeatable; needs --tenant.",
)
@click.option(
    "--rebuild-tree",
    is_flag=True,
    help="After a verification that passes, rebuild the stored Merkle tree nodes.",
)
@json_option("Print the report as JSON.")
@click.pass_context
def verify_command(
    context: click.Context,
    tenant: str | None,
    stream: str | None,
    keys: tuple[str, ...],
    trusted_files: tuple[Path, ...],
    rebuild_tree: bool,
    as_json: bool,
) -> None:
    """Recompute every hash from the stored bytes and, for a whole tenant, the Merkle root at
    every signed checkpoint; exit 1 if anything does not verify, 2 if there is nothing to
    verify. Without --public-key, checkpoint signatures are not checked (the report says so)."""
    for given, name in ((stream, "--stream"), (trusted_files, "--trusted-checkpoint")):
        if given and tenant is None:
            raise click.UsageError(f"{name} needs --tenant")
    if stream is not None and (trusted_files or rebuild_tree):
        raise click.UsageError("--trusted-checkpoint and --rebuild-tree verify a whole tenant")
    trusted = [read_checkpoint(path, "--trusted-checkpoint") for path in trusted_files]
    keyring = verifiers(keys)

    async def action() -> list[VerificationReport]:
        async with open_store(context, read_only=not rebuild_tree) as store:
            names = await _tenants(store, tenant)
            reports = []
            for name in names:
                with task_progress(f"verifying {name}", enabled=not as_json) as update:
                    report = await store.verify(
                        name,
                        stream=stream,
                        progress=update,
                        verifiers=keyring,
                        trusted_checkpoints=trusted,
                    )
                    reports.append(await with_snapshot_audit(store, report))
            if rebuild_tree and all(report.ok or _only_tree(report) for report in reports):
                for name in names:
                    await store.rebuild_tree(name)
                reports = [
                    await with_snapshot_audit(store, await store.verify(n, verifiers=keyring))
                    for n in names
                ]
            return reports

    reports = run(action)
    _show(reports, keyring, as_json)
    if not all(report.ok for report in reports):
        raise SystemExit(EXIT_FAILED_VERIFICATION)


async def _tenants(store: EventStore, tenant: str | None) -> list[str]:
    known = await store.tenants()
    if tenant is None:
        if not known:
            raise LedgerError("this database holds no events: there is nothing to verify")
        return known
    if tenant not in known:
        hint = ", ".join(known[:10]) or "none"
        raise LedgerError(
            f"tenant {tenant!r} has no events in this database (tenants here: {hint}); "
            f"check the spelling and --db"
        )
    return [tenant]


def _only_tree(report: VerificationReport) -> bool:
    """Whether the stored tree nodes are all that failed (safe to rebuild)."""
    return bool(report.failures) and all(f.stream == "merkle tree" for f in report.failures)


def _show(reports: list[VerificationReport], keyring: list[Verifier], as_json: bool) -> None:
    if as_json:
        print_json(
            {
                "ok": all(report.ok for report in reports),
                "checked": sum(report.checked for report in reports),
                "erased": sum(report.erased for report in reports),
                "signatures_checked": bool(keyring),
                "tenants": [report.model_dump(exclude={"failures"}) for report in reports],
                "failures": [f.model_dump() for report in reports for f in report.failures],
            }
        )
        return
    for report in reports:
        show_verification(report)


def show_verification(report: VerificationReport) -> None:
    """One tenant's verdict, what was bound to checkpoints, and the failures."""
    scope = f"tenant {report.tenant}" + (f", stream {report.stream}" if report.stream else "")
    verdict = "[green]ok[/]" if report.ok else "[bold red]FAILED[/]"
    stdout.print(f"{scope}: {verdict} — {report.checked} events checked, {report.erased} erased")
    if report.snapshots:
        stdout.print(f"  {report.snapshots} session snapshots compared with a rebuild from the log")
    if report.stream is None:
        stdout.print(f"  {_anchoring(report)}")
    if report.failures:
        stdout.print(failure_table(report.failures))


def _anchoring(report: VerificationReport) -> str:
    if not report.checkpoints and not report.trusted_checkpoints:
        return (
            "[yellow]no signed checkpoint[/]: a rewrite with recomputed hashes would pass; "
            f"{checkpoint_advice(report.tenant)}"
        )
    signatures = (
        f"{report.signatures_verified} signatures verified"
        if report.signatures_checked
        else "[yellow]signatures not checked[/] (pass --public-key)"
    )
    return (
        f"bound to {report.checkpoints} checkpoint(s){_trusted(report)}; {signatures}; "
        f"{report.tree_nodes} stored tree nodes compared"
    )


def _trusted(report: VerificationReport) -> str:
    """Whether the log extends the trusted checkpoints given: said only when it does."""
    if not report.trusted_checkpoints:
        return ""
    failed = sum("trusted checkpoint" in f"{f.stream} {f.reason}" for f in report.failures)
    if failed:
        return (
            f", [bold red]does not extend[/] the {report.trusted_checkpoints} trusted "
            f"checkpoint(s) given ({failed} finding(s) below)"
        )
    return f", extends {report.trusted_checkpoints} trusted checkpoint(s)"
