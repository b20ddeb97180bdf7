"""Run admission (docs/scheduling.md §2.1-§3): when a phase's turn comes, does it run, and if not, why.

One author for the rule, two users:

- the engine admits each phase with `admit` (checks 1-3': an earlier block, the budget,
  dependencies and join) and then `check_guard` (check 4: `when`, fail-open on an error);
- `reachability_preview` answers the guard editor's question "which of this phase and
  its downstream phases would run if its guard were X?" by running the same two
  functions over the re-run that applying the guard starts: the phase and everything
  downstream of it are reset and run again in layer order, every other phase keeps its
  result (and a block by one of them still halts the re-run).

The preview cannot know results that do not exist yet, so it assumes that a phase it
predicts to run finishes as it did in this run (its status, its output and, for a gate or
approval, its verdict: a gate that blocked is assumed to block again). Where that
assumption has nothing to stand on it does not guess: the row is "wait" — a dependency
has not finished yet (before a run, or above a pause), a guard reads the output of a phase
that has not run before, or a gate without a verdict so far would decide first. Within a
layer at most W phases run at once (docs/scheduling.md §1); the preview assumes they finish in the
order they started, so a phase sees the results (and a block) of the phases at least W
places before it in its layer.

Everything here returns data; the words for it are in tftui.present.whatif_text.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal

from tftui.engine.context import previous_output_of, step_view
from tftui.engine.outcome import BUDGET_TRUNCATED, first_block_of, over_budget, truncated_fan_out
from tftui.engine.resume import with_downstream
from tftui.engine.state import PhaseState, PhaseStatus, RunState
from tftui.engine.statectx import views_from_state
from tftui.flow.graph import Dag
from tftui.flow.model import Flow, PhaseBase
from tftui.lang.condition import condition_refs, evaluate, is_blank, unmet_reason
from tftui.lang.interpolate import Context, StepView

SkipCheck = Literal["blocked", "budget", "deps", "join-any", "guard"]
Fate = Literal["run", "skip", "wait"]
WaitCause = Literal["unfinished", "no-output", "no-verdict"]

def satisfied(status: PhaseStatus | None, optional: bool) -> bool:
    """docs/scheduling.md §2.2: a dependency is satisfied iff done, or failed and `optional`."""
    return status == PhaseStatus.DONE or (status == PhaseStatus.FAILED and optional)


@dataclass(frozen=True)
class Admission:
    """The admission decision for one phase: it runs (`check` None) or which check skipped it."""

    check: SkipCheck | None = None
    blocker: str | None = None  # blocked: the gate/approval that blocked
    block_reason: str | None = None  # blocked: its reason
    budget_reason: str | None = None  # budget: why the run is over budget
    unsatisfied: tuple[str, ...] = ()  # deps / join-any: the dependencies that are not satisfied
    expr: str | None = None  # guard: the expression that evaluated false

    @property
    def runs(self) -> bool:
        return self.check is None

    @property
    def reason(self) -> str | None:
        """The skip reason the engine records (docs/scheduling.md §2.1's `error` column); None when it runs."""
        if self.check == "blocked":
            return f"Gate blocked: {self.block_reason}" if self.block_reason else "Gate blocked"
        if self.check == "budget":
            return f"Budget exceeded: {self.budget_reason}"
        if self.check == "deps":
            return "Upstream dependency not satisfied"
        if self.check == "join-any":
            return "All dependencies failed or were skipped"
        if self.check == "guard":
            return unmet_reason(self.expr)
        return None


ADMITTED = Admission()


def admit(
    deps: Sequence[str],
    join: str | None,
    is_satisfied: Callable[[str], bool],
    *,
    block: tuple[str, str | None] | None,
    budget_reason: str | None,
) -> Admission:
    """docs/scheduling.md §2.1 checks 1-3' in order (the guard, check 4, is `check_guard`)."""
    if block is None and budget_reason is None and all(map(is_satisfied, deps)):
        return ADMITTED  # every phase's turn asks this: the common answer without a Python loop
    if block is not None:
        return Admission("blocked", blocker=block[0], block_reason=block[1])
    if budget_reason is not None:
        return Admission("budget", budget_reason=budget_reason)
    if deps:
        if join == "any":
            if not any(is_satisfied(dep) for dep in deps):
                return Admission("join-any", unsatisfied=tuple(deps))
        else:
            for dep in deps:  # every phase's turn asks this: no list unless one is unsatisfied
                if not is_satisfied(dep):
                    return Admission("deps", unsatisfied=tuple(d for d in deps if not is_satisfied(d)))
    return ADMITTED


@dataclass(frozen=True)
class Guard:
    """`when` as evaluated (docs/scheduling.md §2.1 check 4, docs/language.md §4.6 fail-open)."""

    expr: str | None
    runs: bool
    value: bool | None = None  # None: nothing to evaluate (no guard, or an empty one)
    error: str | None = None  # it could not be evaluated: the phase runs (fail-open)

    @property
    def admission(self) -> Admission:
        return ADMITTED if self.runs else Admission("guard", expr=self.expr)


@lru_cache(maxsize=4096)
def _guard(expr: str, runs: bool, value: bool, error: str | None) -> Guard:
    # A Guard is immutable, so one per outcome of an expression is shared: building a frozen
    # dataclass for every guarded phase was most of the cost of admitting one.
    return Guard(expr, runs, value, error)


def has_guard(expr: str | None) -> bool:
    """False for no guard or an empty one: nothing to evaluate, the phase runs."""
    return not is_blank(expr)


def check_guard(expr: str | None, context: Callable[[], Context]) -> Guard:
    """Evaluate a guard; `context` is only built when there is an expression."""
    if not has_guard(expr):
        return Guard(expr, True)
    assert expr is not None
    return evaluate_guard(expr, context())


def evaluate_guard(expr: str, ctx: Context) -> Guard:
    """A guard that `has_guard`, evaluated on `ctx` (fail-open on an error, docs/language.md §4.6)."""
    result = evaluate(expr, ctx)
    value = bool(result.value)
    if result.error:
        return _guard(expr, True, value, result.error)
    return _guard(expr, value, value, None)


@lru_cache(maxsize=4096)
def guard_skip_reason(expr: str | None) -> str:
    """The skip reason of a phase whose guard `expr` is false (`Admission.reason`, made once per expression)."""
    return Admission("guard", expr=expr).reason or ""


# ---- the guard editor's preview ------------------------------------------------------------


@dataclass(frozen=True)
class Reach:
    """One row of the preview: what the re-run would do with this phase."""

    phase_id: str
    outcome: Fate
    admission: Admission = ADMITTED  # skip: the check that skips it
    guard: Guard | None = None  # the guard as the preview evaluated it
    context: Context | None = None  # what the guard was evaluated on
    edited: bool = False  # the phase whose guard is being edited
    had_guard: bool = False  # it had a guard before the edit
    waiting: tuple[str, ...] = ()  # wait: the phases whose result decides it
    wait_cause: WaitCause | None = None
    assumed_block: bool = False  # blocked by a re-run gate assumed to block again

    @property
    def reason(self) -> str | None:
        """The skip reason the engine would record (None unless skipped)."""
        return self.admission.reason if self.outcome == "skip" else None

    def __iter__(self) -> Any:  # unpacks as (phase_id, outcome, reason)
        return iter((self.phase_id, self.outcome, self.reason))


@dataclass
class _Result:
    """A phase's result in the simulated re-run, as later phases see it."""

    state: PhaseState
    known_output: bool  # False: it runs now but did not run before (its output is unknown)


def _may_block(spec: PhaseBase) -> bool:
    return spec.type in ("gate", "approval")


def _reads(expr: str, unknown: set[str], deps: Sequence[str]) -> list[str]:
    """The phases of `unknown` whose output the guard reads (`{steps.X…}` or `{previous.output}`)."""
    out: list[str] = []
    for path in condition_refs(expr):
        head, _, rest = path.partition(".")
        if head == "steps":
            step = rest.split(".", 1)[0]
            if step in unknown and step not in out:
                out.append(step)
        elif head == "previous":
            out.extend(d for d in deps if d in unknown and d not in out)
    return out


def reachability_preview(
    flow: Flow,
    state: RunState,
    phase_id: str,
    new_when: str | None,
    *,
    dag: Dag | None = None,
    args: Mapping[str, Any] | None = None,
    guards: Mapping[str, str | None] | None = None,
) -> list[Reach]:
    """Run/skip/wait of `phase_id` and its downstream phases if its guard were `new_when`.

    `args`: the session's run args (over the flow defaults and the run's args); `guards`:
    other phases' active guard overrides (the debugger's), by phase id.
    """
    dag = dag or Dag.from_flow(flow)
    if phase_id not in dag.deps:
        return []
    specs = {p.id: p for p in flow.phases}
    affected = set(with_downstream(flow, phase_id))  # what applying the guard re-runs
    width = 1 if flow.budget is not None else flow.flow_concurrency
    merged_args: dict[str, Any] = {**flow.arg_defaults(), **(state.args or {}), **(args or {})}
    overrides = dict(guards or {})

    # The re-run starts from the state with the affected phases reset (outcome.restore).
    kept = {pid: st for pid, st in state.phases.items() if pid not in affected}
    views: dict[str, StepView] = {pid: v for pid, v in views_from_state(state).items() if pid not in affected}
    block = first_block_of([p.id for p in flow.phases], kept)
    budget = BUDGET_TRUNCATED if truncated_fan_out(kept.values()) else over_budget(flow.budget, state.usage)

    results: dict[str, _Result] = {}  # affected phases decided so far
    waiting: set[str] = set()  # affected or unfinished phases whose fate the preview does not know
    unknown_output: set[str] = set()
    unknown_verdict: list[str] = []  # re-run gates without a verdict so far (finished)
    assumed: tuple[str, str | None] | None = None  # a re-run gate assumed to block again, its reason
    out: list[Reach] = []

    def status_of(dep: str) -> PhaseStatus | None:
        if dep in results:
            return results[dep].state.status
        st = kept.get(dep)
        return st.status if st is not None else None

    def finish(pid: str) -> None:  # the phase's result becomes visible to later admissions
        nonlocal assumed
        res = results.get(pid)
        if res is None or res.state.status == PhaseStatus.SKIPPED:
            return
        st = res.state
        if res.known_output:
            views[pid] = step_view(st.status, st.output, st.json, st.error)
        else:
            unknown_output.add(pid)
        if _may_block(specs[pid]) and st.status == PhaseStatus.DONE:
            verdict = (st.gate or {}).get("verdict") if res.known_output else None
            if verdict == "block" and assumed is None:
                assumed = pid, (st.gate or {}).get("reason")
            elif verdict is None:
                unknown_verdict.append(pid)

    for layer in dag.layers:
        todo = [pid for pid in layer if pid in affected or not (st := kept.get(pid)) or not st.status.terminal]
        for index, pid in enumerate(todo):
            if index - width >= 0:
                finish(todo[index - width])
            if pid not in affected:  # not run yet (the run has not reached it): unknown
                waiting.add(pid)
                continue
            spec = specs[pid]
            deps = dag.deps.get(pid, [])
            blocker = block if block is not None else assumed
            unfinished = [d for d in deps if d in waiting or status_of(d) is None or not _terminal(status_of(d))]
            if unfinished and blocker is None:
                waiting.add(pid)
                out.append(Reach(pid, "wait", waiting=tuple(unfinished), wait_cause="unfinished"))
                continue
            if blocker is None and unknown_verdict:
                waiting.add(pid)
                out.append(Reach(pid, "wait", waiting=tuple(unknown_verdict), wait_cause="no-verdict"))
                continue
            adm = admit(
                deps, spec.join, lambda d: satisfied(status_of(d), bool(specs[d].optional)),
                block=blocker, budget_reason=budget,
            )
            if not adm.runs:
                results[pid] = _Result(PhaseState(id=pid, type=spec.type, status=PhaseStatus.SKIPPED), True)
                out.append(Reach(pid, "skip", adm, assumed_block=block is None and adm.check == "blocked"))
                continue
            expr = new_when if pid == phase_id else overrides.get(pid, spec.when)
            edited, had_guard = pid == phase_id, bool(spec.when)
            reads = _reads(expr, unknown_output, deps) if expr else []
            if reads:
                waiting.add(pid)
                out.append(Reach(pid, "wait", waiting=tuple(reads), wait_cause="no-output", edited=edited))
                continue
            built: list[Context] = []

            def context(spec: PhaseBase = spec, deps: Sequence[str] = deps, built: list[Context] = built) -> Context:
                built.append(_context(spec, deps, merged_args, views, kept, results))
                return built[-1]

            guard = check_guard(expr, context)
            ctx = built[0] if built else None
            if not guard.runs:
                results[pid] = _Result(PhaseState(id=pid, type=spec.type, status=PhaseStatus.SKIPPED), True)
                out.append(Reach(pid, "skip", guard.admission, guard, ctx, edited, had_guard))
                continue
            before = state.phases.get(pid)
            if before is not None and before.status in (PhaseStatus.DONE, PhaseStatus.FAILED):
                results[pid] = _Result(before, True)
            else:
                results[pid] = _Result(PhaseState(id=pid, type=spec.type, status=PhaseStatus.DONE), False)
            out.append(Reach(pid, "run", ADMITTED, guard, ctx, edited, had_guard))
        for pid in todo[max(0, len(todo) - width):]:
            finish(pid)
    return out


def _terminal(status: PhaseStatus | None) -> bool:
    return status is not None and status.terminal


def _context(
    spec: PhaseBase,
    deps: Sequence[str],
    args: dict[str, Any],
    views: dict[str, StepView],
    kept: Mapping[str, PhaseState],
    results: Mapping[str, _Result],
) -> Context:
    """The Context the engine would build for the phase in the re-run (engine.context.build_context)."""
    phases: dict[str, PhaseState] = {}
    for dep in list(deps) + list(getattr(spec, "from_", None) or ()):
        res = results.get(dep)
        st = res.state if res is not None else kept.get(dep)
        if st is not None:
            phases[dep] = st
    return Context(args=args, steps=dict(views), previous_output=previous_output_of(spec, phases, deps))
