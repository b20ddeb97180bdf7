"""The TUI's widgets: DAG tree, phase detail, event log, run header, diagnostics."""
