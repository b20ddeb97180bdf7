"""The shape check of a gate's `score` block is cached by content: blocks that differ only where
one JSON writer would write the same text (null, NaN, infinities) still get their own answer."""

from __future__ import annotations

from tftui.scoring.gate import _score_shape_errors
from tftui.scoring.scorers import score_shape_errors


def _block(threshold: object) -> dict[str, object]:
    return {"scorers": [{"type": "contains", "value": "x"}], "combine": "weighted", "threshold": threshold}


def test_cached_shape_errors_equal_the_uncached_check_whatever_the_order() -> None:
    values: list[object] = [None, float("nan"), float("inf"), 0.5, "0.5", 2, "\ud800"]
    for order in (values, values[::-1]):
        for value in order:
            block = _block(value)
            assert _score_shape_errors(block) == score_shape_errors(block), value
