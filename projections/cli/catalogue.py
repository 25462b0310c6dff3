"""Where each command lives and its help's first paragraph, so that ``ctxledger
--help`` and ``--version`` start without importing every command module. Generated: a test
keeps it in step with the commands (see tests/projections/cli_catalogue.py)."""

from __future__ import annotations

__all__ = ["COMMANDS"]

#: command name -> (module in projections.cli, first paragraph of its help)
COMMANDS: dict[str, tuple[str, str]] = {
    "append": ("log_commands", "Append one event to a stream."),
    "checkpoint": (
        "audit_commands",
        "Sign the tenant's Merkle tree size and root (a C2SP checkpoint) and record it.",
    ),
    "compact": (
        "compaction_commands",
        "Mask old tool results, then summarise what the window leaves out, behind the gate.",
    ),
    "consent": ("consent_commands", "Record a user's consent for long-term memory, or revoke it."),
    "consistency": (
        "consistency_commands",
        "Ask the same questions after the full history and after the compacted context.",
    ),
    "context": (
        "session_commands",
        "Render the messages of the session's next request within the budget.",
    ),
    "demo": (
        "log_commands",
        "The Shanghai→Hangzhou weekend trip, end to end: pins, tool calls, compaction behind the\ngate, rollback, evidence, consent-gated memory, verify, time travel.",
    ),
    "erase": (
        "log_commands",
        "Erase the payloads of events (by event id, or by the message id 'context' and 'search'\nshow) and of every event derived from them (summaries that\nquote them, masked digests, copies, memory proposals), or everything of sessions\n(--session) or users (--user), in one recorded step; the hashed envelopes and the proof\nstay, and verification stays green. Each derived event is listed with the reason.",
    ),
    "export": (
        "audit_commands",
        "Write an offline-verifiable bundle: envelopes, payloads (erased ones marked), signed\ncheckpoints and proofs, up to the newest checkpoint. Refuses a payload that is missing\nwithout a PayloadErased naming it; warns about events after the newest checkpoint.",
    ),
    "ingest": (
        "session_commands",
        "Append the messages of FILE (a JSON array or JSON Lines; '-' for stdin) to a session.",
    ),
    "keygen": (
        "audit_commands",
        "Create an Ed25519 signing key for checkpoints and print its verifier key.",
    ),
    "log": (
        "log_commands",
        "Show a tenant's events in position order (or one stream's, in version order).",
    ),
    "mcp": (
        "mcp_commands",
        "Serve search_history, read_message, pin, recall_memory and propose_memory over MCP.",
    ),
    "memory": (
        "memory_commands",
        "Long-term memory of a user: candidates, recall, forget, propose, policy.",
    ),
    "metrics": (
        "metrics_commands",
        "The acceptance metrics as Prometheus metrics: counters (_total), the compaction latency\nhistogram in seconds, ratios as gauges; labelled by tenant (and session on request).",
    ),
    "pin": ("session_commands", "Pin messages of a session by id."),
    "promote": (
        "memory_commands",
        "Promote what consent or the tenant policy allows; retract what they no longer allow.",
    ),
    "report": (
        "report_commands",
        "A self-contained HTML time-travel report of a session (no network needed to view it).",
    ),
    "rollback": (
        "compaction_commands",
        "Move the summary head back; the restored version is validated again.",
    ),
    "search": (
        "recall_commands",
        "Find the messages that best match QUERY (BM25 over the search index), best first.",
    ),
    "stats": (
        "report_commands",
        "The acceptance metrics per session and for the tenant: compression, retention,\nprotocol errors, compaction overhead, rollbacks, staleness, security counters.",
    ),
    "streams": ("log_commands", "List a tenant's streams with their head version and hash."),
    "summaries": (
        "compaction_commands",
        "The summary chain of a session: every version with its status and parent.",
    ),
    "tenants": ("log_commands", "List the tenants that have events."),
    "tour": (
        "log_commands",
        "A guided tour of the log: append, retry, conflict, erase, verify, catch tampering.",
    ),
    "unpin": ("session_commands", "Unpin messages of a session by id."),
    "verify": (
        "verify_commands",
        "Recompute every hash from the stored bytes and, for a whole tenant, the Merkle root at\nevery signed checkpoint; exit 1 if anything does not verify, 2 if there is nothing to\nverify. Without --public-key, checkpoint signatures are not checked (the report says so).",
    ),
    "verify-bundle": (
        "audit_commands",
        "Verify a bundle with no database: hashes, chains, signatures, forks, proofs, and that a\nstream bundle is the whole stream at its checkpoint (from genesis to the head the\ncheckpoint signs). Exit 0 if everything verifies, 1 if anything failed, a stream bundle\nis partial (unless --allow-partial) or no --public-key was given (unless\n--skip-signatures), 2 if the file cannot be read.",
    ),
}
