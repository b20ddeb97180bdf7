"""tftui.config: precedence, provenance, env coercion, errors, atomic saving; `tftui config` output."""

from __future__ import annotations

import json
import tomllib

import pytest

from tftui.cli import main as cli_main
from tftui.config import ConfigError, ProviderConfig, load_config, save_settings, user_config_path


@pytest.fixture
def layout(tmp_path):
    """A user config dir, a project dir (cwd) and a flow dir, all empty."""
    xdg = tmp_path / "xdg"
    (xdg / "tftui").mkdir(parents=True)
    cwd = tmp_path / "work"
    cwd.mkdir()
    flows = tmp_path / "work" / "flows"
    flows.mkdir()
    return {"env": {"XDG_CONFIG_HOME": str(xdg), "HOME": str(tmp_path)}, "user": xdg / "tftui" / "config.toml",
            "cwd": cwd, "flow": flows / "f.json"}


def test_defaults_only(layout):
    cfg = load_config(env=layout["env"], cwd=str(layout["cwd"]))
    assert cfg.errors == [] and cfg.files == []
    assert cfg.get("ui.theme") == "default" and cfg.source("ui.theme").kind == "default"
    assert cfg.provider("openai").api_key_env == "OPENAI_API_KEY"


def test_precedence_and_provenance(layout):
    layout["user"].write_text('default_provider = "user-p"\n[ui]\ntheme = "light"\nascii = true\nanimations = false\n'
                              '[providers.local]\nbase_url = "http://u/v1"\nmodel = "um"\n')
    (layout["cwd"] / "tftui.toml").write_text('[ui]\ntheme = "nord"\nascii = false\n')
    (layout["flow"].parent / "tftui.toml").write_text('[ui]\ntheme = "gruvbox"\n[providers.local]\nmodel = "pm"\n')
    env = {**layout["env"], "TFTUI_UI__THEME": "dracula", "TFTUI_PROVIDERS__LOCAL__STREAM": "yes",
           "TFTUI_PROVIDER": "local", "TFTUI_NODE_PATH": "not-a-setting"}
    cfg = load_config(layout["flow"], env=env, cwd=str(layout["cwd"]), flags={"ui.animations": True})
    assert cfg.errors == [] and cfg.warnings == []
    expect = {
        "default_provider": ("local", "env", "TFTUI_PROVIDER"),
        "ui.theme": ("dracula", "env", "TFTUI_UI__THEME"),
        "ui.ascii": (False, "project", str(layout["cwd"] / "tftui.toml")),
        "ui.animations": (True, "flag", "ui.animations"),
        "providers.local.base_url": ("http://u/v1", "user", str(layout["user"])),
        "providers.local.model": ("pm", "project", str(layout["flow"].parent / "tftui.toml")),
        "providers.local.stream": (True, "env", "TFTUI_PROVIDERS__LOCAL__STREAM"),
    }
    for key, (value, kind, origin) in expect.items():
        src = cfg.source(key)
        assert (cfg.get(key), src.kind, src.origin) == (value, kind, origin), key
    assert cfg.files == [str(layout["user"]), str(layout["cwd"] / "tftui.toml"),
                         str(layout["flow"].parent / "tftui.toml")]
    assert cfg.provider("local").stream is True


def test_bad_toml_names_file_and_line(layout):
    (layout["cwd"] / "tftui.toml").write_text('[ui]\ntheme = "a"\nascii = yes\n')
    cfg = load_config(env=layout["env"], cwd=str(layout["cwd"]))
    assert len(cfg.errors) == 1
    assert cfg.errors[0].startswith(f"{layout['cwd'] / 'tftui.toml'}:3:9: invalid TOML: ")
    assert cfg.get("ui.theme") == "default"  # the bad file is skipped as a whole


def test_type_errors_and_unknown_keys(layout):
    layout["user"].write_text('[providers.x]\nbase_url = 3\ntimeout_s = -1\n[ui]\ncolour = "red"\n')
    cfg = load_config(env=layout["env"], cwd=str(layout["cwd"]))
    user = f"user ({layout['user']})"
    assert cfg.errors == [f"providers.x.base_url: expected a string, got 3 (from {user})",
                          f"providers.x.timeout_s: expected a number > 0, got -1 (from {user})"]
    assert cfg.warnings == [f"unknown setting 'ui.colour' (from {user}) is ignored"]
    with pytest.raises(ConfigError, match="providers.x.base_url: expected a string"):
        cfg.provider("x")


