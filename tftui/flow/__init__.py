"""The flow file as a value: models, loading with diagnostics, checks, the DAG."""
