"""The terminal debugger (Textual). Nothing outside `tftui.tui` and `tftui.commands.open_flow` imports it."""
