"""What a wheel installs: every package of tftui/, and the built-in themes from the top-level themes/.

pyproject.toml lists the packages by hand (the themes package lives outside tftui/), so a new package
directory that is not listed would be missing from a wheel while every test of the editable install
still passed. These tests read the repository, not the installation.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from tftui.tui.themes import load_builtin_themes

ROOT = Path(__file__).resolve().parents[1]


def _setuptools() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]


def _package_dirs() -> set[str]:
    """Every directory under tftui/ that holds files (code or data), by dotted name."""
    found: set[str] = set()
    for path in (ROOT / "tftui").rglob("*"):
        if path.is_file() and "__pycache__" not in path.parts:
            found.add(".".join(path.parent.relative_to(ROOT).parts))
    return found


def test_every_package_under_tftui_is_listed_for_the_wheel():
    listed = set(_setuptools()["packages"])
    missing = sorted(_package_dirs() - listed)
    assert missing == [], f"add to [tool.setuptools] packages in pyproject.toml: {missing}"


def test_every_listed_package_exists_in_the_repository():
    setuptools = _setuptools()
    mapped = setuptools.get("package-dir", {})
    for name in setuptools["packages"]:
        where = ROOT / mapped[name] if name in mapped else ROOT.joinpath(*name.split("."))
        assert where.is_dir(), f"{name}: no folder {where.relative_to(ROOT)}"
    assert (ROOT / mapped["tftui.themes"] / "__init__.py").is_file()  # an editable install needs it


def test_builtin_themes_come_from_the_top_level_themes_folder():
    assert not (ROOT / "tftui" / "themes").exists()
    assert _setuptools()["package-dir"]["tftui.themes"] == "themes"
    files = sorted(p.stem for p in (ROOT / "themes").glob("*.toml"))
    assert files, "themes/ holds no theme file"
    themes, problems = load_builtin_themes()
    assert problems == []
    assert sorted(t.name for t in themes) == files


def test_every_package_data_pattern_names_files_in_the_repository():
    """A pattern that matches nothing installs nothing, silently: the wheel lacked `py.typed`, the
    marker that tells type checkers the package is typed (mypy passes on tftui/), while
    pyproject.toml listed it."""
    setuptools = _setuptools()
    mapped = setuptools.get("package-dir", {})
    empty = []
    for package, patterns in setuptools["package-data"].items():
        folder = ROOT / mapped[package] if package in mapped else ROOT.joinpath(*package.split("."))
        empty += [f"{package}: {pattern}" for pattern in patterns if not any(folder.glob(pattern))]
    assert empty == []
