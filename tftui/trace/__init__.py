"""Trace quality gates (docs/trace-gates.md): normalized traces, versioned rules, reports and baselines."""
