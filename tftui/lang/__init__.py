"""The flow language as pure functions: interpolation, conditions, verdicts, lenient JSON.

Nothing in this package performs I/O or raises on user input.
"""
