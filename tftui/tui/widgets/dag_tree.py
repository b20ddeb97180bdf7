"""The DAG tree: one line per phase, updated in place.

The tree is built once per flow (and rebuilt only when a reload changes the flow's
shape); engine events only call `refresh_phases(ids)`, which marks the labels of the
affected nodes out of date. A label is built when its line is drawn (or read): a
5,000-phase flow builds the few dozen labels on screen, not 8,000, at first paint and
on every batch of events (README, "Large flows"). Node data is the phase id; reference nodes (`↪ id`) carry the
same id so selecting one shows the phase. Phases run inside their parent (a sub-flow's
`a/b`, a grafted `x-b`) start with `⤷` (ASCII `\\_`): under the same tree connector as
the parent's dependents, they must not be taken for one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Self

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text
from textual import events
from textual.geometry import Region, Size
from textual.reactive import Reactive
from textual.strip import Strip
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from tftui import present
from tftui.engine.state import RunState
from tftui.flow.model import Flow, PhaseBase
from tftui.tui.subtree import nested_children, parent_of, state_at
from tftui.tui.tree_layout import TreeItem, build_tree


class PhaseNode(TreeNode[str]):
    """A tree node whose label the tree builds when it is needed (see `DagTree.refresh_phases`)."""

    @property
    def label(self) -> Text:
        tree = self._tree
        if isinstance(tree, DagTree):
            tree.fresh_label(self)
        return self._label

    @label.setter
    def label(self, new_label: str | Text) -> None:
        self.set_label(new_label)


_BLANK = Text()


class DagTree(Tree[str]):
    DEFAULT_CSS = """
    DagTree { background: $surface; }
    """

    # Not Widget's layout reactive: the tree's size is its pane's, so a line that comes or goes
    # (the live sub-line of a streaming answer, a node expanded) needs no layout of the whole
    # screen; the scrollbars follow here, and one that appears or goes asks for the layout it needs.
    virtual_size: Reactive[Size] = Reactive(Size(0, 0))
    _invalidating = False

    def watch_virtual_size(self, size: Size) -> None:
        self._scroll_update(size)

    def _invalidate(self) -> None:
        self._invalidating = True  # Tree's invalidation asks for a layout: the lines changed, not the size
        try:
            super()._invalidate()
        finally:
            self._invalidating = False

    def refresh(self, *regions: Region, repaint: bool = True, layout: bool = False, recompose: bool = False) -> Self:
        return super().refresh(*regions, repaint=repaint, layout=layout and not self._invalidating, recompose=recompose)

    def __init__(self, *, glyphs: present.Glyphs, show_times: bool = True, **kwargs) -> None:
        # set before Tree's constructor: it lays the (empty) tree out, which measures labels
        self._stale_labels: set[int] = set()  # nodes whose label is built when next drawn or read
        self._unmeasured: set[int] = set()  # labels built when marked (_mark), measured when drawn
        self._wider_at = 0  # a drawn line wider than the virtual width: grow it (see _render_line)
        self._ref_ids: set[int] = set()  # nodes that are `↪ id` references to a phase shown elsewhere
        self._phase_types: dict[str, str] = {}
        self._line_styles: dict[tuple[tuple[str, ...], bool, bool], Style] = {}  # see get_component_rich_style
        self.glyphs = glyphs
        super().__init__("flow", **kwargs)
        self.show_root = False
        self.guide_depth = 2
        self.auto_expand = False
        if glyphs is present.ASCII:  # --ascii: Textual's tree guides and expand arrows are Unicode too
            self.ICON_NODE, self.ICON_NODE_EXPANDED = "> ", "v "
            self.LINES = {style: ("  ", "| ", "`-", "+-") for style in Tree.LINES}
        self.show_times = show_times
        self.colours: dict[str, str] = {}
        self.flow: Flow | None = None
        self.state = RunState()
        self.stale: set[str] = set()
        self.breakpoints: set[str] = set()
        self.paused_at: str | None = None
        self.spin = 0
        self.now: Callable[[], float | None] = lambda: None
        self._phase_nodes: dict[str, list[TreeNode[str]]] = {}
        self._specs: dict[str, PhaseBase] = {}  # flow.phase() scans the list: one lookup per label
        self._live_nodes: dict[str, TreeNode[str]] = {}  # phase -> its live sub-line (streamed text)

    # -- building -------------------------------------------------------------
    def set_flow(self, flow: Flow) -> None:
        """The flow whose phases the labels describe, without rebuilding the tree (a saved version
        of the same shape: its changed phases' labels are refreshed with `refresh_phases`)."""
        self.flow = flow
        self._phase_types = {p.id: p.type for p in flow.phases}
        self._specs = {p.id: p for p in flow.phases}

    def load(self, flow: Flow) -> None:
        """(Re)build the tree for a flow. Keeps the cursor on the same phase if it still exists."""
        selected = self.selected_phase()
        self.set_flow(flow)
        self.clear()
        self._phase_nodes = {}
        self._live_nodes = {}
        self._ref_ids.clear()
        self._stale_labels.clear()
        self._unmeasured.clear()
        for item in build_tree(flow):
            self._add(self.root, item)
        self._invalidate()  # once: `TreeNode.add` would invalidate the whole tree per node
        self.root.expand()  # children are created expanded: expand_all would post a message per node
        for pid in list(self._phase_nodes):  # sub-flow subtrees and grafted children seen so far
            self._sync_nested(pid)
        self.refresh_phases([pid for pid in self.state.phases if pid not in self._phase_nodes])
        if selected and selected in self._phase_nodes:
            self.select_phase(selected)
        else:
            self.cursor_line = 0

    def _add(self, parent: TreeNode[str], item: TreeItem) -> None:
        # built the way TreeNode.add builds a node, without its per-node invalidation (load
        # invalidates once); the label is built when the line is first drawn
        node = self._add_node(parent, _BLANK, item.phase_id, expand=bool(item.children))
        node._allow_expand = bool(item.children)
        parent._children.append(node)
        self._stale_labels.add(node._id)
        if item.ref:
            self._ref_ids.add(node.id)
        self._phase_nodes.setdefault(item.phase_id, []).append(node)
        for child in item.children:
            self._add(node, child)

    def process_label(self, label: str | Text) -> Text:
        # a node made for a label built later: nothing to process (Tree splits every label)
        return label if label is _BLANK else super().process_label(label)

    def _add_node(self, parent: TreeNode[str] | None, label: Text, data: str | None,
                  expand: bool = False) -> TreeNode[str]:
        node = PhaseNode(self, parent, self._new_id(), label, data, expanded=expand)
        self._tree_nodes[node._id] = node
        self._updates += 1
        return node

    def is_reference(self, node: TreeNode[str]) -> bool:
        """True for a `↪ id` line: a phase reached twice is shown once, then referenced."""
        return node.id in self._ref_ids

    def get_label_width(self, node: TreeNode[str]) -> int:
        # Tree measures every line this way on each rebuild; the default renders each label.
        # A label not built yet is measured as it reads before a run (lines drawn wider grow
        # the virtual width as they are drawn: _render_line).
        icon = cell_len(self.ICON_NODE) if node._allow_expand else 0
        if node._id not in self._stale_labels:
            return node._label.cell_len + icon
        pid = node.data or ""
        if node.id in self._ref_ids:
            return cell_len(self.glyphs.ref) + 1 + cell_len(pid) + icon
        ptype = self._phase_types.get(pid, "")
        return 3 + cell_len(pid) + (1 + len(ptype) if ptype else 0) + icon

    def get_component_rich_style(self, *names: str, partial: bool = False, default: Style | None = None) -> Style:
        # Textual drops its cache of these at every refresh, a line's too: a label redrawn as a
        # run goes (~10 times a second) worked the tree's five line styles out from the CSS again
        # (~1 ms). They change only with the styles (a theme, focus, hover), which refresh the
        # whole tree (_set_dirty) or restyle it (notify_style_update): the cache goes then.
        key = (names, partial, default is None)
        found = self._line_styles.get(key)
        if found is None:
            found = super().get_component_rich_style(*names, partial=partial, default=default)
            if default is None or found is not default:
                self._line_styles[key] = found
        return found

    def _set_dirty(self, *regions: Region) -> None:
        if not regions:  # the whole tree: styles may have changed (a line's region keeps them)
            self._line_styles.clear()
        super()._set_dirty(*regions)

    def notify_style_update(self) -> None:
        self._line_styles.clear()
        # Tree re-lays out every line on a style change (a theme, a focus change): the lines do
        # not depend on styles, so only the drawn lines are dropped (5,000 phases: ~40 ms a time)
        super(Tree, self).notify_style_update()
        self._line_cache.clear()  # not _clear_line_cache: that drops the laid-out lines too
        self._updates += 1
        self.refresh()

    def _on_resize(self, event: events.Resize) -> None:
        event.prevent_default()  # Tree's own handler re-lays out every line; a size changes none
        self._line_cache.grow(event.size.height)
        self._line_cache.clear()
        self._updates += 1
        self.refresh()

    # -- labels built when drawn ------------------------------------------------
    def fresh_label(self, node: TreeNode[str]) -> None:
        """Build the node's label now if it is out of date."""
        if node._id in self._stale_labels:
            self._stale_labels.discard(node._id)
            if node.data is not None:
                node._label = self.label_for(node.data, ref=self.is_reference(node))

    def _mark(self, nodes: Iterable[TreeNode[str]]) -> None:
        """These nodes' labels are out of date: drop their drawn lines, redraw those on screen.
        A line on screen gets its label now, from the state as the caller shows it (the header
        and the detail are built in the same step): built when drawn, a frame later, it would
        count the events folded meanwhile and say more than they do. Each marked line on screen
        is drawn once anyway, so building it now costs no more; the others wait to be drawn."""
        top = self.scroll_offset.y
        bottom = top + self.size.height
        stale = self._stale_labels
        for node in nodes:
            node._updates += 1  # part of the tree's line-cache key
            stale.add(node._id)
            if top <= node._line < bottom:
                self.fresh_label(node)
                self._unmeasured.add(node._id)
                self._refresh_line(node._line)

    def _render_line(self, y: int, x1: int, x2: int, base_style: Style) -> Strip:
        lines = self._tree_lines
        if 0 <= y < len(lines):
            tree_line = lines[y]
            node = tree_line.node
            if node._id in self._stale_labels or node._id in self._unmeasured:
                self._unmeasured.discard(node._id)
                self.fresh_label(node)
                width = self.get_label_width(node) + tree_line._get_guide_width(self.guide_depth, self.show_root)
                if width > max(self.virtual_size.width, self._wider_at):
                    self._wider_at = width
                    self.call_later(self._grow)
        return super()._render_line(y, x1, x2, base_style)

    def _grow(self) -> None:
        width, self._wider_at = self._wider_at, 0
        if width > self.virtual_size.width:
            self.virtual_size = Size(width, self.virtual_size.height)

    # -- labels ---------------------------------------------------------------
    def label_for(self, phase_id: str, *, ref: bool = False) -> Text:
        phase = state_at(self.state, phase_id)  # top-level, grafted or nested (`a/b`)
        status = present.display_status(phase, stale=phase_id in self.stale)
        colour = self.colours.get(status, "")
        text = Text(no_wrap=True, overflow="ellipsis")
        shown_id = self.glyphs.show_line(phase_id)  # ids are the user's: one line, ASCII under --ascii too
        if ref:
            text.append(f"{self.glyphs.ref} {shown_id}", style="dim")
            return text
        spec = self._specs.get(phase_id)
        if self._spawned(phase_id):  # run inside its parent: not a dependent of it
            text.append(self.glyphs.nested, style="dim")
        marker = " "
        marker_style = ""
        if phase_id == self.paused_at:
            marker, marker_style = self.glyphs.here, "bold"
        elif phase_id in self.breakpoints:
            marker, marker_style = self.glyphs.breakpoint, self.colours.get("breakpoint", "")
        text.append(marker, style=marker_style)
        glyph = self.glyphs.status[status]
        if status == "running" and self.glyphs.spinner:
            glyph = self.glyphs.spinner[self.spin % len(self.glyphs.spinner)]
        text.append(glyph, style=f"bold {colour}".strip())
        text.append(" ")
        text.append(shown_id, style="bold" if status in ("running", "failed", "blocked") else "")
        text.append(f" {self._phase_types.get(phase_id, phase.type if phase else '')}", style="dim")
        look = present.look(status)
        if look.loud:  # BLOCKED: done, yet it stopped the run
            text.append(f" {look.headline}", style=f"bold {colour}".strip())
        elif status == "failed" and spec is not None and spec.optional:
            text.append(" (optional)", style="dim")  # tolerated: dependents still run
        counters = present.counters_text(phase, spec, self.state.paused)
        if counters:
            text.append(f" {counters}", style=colour)
        if self.show_times:
            now = self.now()
            duration = present.phase_duration_text(phase, now, present.paused_s_at(self.state, now))
            if duration:
                text.append(f" {duration}", style="dim")
        usage = present.usage_text(phase.usage if phase else None)
        if usage:
            text.append(f" {usage}", style="dim")
        return text

    def _spawned(self, phase_id: str) -> bool:
        """A sub-flow's phase (`a/b`) or a grafted expand child: not in the flow's own tree."""
        if phase_id in self._phase_types:
            return False
        return "/" in phase_id or parent_of(phase_id, self.state) is not None

    def refresh_phases(self, phase_ids: Iterable[str]) -> None:
        """Set the labels of these phases' nodes (main and references) in place; phases the
        flow does not list (grafted, nested) get a node first, sub-runs their subtree."""
        ids = list(phase_ids)
        new = {pid for pid in ids if pid not in self._phase_nodes and state_at(self.state, pid) is not None}
        if new:  # in the run's order (grafted children appear as they start), nested ids after
            order = {pid: i for i, pid in enumerate(self.state.phases)}
            for pid in sorted(new, key=lambda p: (p.count("/"), order.get(p, len(order)), p)):
                self._ensure_node(pid)
        phase_nodes = self._phase_nodes
        self._mark([node for pid in ids for node in phase_nodes.get(pid, ())])
        for pid in ids:
            self._sync_nested(pid)

    def refresh_all(self) -> None:
        extra = [pid for pid in self.state.phases if pid not in self._phase_nodes]  # grafted children
        self.refresh_phases([*self._phase_nodes, *extra])

    # -- phases the flow does not list (see tftui.tui.subtree) -------------------
    def _sync_nested(self, pid: str) -> None:
        for child in nested_children(self.state, pid):
            if child not in self._phase_nodes:
                self._ensure_node(child)
            self._mark(self._phase_nodes[child])
            self._sync_nested(child)

    def _ensure_node(self, pid: str) -> TreeNode[str]:
        nodes = self._phase_nodes.get(pid)
        if nodes:  # the main node, not a `↪ id` reference
            return next((n for n in nodes if not self.is_reference(n)), nodes[0])
        parent_id = parent_of(pid, self.state)
        parent = self._ensure_node(parent_id) if parent_id else self.root
        # before the parent's `↪ id` references: a phase's own sub-phases come first
        first_ref = next((c for c in parent.children if self.is_reference(c)), None)
        node = parent.add_leaf(_BLANK, data=pid, before=first_ref)
        self._stale_labels.add(node._id)
        self._phase_nodes[pid] = [node]
        if parent is not self.root and not parent.allow_expand:
            parent.allow_expand = True
            parent.expand()
        return node

    # -- the live sub-line: the last words of an answer as it streams in --------
    def set_live(self, phase_id: str, tail: str) -> None:
        """Show `tail` on a line under the phase while its call streams; '' removes the line."""
        node = self._live_nodes.get(phase_id)
        if not tail:
            if node is not None:
                del self._live_nodes[phase_id]
                node.remove()
            return
        label = Text(no_wrap=True, overflow="ellipsis")
        label.append(f"{self.glyphs.live} ", style="dim")
        room = max(10, (self.size.width or 40) - 8)  # the tree's width less its guides: the newest words show
        shown = tail if len(tail) <= room else "…" + tail[-(room - 1):]
        label.append(self.glyphs.show_line(shown), style="italic dim")
        if node is None:
            parent = self._ensure_node(phase_id) if (phase_id in self._phase_nodes or
                                                     state_at(self.state, phase_id) is not None) else None
            if parent is None:
                return
            first = parent.children[0] if parent.children else None
            node = parent.add_leaf(label, data=phase_id, before=first)
            if not parent.is_expanded:
                parent.expand()
            self._live_nodes[phase_id] = node
        else:
            node.set_label(label)

    def live_line(self, phase_id: str) -> str | None:
        node = self._live_nodes.get(phase_id)
        return str(node.label) if node is not None else None

    # -- selection ------------------------------------------------------------
    def selected_phase(self) -> str | None:
        node = self.cursor_node
        return node.data if node is not None else None

    def select_phase(self, phase_id: str) -> None:
        if phase_id in self._phase_nodes or state_at(self.state, phase_id) is not None:
            node = self._ensure_node(phase_id)
            self._tree_lines  # noqa: B018 - lays the lines out now: a node added since has no line yet
            self.move_cursor(node)

    def phase_ids(self) -> list[str]:
        return list(self._phase_nodes)
