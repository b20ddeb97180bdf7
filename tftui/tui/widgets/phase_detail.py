"""The selected phase's detail: tabs for overview, prompt, output, gate, attempts, raw."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Static, TabbedContent, TabPane

from tftui.engine.state import PhaseState
from tftui.flow.model import PhaseBase
from tftui.tui import detail_text

TABS = ("overview", "prompt", "output", "gate", "attempts", "raw")
# Short labels so all six tabs fit at 80 columns.
LABELS = {"overview": "Info", "prompt": "Prompt", "output": "Output", "gate": "Gate", "attempts": "Calls", "raw": "Raw"}


class PhaseDetail(Vertical):
    DEFAULT_CSS = """
    PhaseDetail { height: 1fr; }
    PhaseDetail TabbedContent { height: 1fr; }
    PhaseDetail TabPane { height: 1fr; padding: 0; }
    PhaseDetail VerticalScroll { height: 1fr; }
    PhaseDetail .detail-body { width: 1fr; padding: 0 1; }
    PhaseDetail #gate-row { height: auto; }
    PhaseDetail #gate-report, PhaseDetail #gate-judge { width: 1fr; }
    """

    def __init__(self, *, show_times: bool = True, **kwargs) -> None:
        super().__init__(**kwargs)
        self.show_times = show_times
        self.phase_id: str | None = None

    def compose(self) -> ComposeResult:
        with TabbedContent(initial="overview", id="detail-tabs"):
            for tab in TABS:
                with TabPane(LABELS[tab], id=tab):
                    with VerticalScroll():
                        if tab == "gate":
                            with Horizontal(id="gate-row"):
                                yield Static(id="gate-report", classes="detail-body", markup=False)
                                yield Static(id="gate-judge", classes="detail-body", markup=False)
                        else:
                            yield Static(id=f"{tab}-body", classes="detail-body", markup=False)

    def show(
        self,
        pid: str | None,
        spec: PhaseBase | None,
        state: PhaseState | None,
        *,
        stale: bool = False,
        breakpoint: bool = False,
        guard_override: str | None = None,
    ) -> None:
        self.phase_id = pid
        if pid is None:
            self.query_one("#overview-body", Static).update(Text("Select a phase in the tree."))
            return
        self.query_one("#overview-body", Static).update(
            detail_text.overview(
                pid,
                spec,
                state,
                stale=stale,
                breakpoint=breakpoint,
                guard_override=guard_override,
                show_times=self.show_times,
            )
        )
        self.query_one("#prompt-body", Static).update(detail_text.prompt(spec, state))
        self.query_one("#output-body", Static).update(detail_text.output(spec, state))
        report, judge = detail_text.gate(state)
        self.query_one("#gate-report", Static).update(report)
        self.query_one("#gate-judge", Static).update(judge)
        self.query_one("#attempts-body", Static).update(detail_text.attempts(state))
        self.query_one("#raw-body", Static).update(detail_text.raw(state))

    @property
    def active(self) -> str:
        return self.query_one(TabbedContent).active or "overview"

    @active.setter
    def active(self, tab: str) -> None:
        self.query_one(TabbedContent).active = tab

    def cycle(self, step: int) -> None:
        current = self.active
        index = TABS.index(current) if current in TABS else 0
        self.active = TABS[(index + step) % len(TABS)]
