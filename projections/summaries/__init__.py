"""Summaries: the ``compaction_summary.v1`` record, sanitising before any summarizer, and the
untrusted block a summary is rendered in. (The validation gate, the summarizers and the
summary chain are not built yet.)"""
