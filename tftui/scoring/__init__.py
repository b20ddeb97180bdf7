"""Scoring gates: pure scorers, combination, code-compiles and the gate pipeline (docs/gates.md).

Only the pure parts are re-exported here; `tftui.scoring.compile` (subprocesses) and
`tftui.scoring.gate` (model calls) are imported explicitly by the engine.
"""

from tftui.scoring.combine import Combined, combine, explain, scorer_report
from tftui.scoring.scorers import ScorerResult, evaluate_scorer, score_shape_errors, scorer_name

__all__ = [
    "Combined",
    "ScorerResult",
    "combine",
    "evaluate_scorer",
    "explain",
    "score_shape_errors",
    "scorer_name",
    "scorer_report",
]
