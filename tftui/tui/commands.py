"""Command palette (ctrl+p): every verb of the current screen (tftui.verbs), plus theme selection."""

from __future__ import annotations

from functools import partial

from textual.command import DiscoveryHit, Hit, Hits, Provider

from tftui.verbs import GROUPS, Screen, key_for, verbs_for


class VerbCommands(Provider):
    """One palette entry per verb acting on the app's screen; running it runs the bound action."""

    def _entries(self) -> list[tuple[str, str, object]]:
        app = self.app
        keymap = getattr(app, "keymap", {})
        screen: Screen = "replay" if getattr(app, "VERB_SCREEN", "") == "replay" else "debugger"
        entries: list[tuple[str, str, object]] = []
        for verb in verbs_for(screen):
            # Titles are highlighted as markup by the matcher: escape the key's brackets.
            title = f"{verb.label.replace('/', ' / ')}  \\[{key_for(verb, keymap)}]"
            help_text = f"{GROUPS.get(verb.group, verb.group)}: {verb.help}"
            entries.append((title, help_text, partial(app.run_action, verb.action)))
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
