"""Guard editor support: live feedback on a `when` expression.

`guard_feedback(expr, ctx)` is what the editor shows on every keystroke: the parse
error with the caret position, each placeholder with the value it resolves to now,
and the result (docs/language.md §4.6: an expression that cannot be evaluated runs the phase,
fail-open). It needs only the condition language and a Context.

Which phases would run or be skipped with the edited guard is a question about a run:
`tftui.engine.admission.reachability_preview` answers it with the engine's own admission
rule, and `tftui.present.whatif_text.explain_skip` explains an existing skip.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tftui.flow.lint import Finding, Shape, lint_expression
from tftui.lang.condition import condition_refs, evaluate, is_blank, syntax_error, unmet_reason
from tftui.lang.interpolate import Context, resolve
from tftui.lang.values import MISSING, js_json_stringify


@dataclass(frozen=True)
class Placeholder:
    ref: str  # "{steps.triage.json.severity}"
    value: Any  # MISSING when unresolved
    shown: str  # the value as the editor prints it (`unresolved`, `"high"`, `3`, …)


@dataclass(frozen=True)
class GuardFeedback:
    error: str | None  # parse error message (None when it parses)
    caret_col: int | None  # 0-based offset of the error in `expr` (None when it parses)
    caret_line: int | None = None  # 0-based line of the error (multi-line expressions)
    caret_text: str = ""  # the error's line followed by a line with `^` under the position
    placeholders: list[Placeholder] = field(default_factory=list)
    result: bool | None = None  # True/False; None when it does not parse
    result_text: str = ""  # e.g. "true — the phase runs" / "false — skipped (Condition not met: …)"
    eval_error: str | None = None  # evaluated with an error (fail-open)
    lint: list[Finding] = field(default_factory=list)  # the linter's findings (docs/linter.md), with a scope


def _shown(value: Any) -> str:
    if value is MISSING:
        return "unresolved"
    try:
        text = js_json_stringify(value, None)
    except (TypeError, ValueError, RecursionError):
        text = str(value)
    return text if len(text) <= 80 else text[:79] + "…"


def guard_feedback(expr: str, ctx: Context, scope: Shape | None = None) -> GuardFeedback:
    """Everything the guard editor shows for `expr` (empty = no guard: the phase runs). With
    `scope` (`tftui.flow.lint.phase_scope`), also the linter's findings, as `tftui check` reports them."""
    refs = [Placeholder("{" + path + "}", value := resolve(path, ctx), _shown(value)) for path in condition_refs(expr)]
    lint = lint_expression(expr, scope) if scope is not None else []
    problem = syntax_error(expr)
    if problem is not None:
        pos = max(0, min(problem.position, len(expr)))
        line_no = expr.count("\n", 0, pos)
        start = expr.rfind("\n", 0, pos) + 1
        end = expr.find("\n", pos)
        line = expr[start : end if end >= 0 else len(expr)]
        caret = line + "\n" + " " * (pos - start) + "^"
        return GuardFeedback(problem.message, pos - start, line_no, caret, refs, None,
                             f"syntax error: {problem.message} — the phase would run (fail-open)", lint=lint)
    if is_blank(expr):
        return GuardFeedback(None, None, placeholders=refs, result=True, result_text="no condition — the phase runs")
    result = evaluate(expr, ctx)
    if result.error is not None:
        return GuardFeedback(None, None, placeholders=refs, result=True, eval_error=result.error,
                             result_text=f"could not be evaluated ({result.error}) — the phase runs (fail-open)",
                             lint=lint)
    text = "true — the phase runs" if result.value else f"false — skipped ({unmet_reason(expr)})"
    return GuardFeedback(None, None, placeholders=refs, result=result.value, result_text=text, lint=lint)
