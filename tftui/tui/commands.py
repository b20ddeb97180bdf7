"""Command palette (ctrl+p): every verb of the registry, plus theme selection."""

from __future__ import annotations

from functools import partial

from textual.command import DiscoveryHit, Hit, Hits, Provider

from tftui.tui.actions import VERBS, key_for


class VerbCommands(Provider):
    """One palette entry per verb; running it runs the bound action."""

    def _entries(self) -> list[tuple[str, str, object]]:
        app = self.app
        keymap = getattr(app, "keymap", {})
        entries: list[tuple[str, str, object]] = []
        for verb in VERBS:
            # Titles are highlighted as markup by the matcher: escape the key's brackets.
            title = f"{verb.description.replace('/', ' / ')}  \\[{key_for(verb, keymap)}]"
            entries.append((title, verb.help, partial(app.run_action, verb.action)))
        for name in sorted(getattr(app, "tftui_theme_names", lambda: [])()):
            entries.append((f"Theme: {name}", f"Switch to the {name} theme (saved).", partial(app.set_theme, name)))
        return entries

    async def discover(self) -> Hits:
        for title, help_text, callback in self._entries():
            yield DiscoveryHit(title, callback, help=help_text)  # type: ignore[arg-type]

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for title, help_text, callback in self._entries():
            score = max(matcher.match(title), matcher.match(help_text) * 0.8)
            if score > 0:
                yield Hit(score, matcher.highlight(title), callback, help=help_text)  # type: ignore[arg-type]
