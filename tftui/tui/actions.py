"""The verbs as Textual bindings. The registry itself is `tftui.verbs` (Textual-free, shared
with `tftui config` and the replay screen); this module turns it into `Binding`s.

`VERBS` here are the debugger's verbs (what its help screen, palette and footer list);
`VERBS_BY_ID` / `VERBS_BY_BINDING_ID` cover every verb, the replay screen's included.
"""

from __future__ import annotations

from textual.binding import Binding

from tftui.verbs import VERBS as ALL_VERBS
from tftui.verbs import Screen, Verb, bound_in, key_display, key_for, verbs_for

__all__ = ["VERBS", "VERBS_BY_ID", "VERBS_BY_BINDING_ID", "Verb", "bindings", "key_for"]

VERBS: tuple[Verb, ...] = verbs_for("debugger")
VERBS_BY_ID: dict[str, Verb] = {v.id: v for v in ALL_VERBS}
VERBS_BY_BINDING_ID: dict[str, Verb] = {v.binding_id: v for v in ALL_VERBS}


def bindings(screen: Screen = "debugger") -> list[Binding]:
    """Textual bindings (ids `tftui.<verb>`) for every verb `screen` binds; a verb that is only
    read-only there is bound but left out of the footer."""
    return [
        Binding(
            v.key,
            v.action,
            v.label,
            show=v.footer and v.acts_in(screen),
            id=v.binding_id,
            priority=v.priority,
            key_display=key_display(v.key),
        )
        for v in bound_in(screen)
    ]
