"""The built-in colour themes (`*.toml`), installed as the data package `tftui.themes`.

The folder sits at the top of the repository so theme authors find it; pyproject.toml maps the
package `tftui.themes` onto it (`package-dir`), so a wheel installs it as `tftui/themes/` and an
editable install finds it here. The loader is `tftui/tui/themes.py`; the theme format is described
at the top of each file.
"""
