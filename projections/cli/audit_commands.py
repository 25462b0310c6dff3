"""Commands for auditors: ``keygen``, ``checkpoint``, ``export`` and ``verify-bundle``."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import click
from rich.table import Table

from eventstore import EventStore
from eventstore.bundle import StoreSource, export_bundle, verify_bundle
from eventstore.notes import NoteError, Signer, open_note, parse_checkpoint
from eventstore.records import CHECKPOINT_STREAM
from projections.cli.common import (
    EXIT_ERROR,
    EXIT_FAILED_VERIFICATION,
    cannot_write,
    cli,
    json_option,
    known_tenant,
    open_store,
    out_file_option,
    print_json,
    run,
    stderr,
    stdout,
)
from projections.cli.keys import public_key_option, read_checkpoint, verifiers
from projections.cli.params import TENANT_HELP
from projections.cli.progress import task_progress

__all__: list[str] = []

_KEY_NAME_ENV = "CTXLEDGER_KEY_NAME"


@cli.command("keygen")
@click.option("--name", required=True, help="The key's name, e.g. acme-audit-2026.")
@out_file_option(
    "Where to write the private key (PEM); the verifier key goes to FILE.pub.", required=True
)
@json_option("Print the result as JSON.")
def keygen_command(name: str, output: Path, as_json: bool) -> None:
    """Create an Ed25519 signing key for checkpoints and print its verifier key."""
    try:
        signer = Signer.generate(name)
    except NoteError as error:
        raise click.BadParameter(str(error), param_hint="--name") from None
    if output.exists():
        raise click.UsageError(f"{output} exists; choose another file (keys are not overwritten)")
    public = output.with_name(output.name + ".pub")
    try:
        output.write_bytes(signer.to_pem())
        os.chmod(output, 0o600)
        public.write_text(signer.verifier.encode() + "\n", encoding="utf-8")
    except OSError as error:
        cannot_write(output, error)
    if as_json:
        print_json(
            {
                "private_key": str(output),
                "public_key": str(public),
                "verifier": signer.verifier.encode(),
            }
        )
        return
    stdout.print(f"private key: {output} (keep it secret)\nverifier key ({public}):")
    click.echo(signer.verifier.encode())


@cli.command("checkpoint")
@click.option("--tenant", required=True, help=TENANT_HELP)
@click.option(
    "--key",
    "key_file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="The PEM signing key (default: the PEM text in CTXLEDGER_SIGNING_KEY).",
)
@click.option(
    "--key-name",
    envvar=_KEY_NAME_ENV,
    required=True,
    help=f"The signing key's name (or set {_KEY_NAME_ENV}).",
)
@click.option("--origin", help="The log's origin line (default: ctxledger/<tenant>).")
@json_option()
@click.pass_context
def checkpoint_command(
    context: click.Context,
    tenant: str,
    key_file: Path | None,
    key_name: str,
    origin: str | None,
    as_json: bool,
) -> None:
    """Sign the tenant's Merkle tree size and root (a C2SP checkpoint) and record it."""

    async def action() -> dict[str, object]:
        signer = Signer.load(key_name, key_file)
        async with open_store(context) as store:
            await known_tenant(store, tenant)
            event = await store.checkpoint(tenant, signer, origin=origin)
        assert event.data is not None
        return {**event.data, "position": event.position}

    checkpoint = run(action)
    if as_json:
        print_json(checkpoint)
        return
    stdout.print(
        f"checkpoint of {tenant}: size {checkpoint['size']}, root {checkpoint['root']}, "
        f"signed by {checkpoint['key_name']}; recorded at position {checkpoint['position']}"
    )
    click.echo(str(checkpoint["note"]), nl=False)


