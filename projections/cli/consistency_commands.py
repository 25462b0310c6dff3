"""``ctxledger consistency``: answers from the compacted context against answers from the
full history, asked of an OpenAI-compatible model (the seed's seventh metric)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import click
from rich.table import Table

from projections.cli.budget_options import budget_options, keep_groups_option
from projections.cli.common import (
    cli,
    json_option,
    open_store,
    print_json,
    run,
    stdout,
    stored_session,
)
from projections.cli.params import SESSION_HELP, TENANT_HELP
from projections.context.budget import Budget
from projections.context.tokens import TiktokenCounter
from projections.ledger import Ledger
from projections.render import literal
from projections.reports.consistency import (
    OpenAICompatibleAnswerer,
    answer_consistency,
    session_questions,
)

__all__: list[str] = []


@cli.command("consistency")
@click.option("--tenant", required=True, help=TENANT_HELP)
@click.option("--session", "session_id", required=True, help=SESSION_HELP)
@click.option(
    "--base-url", required=True, envvar="CTXLEDGER_ANSWER_URL", help="OpenAI-compatible server."
)
@click.option(
    "--answer-model",
    required=True,
    envvar="CTXLEDGER_ANSWER_MODEL",
    help="The model that answers the questions (the server's name for it).",
)
@click.option("--question", "questions", multiple=True, help="A question (repeatable).")
@click.option(
    "--questions-file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="One question per line.",
)
@budget_options
@click.option("--model", default="gpt-4o", show_default=True, help="Sets the default limit.")
@keep_groups_option
@json_option()
@click.pass_context
def consistency_command(
    context: click.Context,
    tenant: str,
    session_id: str,
    base_url: str,
    answer_model: str,
    questions: tuple[str, ...],
    questions_file: Path | None,
    budget: Budget,
    model: str,
    keep_groups: int,
    as_json: bool,
) -> None:
    """Ask the same questions after the full history and after the compacted context.

    The questions come from --question, --questions-file, or else the session's own user
    questions (the latest 20). The key comes from OPENAI_API_KEY (local servers accept any).
    """
    asked = list(questions)
    if questions_file is not None:
        asked += [q for q in questions_file.read_text(encoding="utf-8").splitlines() if q.strip()]
    answerer = OpenAICompatibleAnswerer(
        base_url=base_url, model=answer_model, api_key=os.environ.get("OPENAI_API_KEY", "unused")
    )

    async def action() -> Any:
        async with open_store(context) as store:
            stored = await stored_session(store, tenant, session_id)
            session = Ledger(store, counter=TiktokenCounter(model)).session(tenant, stored)
            chosen = asked or session_questions(await session.messages())
            if not chosen:
                raise click.UsageError(
                    "the session has no user question to ask again: give --question or "
                    "--questions-file"
                )
            return await answer_consistency(
                session, budget, chosen, answerer, keep_groups=keep_groups
            )

    report = run(action)
    if as_json:
        print_json(report.model_dump(mode="json"))
        return
    table = Table("question", "full history", "compacted context", "agree")
    for item in report.items:
        table.add_row(
            literal(item.question),
            literal(item.full),
            literal(item.compacted),
            "yes" if item.agree else "no",
        )
    stdout.print(table)
    share = f"{report.share:.0%}" if report.share is not None else "-"
    stdout.print(
        f"answer consistency ({report.model}): {report.agreeing} of {report.questions} "
        f"agree ({share})"
    )
