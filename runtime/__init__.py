"""citeloop's research runtime: planner, tools, evidence ledger, policies, the engine and
its stages, the verifier, the report and its short answer, and replay. Imports only the
trajectories layer."""
