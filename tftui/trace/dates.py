"""Today's date for what a gate keeps across runs (artifact expiry, warning ages).

`TFTUI_TODAY=YYYY-MM-DD` fixes the date (tests, and re-running a CI job as of a given day);
otherwise the local date.
"""

from __future__ import annotations

import datetime as dt
import os

TODAY_ENV = "TFTUI_TODAY"


def today() -> tuple[dt.date | None, str | None]:
    """(today, None), or (None, problem) when TFTUI_TODAY is set but is not a date. Never raises."""
    fixed = os.environ.get(TODAY_ENV)
    if not fixed:
        return dt.date.today(), None
    try:
        return dt.date.fromisoformat(fixed), None
    except ValueError:
        return None, f"{TODAY_ENV}={fixed!r} is not a date (YYYY-MM-DD)"


def parse_date(value: object) -> dt.date | None:
    """An ISO date from a state or manifest file, or None when it is not one."""
    if not isinstance(value, str):
        return None
    try:
        return dt.date.fromisoformat(value)
    except ValueError:
        return None