def test_agent_cmd_shorthands_and_commands(layout):
    layout["user"].write_text('agent_cmd = "llm -m \'gpt 4\'"\n[commands.claude]\nargv = ["claude", "-p"]\n'
                              'timeout_s = 30\n')
    cfg = load_config(env=layout["env"], cwd=str(layout["cwd"]))
    assert cfg.command().argv == ["llm", "-m", "gpt 4"]
    claude = cfg.command("claude")
    assert (claude.argv, claude.timeout_s) == (["claude", "-p"], 30)
    env_cfg = load_config(env={**layout["env"], "TFTUI_AGENT_CMD": "my-agent --fast"}, cwd=str(layout["cwd"]))
    assert env_cfg.command().argv == ["my-agent", "--fast"]
    assert env_cfg.source("agent_cmd.argv").kind == "env"


def test_prices_flat_and_per_model():
    flat = ProviderConfig(name="p", base_url="u", prices={"input_per_mtok": 1, "output_per_mtok": 4})
    assert flat.price_for("anything") == (1.0, 4.0)
    table = ProviderConfig(name="p", base_url="u", prices={"a": {"input_per_mtok": 2, "output_per_mtok": 3},
                                                           "*": {"input_per_mtok": 9, "output_per_mtok": 9}})
    assert table.price_for("a") == (2.0, 3.0) and table.price_for("b") == (9.0, 9.0)
    assert ProviderConfig(name="p", base_url="u").price_for("a") is None


def test_xdg_config_home_and_home_fallback(tmp_path):
    assert user_config_path({"XDG_CONFIG_HOME": str(tmp_path)}) == tmp_path / "tftui" / "config.toml"
    assert user_config_path({"HOME": str(tmp_path)}) == tmp_path / ".config" / "tftui" / "config.toml"


def test_save_user_setting_round_trip(layout):
    # the one TOML writer (config.save_settings), into the user file
    layout["user"].write_text('[ui]\nascii = true\n')
    path = user_config_path(layout["env"])
    assert save_settings(path, {"ui.theme": "solarized-dark"}) is None
    assert path == layout["user"]
    assert tomllib.loads(path.read_text()) == {"ui": {"ascii": True, "theme": "solarized-dark"}}
    assert [p.name for p in path.parent.iterdir()] == ["config.toml"]  # no temp file left behind
    cfg = load_config(env=layout["env"], cwd=str(layout["cwd"]))
    assert cfg.get("ui.theme") == "solarized-dark" and cfg.source("ui.theme").kind == "user"


def test_save_refuses_to_clobber_a_broken_file(layout):
    layout["user"].write_text("[ui\n")
    problem = save_settings(user_config_path(layout["env"]), {"ui.theme": "x"})
    assert problem is not None and "invalid TOML" in problem
    assert layout["user"].read_text() == "[ui\n"


def test_save_creates_the_directory(tmp_path):
    env = {"XDG_CONFIG_HOME": str(tmp_path / "new")}
    assert save_settings(user_config_path(env), {"keys.step": "n"}) is None
    assert tomllib.loads(user_config_path(env).read_text()) == {"keys": {"step": "n"}}


def _config_output(layout, monkeypatch, capsys, key: str) -> str:
    """`tftui config`'s output in the layout's project, with its environment and LOCAL_KEY=`key`."""
    for name, value in layout["env"].items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("LOCAL_KEY", key)
    monkeypatch.chdir(layout["cwd"])
    assert cli_main(["config"]) == 0
    return capsys.readouterr().out


