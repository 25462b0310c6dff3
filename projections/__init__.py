"""projections: what is derived from the ctxledger log, the processes acting on it, the CLI."""

__all__: list[str] = []
