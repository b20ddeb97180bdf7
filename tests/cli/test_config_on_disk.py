"""A config file with an invalid ui/keys value: `tftui config` reports it (file + key + problem)
and exits 2; `tftui run` and `tftui FLOW` report it and carry on with the default."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from tftui.config import load_config

REPO = Path(__file__).resolve().parents[2]
BAD = '[ui]\nascii = "maybe"\ntheme = "drakula"\n[keys]\nstpe = "x"\nstep = "ctl+n"\nrun = "g"\n'


@pytest.fixture
def user_file(tmp_path: Path) -> Path:
    path = tmp_path / "xdg" / "tftui" / "config.toml"
    path.parent.mkdir(parents=True)
    path.write_text(BAD)
    return path


@pytest.fixture
def flow(tmp_path: Path) -> Path:
    """A sample flow with its replies, copied so runs and configs stay in tmp_path."""
    for name in ("conditional_review.json", "conditional_review.replies.json"):
        shutil.copy(REPO / "sample_flows" / name, tmp_path / name)
    return tmp_path / "conditional_review.json"


def expected_problems(path: Path) -> list[str]:
    return [
        f"{path}: ui.ascii: expected true or false, got 'maybe' — ignored (using false from default)",
        f"{path}: ui.theme: unknown theme 'drakula' — did you mean 'dracula'? (accepted: default, dark, light,",
        f"{path}: keys.stpe: unknown verb 'stpe' — did you mean 'step'? (verbs: run, step,",
        f"{path}: keys.step: bad key 'ctl+n': 'ctl' is not a modifier — did you mean 'ctrl'?",
    ]


def test_load_config_drops_invalid_display_values_and_says_why(user_file, tmp_path):
    cfg = load_config(env={"XDG_CONFIG_HOME": str(tmp_path / "xdg")}, cwd=str(tmp_path))
    assert cfg.errors == [] and cfg.warnings == []
    assert [m[: len(e)] for m, e in zip(cfg.ignored, expected_problems(user_file), strict=True)] \
        == expected_problems(user_file)
    assert cfg.ignored[1].endswith('tokyo-night) — ignored (using "default" from default)')
    assert (cfg.get("ui.ascii"), cfg.get("ui.theme"), cfg.get("keys")) == (False, "default", {"run": "g"})
    assert cfg.source("keys.run").origin == str(user_file)


def test_a_rejected_value_falls_back_to_the_layer_below(user_file, tmp_path):
    user_file.write_text('[ui]\ntheme = "nord"\n')
    (tmp_path / "tftui.toml").write_text('[ui]\ntheme = "nope"\n')
    env = {"XDG_CONFIG_HOME": str(tmp_path / "xdg"), "TFTUI_UI__ASCII": "perhaps"}
    cfg = load_config(env=env, cwd=str(tmp_path))
    assert cfg.get("ui.theme") == "nord"
    project, env_var = cfg.ignored  # in layer order: files, then the environment
    assert project.startswith(f"{tmp_path / 'tftui.toml'}: ui.theme: unknown theme 'nope' (accepted: ")
    assert project.endswith(f' — ignored (using "nord" from user ({user_file}))')
    assert env_var == ("env TFTUI_UI__ASCII: ui.ascii: expected true or false, got 'perhaps'"
                       " — ignored (using false from default)")


def test_tftui_config_reports_the_file_key_and_problem(tftui, user_file):
    done = tftui("config")
    assert done.code == 2
    errors = [line for line in done.stderr.splitlines() if line.startswith("tftui config: error: ")]
    assert len(errors) == 4
    for line, start in zip(errors, expected_problems(user_file), strict=True):
        assert line.startswith("tftui config: error: " + start)
    assert re.search(r"^ui\.ascii +=  *false +# default$", done.stdout, re.M)
    assert re.search(r'^ui\.theme +=  *"default" +# default$', done.stdout, re.M)


def test_tftui_config_json_lists_them_as_errors(tftui, user_file):
    done = tftui("config", "--json")
    assert done.code == 2
    doc = done.json()
    assert len(doc["errors"]) == 4 and doc["errors"][0].startswith(f"{user_file}: ui.ascii: ")
    assert doc["settings"]["ui.theme"]["source"] == "default"


def test_unknown_setting_in_a_file_is_a_warning_with_a_suggestion(tftui, user_file):
    user_file.write_text('[ui]\nthme = "nord"\n')
    done = tftui("config")
    assert done.code == 0
    assert (f"tftui config: warning: unknown setting 'ui.thme' (from user ({user_file})) is ignored"
            " — did you mean 'ui.theme'?") in done.stderr


def test_tftui_run_warns_and_finishes(tftui, user_file, flow):
    done = tftui("run", str(flow))
    assert done.code == 0, done.stderr
    warnings = [line for line in done.stderr.splitlines() if line.startswith("tftui run: warning: ")]
    assert len(warnings) == 4
    for line, start in zip(warnings, expected_problems(user_file), strict=True):
        assert line.startswith("tftui run: warning: " + start)
    assert "completed · 2 done, 0 failed, 1 skipped" in done.stderr + done.stdout


def test_tftui_run_still_refuses_a_broken_provider_setting(tftui, user_file, flow):
    # Who answers the model calls is not guessed: a bad provider value stops the run (exit 2).
    user_file.write_text('default_provider = "openai"\n[providers.openai]\ntimeout_s = -1\n')
    done = tftui("run", str(flow))
    assert done.code == 2
    assert "providers.openai.timeout_s: expected a number > 0, got -1" in done.stderr


async def test_tftui_flow_opens_with_defaults_and_logs_the_problems(tftui, user_file, flow, monkeypatch):
    from tftui import present
    from tftui.tui.app import TftuiApp
    from tftui.tui.widgets.event_log import EventLog

    opened: list[TftuiApp] = []
    monkeypatch.setattr(TftuiApp, "run", lambda self, *a, **k: opened.append(self) or 0)
    done = tftui(str(flow), "--no-watch", "--no-journal")
    assert done.code == 0, done.stderr
    (app,) = opened
    assert app.glyphs == present.UNICODE  # ascii = "maybe" did not turn ASCII on
    assert app.settings["keys"] == {"run": "g"} and app.settings["ui"]["theme"] == "default"
    assert [p[: len(e)] for p, e in zip(app.config_problems, expected_problems(user_file), strict=True)] \
        == expected_problems(user_file)

    async with app.run_test(size=(120, 40)) as pilot:

        def notes() -> list[str]:
            return [e.text for e in app.query_one(EventLog).entries]

        def theme_noted() -> bool:
            return any(n.startswith(f"· {user_file}: ui.theme: unknown theme 'drakula'") for n in notes())

        # the start-up notes are logged once the main screen has mounted, frames after the app
        # starts on a loaded machine: wait for them (bounded), then check what they say
        for _ in range(500):
            if theme_noted():
                break
            await pilot.pause(0.01)
        assert theme_noted(), notes()
        assert app.theme == "tftui-dark"
        assert app.keymap == {"tftui.run": "g"}
