"""Trace quality gates (SPEC §9): normalized traces, versioned rules, reports and baselines."""
