"""``ctxledger mcp`` tested with the MCP SDK's own client: the real console script in a
subprocess, over stdio and over streamable HTTP on loopback."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

from eventstore import EventStore
from projections.ledger import Ledger
from projections.memory import LongTermMemory
from tests.projections.test_cli import SCRIPT

TOOLS = {"search_history", "read_message", "pin", "recall_memory", "propose_memory"}


async def _fill(db: Path) -> None:
    async with EventStore.open(db) as store:
        session = Ledger(store).session("acme", "trip", user_id="ana")
        await session.append(
            [
                {"id": "m1", "role": "user", "content": "My budget is 200 CNY per ticket."},
                {"id": "m2", "role": "assistant", "content": "Noted: at most 200 CNY."},
                {"id": "m3", "role": "user", "content": "Never book G123, it is too slow."},
            ]
        )
        other = Ledger(store).session("globex", "trip", user_id="bob")
        await other.append([{"id": "x1", "role": "user", "content": "globex budget secret"}])


def _text(result: Any) -> str:
    return "".join(getattr(block, "text", "") for block in result.content)


async def _exercise(session: ClientSession, db: Path) -> None:
    await session.initialize()
    listed = await session.list_tools()
    assert {tool.name for tool in listed.tools} == TOOLS
    for tool in listed.tools:  # the model can never name a tenant or a user
        # input_schema in MCP SDK 2.x, inputSchema in 1.x
        schema = getattr(tool, "input_schema", None) or tool.inputSchema
        assert not {"tenant", "tenant_id", "user", "user_id"} & set(schema["properties"])
    found = json.loads(_text(await session.call_tool("search_history", {"query": "budget"})))
    assert [hit["id"] for hit in found["results"]] == ["m1"]
    assert "globex" not in json.dumps(found)
    read = json.loads(_text(await session.call_tool("read_message", {"id": "m3"})))
    assert read["message"]["content"] == "Never book G123, it is too slow."
    await _errors_are_tool_errors(session, listed.tools)
    pinned = json.loads(
        _text(await session.call_tool("pin", {"message_ids": ["m3"], "reason": "rule"}))
    )
    assert pinned["pinned"] == ["m3"]
    proposal = {"key": "budget.max", "value": "200 CNY", "category": "preference",
                "source_message_ids": ["m1"], "confidence": 0.9}  # fmt: skip
    proposed = json.loads(_text(await session.call_tool("propose_memory", proposal)))
    assert proposed["status"] == "proposed"
    bad = await session.call_tool("propose_memory", {**proposal, "source_message_ids": ["x1"]})
    assert getattr(bad, "is_error", None) or bad.isError  # 2.x and 1.x names
    assert "does not have" in _text(bad)
    recalled = json.loads(_text(await session.call_tool("recall_memory", {})))
    assert recalled == {"memories": []}  # proposed, not promoted: no consent yet
    async with EventStore.open(db) as store:
        candidates = await LongTermMemory(store).candidates("acme", "ana")
        assert [c.key for c in candidates] == ["budget.max"]
        assert (await store.verify("acme")).ok


def _is_error(result: Any) -> bool:
    return bool(getattr(result, "is_error", None) or getattr(result, "isError", None))


async def _errors_are_tool_errors(session: ClientSession, tools: list[Any]) -> None:
    """Every failure is a tool error (never a successful result holding an error), and the
    schemas carry ranges and real descriptions."""
    unknown = await session.call_tool("read_message", {"id": "m404"})
    assert _is_error(unknown)
    assert "no readable message 'm404'" in _text(unknown)
    too_many = await session.call_tool("search_history", {"query": "budget", "k": 50})
    assert _is_error(too_many)
    schemas = {t.name: getattr(t, "input_schema", None) or t.inputSchema for t in tools}
    assert schemas["search_history"]["properties"]["k"]["maximum"] == 20
    assert schemas["propose_memory"]["properties"]["confidence"]["maximum"] == 1.0
    # The tenant policy's categories (the default policy's here), never-promoted ones too.
    category = schemas["propose_memory"]["properties"]["category"]
    assert {"preference", "profile", "health", "secrets"} <= set(category["enum"])
    off_policy = {"key": "k", "value": "v", "category": "astrology",
                  "source_message_ids": ["m1"], "confidence": 0.9}  # fmt: skip
    refused = await session.call_tool("propose_memory", off_policy)
    assert _is_error(refused)
    for tool in tools:
        assert len(tool.description or "") > 60, tool.name
        for name, field in schemas[tool.name]["properties"].items():
            assert field.get("description"), f"{tool.name}.{name}"


async def test_stdio(tmp_path: Path) -> None:
    db = tmp_path / "ledger.db"
    await _fill(db)
    params = StdioServerParameters(
        command=SCRIPT,
        args=["--db", str(db), "mcp", "--tenant", "acme", "--session", "trip", "--user", "ana"],
        env=dict(os.environ),
    )
    with (tmp_path / "server.err").open("w+", encoding="utf-8") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            await asyncio.wait_for(_exercise(session, db), timeout=60)
        errlog.seek(0)
        logged = errlog.read()
    assert "INFO" not in logged, logged  # quiet: the host shows the server's stderr


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def test_streamable_http_on_loopback(tmp_path: Path) -> None:
    db = tmp_path / "ledger.db"
    await _fill(db)
    port = _free_port()
    command = [SCRIPT, "--db", str(db), "mcp", "--tenant", "acme", "--session", "trip",
               "--user", "ana", "--transport", "http", "--port", str(port)]  # fmt: skip
    server = subprocess.Popen(  # noqa: ASYNC220 - started once, waited for below
        command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    try:
        _wait_for(port, server)
        url = f"http://127.0.0.1:{port}/mcp"
        async with streamable_http_client(url) as streams:
            read, write = streams[0], streams[1]
            async with ClientSession(read, write) as session:
                await asyncio.wait_for(_exercise(session, db), timeout=60)
    finally:
        server.terminate()
        server.wait(timeout=30)


def _wait_for(port: int, server: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if server.poll() is not None:
            pytest.fail(
                f"the server exited: {server.stderr.read().decode() if server.stderr else ''}"
            )
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    pytest.fail("the MCP server did not listen within 60 s")
