"""JSON as JSON.parse reads it: Python's `json` also accepts `NaN`, `Infinity` and `-Infinity`,
which no JSON writer produces and which break every number format downstream (a journal line
with `"durationMs": Infinity` crashed `tftui replay --print`). Files tftui reads back — journals,
bundles, traces — go through `loads`; a constant is a ValueError like any other bad JSON.
"""

from __future__ import annotations

import json
from typing import Any


def _reject_constant(name: str) -> Any:
    raise ValueError(f"JSON does not allow {name}")


# One decoder, made once: `json.loads(..., parse_constant=...)` builds a new decoder per call,
# which a journal read pays per line.
_DECODER = json.JSONDecoder(parse_constant=_reject_constant)


def loads(data: str | bytes) -> Any:
    """`json.loads` without the non-standard constants; raises ValueError/RecursionError as json does."""
    if isinstance(data, bytes):
        data = data.decode(json.detect_encoding(data), "surrogatepass")  # as json.loads does
    return _DECODER.decode(data)
