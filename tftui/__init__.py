"""tftui: a terminal debugger and headless runner for taskflow agent flows."""

__version__ = "0.1.0"