def test_tftui_config_command_masks_secrets(layout, monkeypatch, capsys):
    key = "sk-live-abcdefghijklmnopqrstuvwx9876"
    header_key = "hk-abcdefghijklmnopqrstu5555"
    layout["user"].write_text(
        '[providers.local]\nbase_url = "http://127.0.0.1:1/v1"\napi_key_env = "LOCAL_KEY"\n'
        f'headers = {{ "api-key" = "{header_key}", "X-Trace" = "visible" }}\n'
    )
    text = _config_output(layout, monkeypatch, capsys, key)
    assert key not in text and header_key not in text
    assert "api key for local: $LOCAL_KEY = …9876" in text
    assert '"visible"' in text and "# user (" in text
    assert cli_main(["config", "--json", "--set", "ui.ascii=true"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert key not in json.dumps(doc) and header_key not in json.dumps(doc)
    assert doc["settings"]["ui.ascii"] == {"value": True, "source": "flag", "origin": "ui.ascii"}
    assert doc["settings"]["providers.local.headers.api-key"]["value"] == "…5555"
    assert doc["api_keys"]["local"] == {"env": "LOCAL_KEY", "set": True, "masked": "…9876"}
    assert doc["agents"]["reviewer"]["source"] == "builtin"


# QA: `providers.openai.api_key_env = "…_KEY"`: a setting holding a variable's or a header's NAME
# was masked because its name has "key" in it, while the "api key for" line names it in clear.
def test_tftui_config_shows_names_in_clear_and_secrets_masked(layout, monkeypatch, capsys):
    key = "sk-live-abcdefghijklmnopqrstuvwx9876"
    layout["user"].write_text(
        '[providers.local]\nbase_url = "http://127.0.0.1:1/v1"\napi_key_env = "LOCAL_KEY"\n'
        'api_key_header = "X-Api-Key"\napi_key = "sk-literal-abcdefghijklmnop4321"\n'
        'headers = { "Authorization" = "Bearer abcdefghijklmnopqrst7777", "api-key" = "short" }\n'
        '[commands.gh]\nargv = ["gh"]\nenv = { GH_TOKEN = "ghp_abcdefghijklmnopqr3333", REGION = "eu-west" }\n'
    )
    (layout["cwd"] / "tftui.toml").write_text('[providers.proj]\nbase_url = "http://127.0.0.1:2/v1"\n'
                                              'api_key_env = "PROJ_API_KEY"\n')
    text = _config_output(layout, monkeypatch, capsys, key)
    setting = {line.split(" = ")[0].strip(): line.split(" = ", 1)[1].split("    #")[0] for line in text.splitlines()
               if " = " in line and not line.startswith("api key for")}
    assert setting["providers.openai.api_key_env"] == '"OPENAI_API_KEY"'
    assert setting["providers.local.api_key_env"] == '"LOCAL_KEY"'
    assert setting["providers.proj.api_key_env"] == '"PROJ_API_KEY"'  # a project provider's too
    assert setting["providers.local.api_key_header"] == '"X-Api-Key"'
    # the secrets stay masked: a key's value, header values, a command's token
    assert setting["providers.local.api_key"] == '"…4321"'
    assert setting["providers.local.headers.Authorization"] == '"Bearer …7777"'
    assert setting["providers.local.headers.api-key"] == '"…"'
    assert setting["commands.gh.env.GH_TOKEN"] == '"…3333"'
    assert setting["commands.gh.env.REGION"] == '"eu-west"'
    assert key not in text and "abcdefghijklmnop" not in text
    assert cli_main(["config", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["settings"]["providers.openai.api_key_env"]["value"] == "OPENAI_API_KEY"
    assert doc["settings"]["providers.local.api_key"]["value"] == "…4321"


def test_tftui_config_exits_2_on_bad_file(layout, monkeypatch, capsys):
    for name, value in layout["env"].items():
        monkeypatch.setenv(name, value)
    monkeypatch.chdir(layout["cwd"])
    (layout["cwd"] / "tftui.toml").write_text("x = \n")
    assert cli_main(["config"]) == 2
    assert "tftui.toml:1:" in capsys.readouterr().err


def test_tftui_config_env_names_the_user_file(tmp_path):
    path = tmp_path / "elsewhere.toml"
    path.write_text('[ui]\ntheme = "nord"\n')
    cfg = load_config(env={"TFTUI_CONFIG": str(path)}, cwd=str(tmp_path))
    assert cfg.get("ui.theme") == "nord" and cfg.source("ui.theme").origin == str(path)
    assert cfg.warnings == [] and cfg.errors == []
