"""`tftui config`: the effective settings and where each one came from."""

from __future__ import annotations

import argparse
import json
import os
import sys
import tomllib
from pathlib import Path
from typing import Any

from tftui.present.terminal import write_raw

HELP = "show the effective configuration and where each value came from"
DESCRIPTION = """\
Show the effective tftui settings and the source of each value.

Settings are layered, later wins:
  default < user file < project file < environment < flags
  user file:     $XDG_CONFIG_HOME/tftui/config.toml (default ~/.config/tftui/config.toml)
  project file:  ./tftui.toml, then tftui.toml next to the flow (--flow)
  environment:   TFTUI_<KEY> with __ between levels, e.g. TFTUI_DEFAULT_PROVIDER=local,
                 TFTUI_UI__THEME=light, TFTUI_PROVIDERS__LOCAL__MODEL=qwen2.5, TFTUI_AGENT_CMD="llm -m x"

Example tftui.toml:
  default_provider = "local"
  [providers.local]
  base_url = "http://127.0.0.1:8080/v1"
  model = "qwen2.5-7b"
  api_key_env = "LOCAL_API_KEY"        # the key itself stays in the environment
  timeout_s = 120
  stream = true
  prices = { input_per_mtok = 0.15, output_per_mtok = 0.60 }
  [agent_cmd]
  argv = ["llm", "-m", "gpt-4o-mini"]
  timeout_s = 600
  [ui]
  theme = "default"                    # see "accepted values" below
  ascii = false
  animations = true
  [keys]                               # remap TUI keys by verb id (the ? screen lists them)
  step = "ctrl+n"

API keys and Authorization/api-key header values are shown masked (sk-…abcd).
Also listed: the agent definitions found (agents/NAME.md next to the flow, then
~/.config/tftui/agents/NAME.md, then the built-ins) and which file each comes from.

Accepted values:
  ui.theme     default, dark, light, tftui-dark, tftui-light, or a Textual theme
               (textual-dark, nord, gruvbox, dracula, tokyo-night, … — a wrong name lists them all)
  ui.ascii, ui.animations, providers.NAME.stream, …prepend_system
               true or false in a file; with --set and in TFTUI_* variables also
               yes/no, on/off, 1/0 (any case)
  keys.VERB    a key such as "x", "ctrl+n", "f5", "shift+tab", "comma", or alternatives "n,s";
               VERB is a verb id (run, step, pause, breakpoint, quit, …; the replay
               screen's own: replay_next, replay_back, replay_to_start, …; `?` lists them)

--set checks the key and the value and refuses (exit 2, nothing shown) an unknown setting,
a wrong type, an unknown theme or verb, a bad key string, or a key another verb already
uses. --set alone only previews; --set … --save writes the values into the user file
(other settings kept; comments in it are not). The TUI saves the theme you pick with `t`.

A remap onto a key another verb keeps (its default, or a remap earlier in the file) on a
screen where both act (the debugger, or the replay screen), or onto
ctrl+c, ctrl+q, ctrl+p, tab or shift+tab is a clash: reported here as an error (exit 2) and in
the TUI's event log at start-up, where the remap is ignored and the verb keeps its default key
(so no key does two things). Swapping keys (run = "n", step = "c") is fine.

An invalid ui/keys value in a file (or TFTUI_* variable) is reported with file, key and
problem: here as an error (exit 2); `tftui FLOW` (event log) and `tftui run` (stderr) ignore
it and carry on with the value below it (in the end the default). An invalid provider or
agent command setting still stops a run. An unknown setting in a file is a warning.

examples:
  tftui config                         the settings, one per line, with their source
  tftui config --json                  the same as JSON (value, source, origin per key)
  tftui config --flow flows/x.json     include the tftui.toml next to that flow
  tftui config --set ui.theme=light    preview a flag override
  tftui config --set keys.step=ctrl+n  check a key remap before putting it in config.toml
  tftui config --set keys.step=f10 --save   check it and write it into the user file

exit codes: 0 ok (warnings included), 2 a config file or value is invalid, or --set refused
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")
    parser.add_argument("--flow", metavar="FLOW", help="also read the tftui.toml next to this flow")
    parser.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                        help="preview a setting as a flag would give it (VALUE read as TOML, else as text); "
                             "checked against the schema, exit 2 when refused; nothing is written without --save")
    parser.add_argument("--save", action="store_true",
                        help="write the --set values into the user file (after the same checks)")


def run(args: argparse.Namespace) -> int:
    from tftui.config import ConfigError, flag_problems, load_config
    from tftui.redaction import (
        is_secret_env_name,
        is_secret_header,
        is_secret_key,
        mask,
        mask_header_value,
        redact,
        register_secret,
    )

    flags: dict[str, Any] = {}
    for item in args.overrides:
        key, sep, raw = item.partition("=")
        key = key.strip()
        if not sep or not key:
            print(f"tftui config: --set expects KEY=VALUE, got {item!r}", file=sys.stderr)
            return 2
        flags[key] = _parse_value(key, raw)
        problems = flag_problems(key, flags[key])
        if problems:
            for problem in problems:
                print(f"tftui config: --set {item} refused: {problem}", file=sys.stderr)
            return 2
    cfg = load_config(args.flow, flags=flags)
    clashes = _key_clashes(cfg)
    for verb, msg, src in clashes:
        if src is not None and src.kind == "flag":  # the --set remap itself takes a used key
            item = next((i for i in args.overrides if i.partition("=")[0].strip() == f"keys.{verb}"), verb)
            print(f"tftui config: --set {item} refused: {msg.split(' — ')[0]}", file=sys.stderr)
            return 2
    errors = [*cfg.errors, *cfg.ignored, *(_where(src) + msg for _, msg, src in clashes)]
    if args.save:
        if not flags:
            print("tftui config: --save writes the --set values: give at least one --set KEY=VALUE", file=sys.stderr)
            return 2
        from tftui.config import save_settings

        target = Path(cfg.user_file)
        not_saved = save_settings(target, flags)
        if not_saved:
            print(f"tftui config: not saved: {not_saved}", file=sys.stderr)
            return 2
        print(f"saved to {target}: " + ", ".join(f"{k} = {v!r}" for k, v in flags.items()), file=sys.stderr)
        cfg = load_config(args.flow)  # what is in effect now, from the file

    keys = _api_keys(cfg)
    secrets = [k["value"] for k in keys.values() if k["value"]]
    for raw in (cfg.get("providers") or {}).values():  # every header value of a provider is a secret
        headers = raw.get("headers") if isinstance(raw, dict) else None
        for value in (headers.values() if isinstance(headers, dict) else ()):
            register_secret(value)
    for name in [*(cfg.get("commands") or {}), None]:  # and every command variable marked secret
        try:
            command = cfg.command(name)
        except ConfigError:  # reported below with the other errors
            continue
        for value in command.secret_values(os.environ) if command is not None else ():
            register_secret(value)
    rows = []
    for key, value, src in cfg.flat():
        # By the setting's name, as each kind of name reads: a header's value (`headers.api-key`),
        # a command's variable (`env.GH_TOKEN`), a key itself (`api_key`). Not every name holding
        # "key": `api_key_env` and `api_key_header` hold the NAME of a variable or a header, which
        # the "api key for" line below shows in clear anyway.
        parent, _, name = key.rpartition(".")
        if parent.endswith(".headers"):
            secret_name = is_secret_header(name)
        elif parent.endswith(".env"):
            secret_name = is_secret_env_name(name)
        else:
            secret_name = is_secret_key(name)
        if secret_name and isinstance(value, str):
            value = mask_header_value(value)
        rows.append((key, redact(value, secrets), src))
    for info in keys.values():
        info["masked"] = mask(info.pop("value")) if info["set"] else None

    from tftui.agents.definitions import AgentLibrary

    agents = {name: {"source": d.source, "path": d.path, "description": d.description}
              for name, d in sorted(AgentLibrary(args.flow).names().items())}

    if args.json:
        doc = {
            "agents": agents,
            "user_file": cfg.user_file,
            "files": cfg.files,
            "settings": {k: {"value": v, "source": s.kind, "origin": s.origin} for k, v, s in rows},
            "api_keys": keys,
            "errors": redact(errors, secrets),
            "warnings": redact(cfg.warnings, secrets),
        }
        write_raw(sys.stdout, json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
    else:
        print(f"user file: {cfg.user_file}" + ("" if cfg.user_file in cfg.files else " (not present)"))
        for path in cfg.files:
            if path != cfg.user_file:
                print(f"project file: {path}")
        print()
        width = max((len(k) for k, _, _ in rows), default=0)
        for key, value, src in rows:
            print(f"{key.ljust(width)} = {_show(value)}    # {src.describe()}")
        if keys:
            print()
        for name, info in keys.items():
            state = info["masked"] if info["set"] else "not set"
            print(f"api key for {name}: ${info['env']} = {state}")
        print()
        for name, info in agents.items():
            print(f"agent {name}: {info['source']} ({info['path']})")
        for warning in cfg.warnings:
            print(f"tftui config: warning: {redact(warning, secrets)}", file=sys.stderr)
    for error in errors:
        print(f"tftui config: error: {redact(error, secrets)}", file=sys.stderr)
    return 2 if errors else 0


def _key_clashes(cfg: Any) -> list[tuple[str, str, Any]]:
    """(verb, message, source) for each `[keys]` remap onto a key another verb (or the app) uses.
    The TUI ignores those remaps (tftui.tui.keymap) and logs the same reason at start-up."""
    from tftui.config_schema import key_clash_message, key_clashes

    remaps = cfg.get("keys") or {}
    if not isinstance(remaps, dict):
        return []
    _, refused = key_clashes(remaps)
    return [(verb, key_clash_message(verb, remaps[verb], why), cfg.source(("keys", verb)))
            for verb, why in refused.items()]


def _where(src: Any) -> str:
    if src is None:
        return ""
    return f"{src.origin}: " if src.kind in ("user", "project") else f"{src.kind} {src.origin}: "


def _api_keys(cfg: Any) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for name, raw in sorted((cfg.get("providers") or {}).items()):
        env_name = raw.get("api_key_env") if isinstance(raw, dict) else None
        if isinstance(env_name, str) and env_name:
            value = os.environ.get(env_name, "")
            out[name] = {"env": env_name, "set": bool(value), "value": value}
    return out


def _parse_value(key: str, raw: str) -> Any:
    """TOML when it parses (`true`, `120`, `["a"]`, `"x"`), else the text; a string setting keeps
    unquoted text as typed (`keys.step=1` is the key "1"), and a bool setting takes
    true/false, yes/no, on/off and 1/0 in any case (as TFTUI_* variables do)."""
    from tftui.config_schema import coerce_env, parse_bool, schema_type

    path = tuple(key.split("."))
    if schema_type(path) == "bool" and parse_bool(raw) is not None:
        return parse_bool(raw)
    try:
        value = tomllib.loads(f"v = {raw}")["v"]
    except tomllib.TOMLDecodeError:
        return coerce_env(path, raw)
    if schema_type(path) == "str" and not isinstance(value, str):
        return raw
    return value


def _show(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)
