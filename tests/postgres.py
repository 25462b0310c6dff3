"""A real PostgreSQL server for the tests: ``CTXLEDGER_TEST_PG_URL`` (see .ci/start-postgres).

Locally, without the variable, PostgreSQL tests skip with a visible reason; under ``CI=true`` a
missing server fails them, so CI can never pass by skipping.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from sqlalchemy.engine import make_url

from tests.needs import missing

ENV = "CTXLEDGER_TEST_PG_URL"


def server_url() -> str:
    """The URL of the test server's admin database, or skip/fail when there is none."""
    url = os.environ.get(ENV)
    if not url:
        missing(f'PostgreSQL tests need {ENV} (start a server with: eval "$(.ci/start-postgres)")')
    return url


def dsn(url: str) -> str:
    """A plain libpq/asyncpg DSN for a SQLAlchemy URL."""
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


@asynccontextmanager
async def fresh_database() -> AsyncIterator[str]:
    """A new, empty database on the test server, dropped afterwards; yields its URL."""
    import asyncpg

    base = server_url()
    name = f"ctxledger_test_{uuid.uuid4().hex[:12]}"
    admin = await asyncpg.connect(dsn(base))
    try:
        await admin.execute(f'CREATE DATABASE "{name}"')
    finally:
        await admin.close()
    try:
        yield make_url(base).set(database=name).render_as_string(hide_password=False)
    finally:
        admin = await asyncpg.connect(dsn(base))
        try:
            await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        finally:
            await admin.close()
