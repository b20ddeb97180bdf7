"""Command palette (ctrl+p): every verb of the current screen (tftui.verbs), then theme selection,
then what Textual adds (keys panel, screenshot, maximize). One provider, so tftui's commands
come first in that order (Textual gathers several providers' hits in no fixed order); the
app leaves out Textual's own Theme and Quit, which tftui's verbs already are."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from textual.command import DiscoveryHit, Hit, Hits, Provider

from tftui.verbs import GROUPS, Screen, key_for, verbs_for


class VerbCommands(Provider):
    """One palette entry per verb acting on the app's screen; running it runs the bound action."""

    def _entries(self) -> list[tuple[str, str, Callable[[], object]]]:
        app = self.app
        keymap = getattr(app, "keymap", {})
        screen: Screen = "replay" if getattr(app, "VERB_SCREEN", "") == "replay" else "debugger"
        entries: list[tuple[str, str, Callable[[], object]]] = []
        for verb in verbs_for(screen):
            # Titles are highlighted as markup by the matcher: escape the key's brackets.
            title = f"{verb.label.replace('/', ' / ')}  \\[{key_for(verb, keymap)}]"
            help_text = f"{GROUPS.get(verb.group, verb.group)}: {verb.help}"
            entries.append((title, help_text, partial(self.screen.run_action, verb.action)))
        set_theme = getattr(app, "set_theme", None)
        theme_names = getattr(app, "tftui_theme_names", None)
        if callable(set_theme) and callable(theme_names):
            for name in sorted(theme_names()):
                entries.append((f"Theme: {name}", f"Switch to the {name} theme (saved).", partial(set_theme, name)))
        for command in sorted(app.get_system_commands(self.screen), key=lambda c: c.title):
            if command.discover:
                entries.append((command.title, command.help, command.callback))
        return entries

    async def discover(self) -> Hits:
        for title, help_text, callback in self._entries():
            yield DiscoveryHit(title, callback, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for title, help_text, callback in self._entries():
            score = max(matcher.match(title), matcher.match(help_text) * 0.8)
            if score > 0:
                yield Hit(score, matcher.highlight(title), callback, help=help_text)
