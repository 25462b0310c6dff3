"""``ctxledger demo``: the seed's Shanghai→Hangzhou weekend trip, end to end."""

from projections.demo.run import DEMO_TENANT, DEMO_USER, run_demo

__all__ = ["DEMO_TENANT", "DEMO_USER", "run_demo"]