@cli.command("export")
@click.option("--tenant", required=True, help=TENANT_HELP)
@click.option("--stream", help="Only this stream (each event with its inclusion proof).")
@out_file_option("The bundle file to write (JSON).", required=True)
@click.option(
    "--checkpoint",
    "trusted_file",
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
    help="A checkpoint the auditor holds: the bundle carries the proof that the log extends it.",
)
@json_option("Print the result as JSON.")
@click.pass_context
def export_command(
    context: click.Context,
    tenant: str,
    stream: str | None,
    output: Path,
    trusted_file: Path | None,
    as_json: bool,
) -> None:
    """Write an offline-verifiable bundle: envelopes, payloads (erased ones marked), signed
    checkpoints and proofs, up to the newest checkpoint. Refuses a payload that is missing
    without a PayloadErased naming it; warns about events after the newest checkpoint."""
    trusted = None
    if trusted_file is not None:
        note = read_checkpoint(trusted_file, "--checkpoint")
        trusted = parse_checkpoint(open_note(note, [])[0])

    async def action() -> tuple[dict[str, Any], int]:
        async with open_store(context, read_only=True) as store:
            await known_tenant(store, tenant)
            with task_progress("exporting", enabled=not as_json) as progress:
                bundle = await export_bundle(
                    StoreSource(store),
                    tenant,
                    stream=stream,
                    trusted=trusted,
                    progress=progress,
                )
            return bundle, await _uncovered(store, tenant, bundle["tree_size"])

    bundle, uncovered = run(action)
    text = json.dumps(bundle, ensure_ascii=False, sort_keys=True, indent=1)
    try:
        output.write_text(text + "\n", encoding="utf-8")
    except OSError as error:
        cannot_write(output, error)
    if as_json:
        print_json(
            {
                "output": str(output),
                "events": len(bundle["events"]),
                "checkpoints": len(bundle["checkpoints"]),
                "tree_size": bundle["tree_size"],
                "after_newest_checkpoint": uncovered,
            }
        )
    else:
        stdout.print(
            f"wrote {output}: {len(bundle['events'])} events, {len(bundle['checkpoints'])} "
            f"checkpoints, tree size {bundle['tree_size']}"
        )
    if uncovered:
        stderr.print(
            f"[yellow]warning:[/] {uncovered} event(s) of {tenant} were recorded after the "
            f"newest checkpoint and are not in the bundle; to include them, sign a new "
            f"checkpoint ('ctxledger checkpoint --tenant {tenant} --key KEY.pem --key-name "
            f"NAME', with the key that signed the last) and export again"
        )


async def _uncovered(store: EventStore, tenant: str, tree_size: int) -> int:
    """Events after the newest checkpoint's tree, other than checkpoint events."""
    count, cursor = 0, tree_size
    while batch := await store.recorder.read_log(tenant, cursor, 1000):
        count += sum(event.stream_id != CHECKPOINT_STREAM for event in batch)
        cursor = batch[-1].position
    return count


@cli.command("verify-bundle")
@click.argument("bundle", type=click.Path(dir_okay=False, exists=True, path_type=Path))
@public_key_option
@click.option(
    "--checkpoint",
    "trusted_files",
    multiple=True,
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
    help="A checkpoint published earlier: the bundle's log must extend it (catches truncation "
    "and old restores). Repeatable.",
)
@click.option(
    "--allow-partial",
    is_flag=True,
    help="Accept a stream bundle that does not prove it is the whole stream (it still says so).",
)
@click.option(
    "--skip-signatures",
    is_flag=True,
    help="Verify without --public-key: hashes, chains and proofs only. Without a key and "
    "without this flag the bundle is not verified (exit 1): anyone can re-sign a rewrite.",
)
@json_option("The report as JSON.")
def verify_bundle_command(
    bundle: Path,
    keys: tuple[str, ...],
    trusted_files: tuple[Path, ...],
    allow_partial: bool,
    skip_signatures: bool,
    as_json: bool,
) -> None:
    """Verify a bundle with no database: hashes, chains, signatures, forks, proofs, and that a
    stream bundle is the whole stream at its checkpoint (from genesis to the head the
    checkpoint signs). Exit 0 if everything verifies, 1 if anything failed, a stream bundle
    is partial (unless --allow-partial) or no --public-key was given (unless
    --skip-signatures), 2 if the file cannot be read."""
    keyring = verifiers(keys)
    trusted = [read_checkpoint(path, "--checkpoint") for path in trusted_files]
    try:
        document = json.loads(bundle.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        stderr.print(f"[bold red]error:[/] cannot read {bundle}: {error}")
        raise SystemExit(EXIT_ERROR) from None
    report = verify_bundle(document, keyring, trusted, allow_partial=allow_partial)
    if as_json:
        print_json(report.model_dump(mode="json"))
    else:
        state = "[green]verified[/]" if report.ok else "[bold red]FAILED[/]"
        stdout.print(
            f"{state}: tenant {report.tenant}, {report.events} events ({report.erased} erased),"
            f" {report.checkpoints} checkpoints, tree size {report.tree_size}, signatures "
            + (
                f"verified: {report.signatures_verified}"
                if report.signatures_checked
                else "not checked (no --public-key)"
            )
        )
        if report.partial is not None:
            stdout.print(f"[bold yellow]{report.partial}[/] of stream {report.stream}")
        if report.failures:
            table = Table("check", "position", "detail")
            for failure in report.failures:
                table.add_row(failure.check, str(failure.position or ""), failure.detail)
            stdout.print(table)
    if not report.ok:
        raise SystemExit(EXIT_FAILED_VERIFICATION)
    if not keyring and not skip_signatures:
        stderr.print(
            "[bold red]not verified:[/] the checkpoints' signatures were not checked; pass the "
            "signer's --public-key (or --skip-signatures to accept hashes and proofs alone)"
        )
        raise SystemExit(EXIT_FAILED_VERIFICATION)
