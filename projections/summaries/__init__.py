"""Summaries: the ``compaction_summary`` record and its untrusted block, sanitising before any
summarizer, the fail-closed validation gate, the summarizer protocol with the offline and
OpenAI-compatible summarizers, and the summary chain (versions, statuses, taint, fact diff)."""
