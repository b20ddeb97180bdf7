"""Settings: defaults < user file < project file(s) < env `TFTUI_*` < flags.

Files are TOML, read with `tomllib`:
- user:    `$XDG_CONFIG_HOME/tftui/config.toml` (default `~/.config/tftui/config.toml`;
           `TFTUI_CONFIG=/path/file.toml` names another file)
- project: `tftui.toml` in the current directory, then next to the flow (the flow's wins)

Environment: `TFTUI_<PATH>` with `__` between levels, e.g. `TFTUI_DEFAULT_PROVIDER=local`,
`TFTUI_UI__THEME=light`, `TFTUI_PROVIDERS__LOCAL__MODEL=qwen2.5`, `TFTUI_AGENT_CMD="llm -m x"`
(`TFTUI_PROVIDER` is an alias of `TFTUI_DEFAULT_PROVIDER`). Unrelated `TFTUI_*` variables are ignored.

Every effective leaf value remembers where it came from (`Config.source(path)`), which is what
`tftui config` prints. Bad files never raise here: they land in `Config.errors` with file, line
and message, and the file is skipped. An invalid display setting (`ui.*`, `keys.*`: wrong type,
unknown theme or verb, bad key string) is dropped from its layer and noted in `Config.ignored`
(file + key + problem), so the layer below (in the end the default) applies and runs go on.
"""

from __future__ import annotations

import copy
import json
import os
import re
import shlex
import tempfile
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tftui.config_schema import (
    Path_,
    coerce_env,
    drop_invalid,
    env_path,
    is_open,
    schema_type,
    setting_problems,
    type_problem,
    unknown_setting_hint,
)
from tftui.flow.cwd_opt_in import CWD_BRIDGE_SETTING
from tftui.paths import user_config_dir

SOURCE_KINDS = ("default", "user", "project", "env", "flag")
# Settings that only change how the TUI looks and which keys it binds: an invalid value there is
# reported and ignored (the lower layer's value applies) instead of stopping a run.
DISPLAY_ROOTS = ("ui", "keys")

DEFAULTS: dict[str, Any] = {
    "default_provider": "",
    "providers": {
        # Presets for common OpenAI-compatible hosts. No prices: cost stays unknown until configured.
        "openai": {"base_url": "https://api.openai.com/v1", "model": "gpt-4o-mini", "api_key_env": "OPENAI_API_KEY"},
        "ollama": {"base_url": "http://127.0.0.1:11434/v1", "model": "llama3.2"},
        "vllm": {"base_url": "http://127.0.0.1:8000/v1", "model": "default"},
        "llamacpp": {"base_url": "http://127.0.0.1:8080/v1", "model": "default"},
    },
    "ui": {"theme": "default", "ascii": False, "animations": True},
    "keys": {},
}

PROVIDER_DEFAULT_TIMEOUT_S = 120.0
COMMAND_DEFAULT_TIMEOUT_S = 600.0

class ConfigError(Exception):
    """A configuration problem a command reports to the user (exit 2)."""


@dataclass(frozen=True)
class Source:
    kind: str  # one of SOURCE_KINDS
    origin: str = ""  # file path, env var name or flag name

    def describe(self) -> str:
        return f"{self.kind} ({self.origin})" if self.origin else self.kind


@dataclass
class ProviderConfig:
    name: str
    base_url: str
    model: str = ""
    api_key_env: str = ""
    api_key_header: str = "Authorization"  # "Authorization" sends `Bearer KEY`; any other name sends KEY raw
    headers: dict[str, str] = field(default_factory=dict)
    timeout_s: float = PROVIDER_DEFAULT_TIMEOUT_S
    prices: dict[str, Any] = field(default_factory=dict)
    stream: bool = False
    params: dict[str, Any] = field(default_factory=dict)  # extra body fields (temperature, …)

    def api_key(self, env: Mapping[str, str] | None = None) -> str | None:
        if not self.api_key_env:
            return None
        value = (os.environ if env is None else env).get(self.api_key_env, "")
        return value or None

    def price_for(self, model: str) -> tuple[float, float] | None:
        """USD per million (input, output) tokens for `model`, or None when unknown."""
        table: Any = self.prices
        if not ("input_per_mtok" in table or "output_per_mtok" in table):
            table = self.prices.get(model, self.prices.get("*"))
        if not isinstance(table, Mapping):
            return None
        given = (table.get("input_per_mtok"), table.get("output_per_mtok"))
        prices = [float(v) for v in given if isinstance(v, (int, float)) and not isinstance(v, bool)]
        if len(prices) != 2:
            return None
        return prices[0], prices[1]


@dataclass
class CommandConfig:
    name: str
    argv: list[str]
    timeout_s: float = COMMAND_DEFAULT_TIMEOUT_S
    prepend_system: bool = False
    env: dict[str, str] = field(default_factory=dict)  # added to the command's environment
    secret_env: list[str] = field(default_factory=list)  # its variables that are secrets (masked everywhere)

    def secret_values(self, environ: Mapping[str, str]) -> list[str]:
        """The values of the variables `secret_env` names, from `env` or else `environ`."""
        out = []
        for name in self.secret_env:
            value = self.env.get(name, environ.get(name))
            if value:
                out.append(value)
        return out


@dataclass
class Config:
    data: dict[str, Any]
    sources: dict[Path_, Source]
    files: list[str] = field(default_factory=list)  # files actually read, in precedence order
    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)  # invalid ui/keys values, dropped (see module doc)
    user_file: str = ""

    def get(self, path: str | Path_, default: Any = None) -> Any:
        node: Any = self.data
        for part in _split(path):
            if not isinstance(node, dict) or part not in node:
                return default
            node = node[part]
        return node

    def source(self, path: str | Path_) -> Source | None:
        return self.sources.get(_split(path))

    def flat(self) -> list[tuple[str, Any, Source]]:
        """Every leaf as (dotted key, value, source), sorted by key."""
        rows = [(".".join(p), self.get(p), s) for p, s in self.sources.items()]
        return sorted(rows, key=lambda r: r[0])

    @property
    def default_provider(self) -> str:
        return str(self.get("default_provider") or "")

    def provider_names(self) -> list[str]:
        return sorted(self.get("providers") or {})

    def provider(self, name: str) -> ProviderConfig:
        raw = (self.get("providers") or {}).get(name)
        if not isinstance(raw, dict):
            known = ", ".join(self.provider_names()) or "none"
            raise ConfigError(f"unknown provider '{name}' (configured: {known}); add [providers.{name}] to tftui.toml")
        self._raise_errors_under(f"providers.{name}")
        if not raw.get("base_url"):
            raise ConfigError(f"provider '{name}' has no base_url; set providers.{name}.base_url")
        return ProviderConfig(
            name=name,
            base_url=str(raw["base_url"]),
            model=str(raw.get("model") or ""),
            api_key_env=str(raw.get("api_key_env") or ""),
            api_key_header=str(raw.get("api_key_header") or "Authorization"),
            headers=dict(raw.get("headers") or {}),
            timeout_s=float(raw.get("timeout_s") or PROVIDER_DEFAULT_TIMEOUT_S),
            prices=dict(raw.get("prices") or {}),
            stream=bool(raw.get("stream", False)),
            params=dict(raw.get("params") or {}),
        )

    def command(self, name: str | None = None) -> CommandConfig | None:
        """`[commands.NAME]` when named, else `[agent_cmd]`; None when not configured."""
        raw = (self.get("commands") or {}).get(name) if name else self.get("agent_cmd")
        if not isinstance(raw, dict) or not raw.get("argv"):
            return None
        self._raise_errors_under(f"commands.{name}" if name else "agent_cmd")
        env = raw.get("env")
        return CommandConfig(
            name=name or "agent_cmd",
            argv=list(raw["argv"]),
            timeout_s=float(raw.get("timeout_s") or COMMAND_DEFAULT_TIMEOUT_S),
            prepend_system=bool(raw.get("prepend_system", False)),
            env={str(k): str(v) for k, v in env.items()} if isinstance(env, dict) else {},
            secret_env=[str(n) for n in raw.get("secret_env") or []],
        )

    def _raise_errors_under(self, prefix: str) -> None:
        errors = [e for e in self.errors if e.startswith((prefix + ".", prefix + ":"))]
        if errors:
            raise ConfigError("; ".join(errors))


# ── loading ────────────────────────────────────────────────────────────────────────────


def save_settings(path: Path, settings: Mapping[str, Any]) -> str | None:
    """The one TOML writer: set dotted `settings` (`keys.step` -> "f10") in the file at `path`,
    keeping its other values. The file (and its directory) is created if missing and replaced
    atomically (temp file in the same directory, fsync, rename). A file that cannot be read or
    parsed is never overwritten. Returns a problem, or None. Comments in the file are not kept
    (tomli-w writes data)."""
    import tomli_w

    errors: list[str] = []
    data = _read_toml(path, errors)
    if errors:
        return errors[0] + " — fix or remove it before tftui can save settings there"
    data = data or {}
    for dotted, value in settings.items():
        *parents, leaf = dotted.split(".")
        node = data
        for part in parents:
            child = node.get(part)
            if not isinstance(child, dict):
                child = node[part] = {}
            node = child
        node[leaf] = value
    tmp = ""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        with os.fdopen(fd, "wb") as fh:
            tomli_w.dump(data, fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except OSError as exc:
        if tmp:
            Path(tmp).unlink(missing_ok=True)
        return f"{path}: cannot write ({exc.strerror or exc})"
    return None


def cwd_bridge_allowed(cfg: Config, flag: bool = False) -> bool:
    """The cwd-bridge opt-in (docs/differences.md §5.2): the flag, or `run.allow_cwd_bridge = true` set
    by the person running the flow (user config, a TFTUI_ variable, `--set`). A project's `tftui.toml`
    does not count: a flow's own folder must not be able to opt itself in."""
    if flag:
        return True
    source = cfg.source(CWD_BRIDGE_SETTING)
    return cfg.get(CWD_BRIDGE_SETTING) is True and source is not None and source.kind in ("user", "env", "flag")


def user_config_path(env: Mapping[str, str] | None = None) -> Path:
    """`$TFTUI_CONFIG` when set (an explicit file), else `<user_config_dir>/config.toml`."""
    env = os.environ if env is None else env
    explicit = env.get("TFTUI_CONFIG")
    return Path(explicit) if explicit else user_config_dir(env) / "config.toml"


def config_path() -> Path:
    """The user config file (what the TUI writes preferences to)."""
    return user_config_path()


def project_config_paths(flow_path: str | os.PathLike[str] | None = None, cwd: str | None = None) -> list[Path]:
    """`tftui.toml` in cwd, then next to the flow (later wins); each listed once."""
    paths = [Path(cwd or os.getcwd()) / "tftui.toml"]
    if flow_path is not None:
        paths.append(Path(flow_path).resolve().parent / "tftui.toml")
    seen: list[Path] = []
    for p in paths:
        if p.resolve() not in [s.resolve() for s in seen]:
            seen.append(p)
    return seen


def load_config(
    flow_path: str | os.PathLike[str] | None = None,
    *,
    flags: Mapping[str, Any] | None = None,
    env: Mapping[str, str] | None = None,
    cwd: str | None = None,
    user_file: Path | None = None,
) -> Config:
    """The effective settings. `flags` maps dotted keys to values given on the command line;
    `user_file` replaces the user file's usual place (user_config_path)."""
    env = os.environ if env is None else env
    data: dict[str, Any] = {}
    sources: dict[Path_, Source] = {}
    user = user_file if user_file is not None else user_config_path(env)
    cfg = Config(data=data, sources=sources, user_file=str(user))
    _merge(data, sources, copy.deepcopy(DEFAULTS), Source("default"))
    dropped: list[tuple[Path_, Source, str]] = []

    def layer(tree: dict[str, Any], source: Source) -> None:
        kept, problems = drop_invalid(_normalize(tree), DISPLAY_ROOTS)
        dropped.extend((path, source, problem) for path, problem in problems)
        _merge(data, sources, kept, source)

    layers: list[tuple[Path, str]] = [(user, "user")]
    layers += [(p, "project") for p in project_config_paths(flow_path, cwd)]
    for path, kind in layers:
        parsed = _read_toml(path, cfg.errors)
        if parsed is not None:
            cfg.files.append(str(path))
            layer(parsed, Source(kind, str(path)))

    for name in sorted(env):
        key_path = env_path(name)
        if key_path is None:
            continue
        layer(_nest(key_path, coerce_env(key_path, env[name])), Source("env", name))

    for key, value in (flags or {}).items():
        if value is not None:
            layer(_nest(_split(key), value), Source("flag", key))

    cfg.ignored = [_ignored_message(cfg, *item) for item in dropped]
    _validate(cfg)
    return cfg


def display_settings(
    user_file: Path | None = None, flow_path: str | os.PathLike[str] | None = None
) -> tuple[dict[str, Any], list[str]]:
    """The `ui` and `keys` tables in effect (load_config, every layer) and the problems to show
    beside them: for a TUI that was not handed its settings (`tftui replay`, tests)."""
    cfg = load_config(flow_path, user_file=user_file)
    tables = {root: dict(cfg.get(root) or {}) for root in DISPLAY_ROOTS}
    return tables, [*cfg.errors, *cfg.ignored, *cfg.warnings]


def _ignored_message(cfg: Config, path: Path_, source: Source, problem: str) -> str:
    """`<file>: ui.theme: unknown theme 'x' (…) — ignored (using "default" from default)`."""
    where = source.origin if source.kind in ("user", "project") else f"{source.kind} {source.origin}"
    used = cfg.source(path)
    if used is None:
        return f"{where}: {'.'.join(path)}: {problem} — ignored"
    shown = json.dumps(cfg.get(path), ensure_ascii=False)
    return f"{where}: {'.'.join(path)}: {problem} — ignored (using {shown} from {used.describe()})"


def _read_toml(path: Path, errors: list[str]) -> dict[str, Any] | None:
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        errors.append(f"{path}: cannot read config file: {exc.strerror or exc}")
        return None
    try:
        return tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        errors.append(f"{path}: config file is not UTF-8 (byte {exc.start})")
    except tomllib.TOMLDecodeError as exc:
        errors.append(_toml_error(path, exc))
    return None


def _toml_error(path: Path, exc: tomllib.TOMLDecodeError) -> str:
    # Python 3.11's TOMLDecodeError has no lineno attribute; the position is in the message.
    msg = str(exc)
    m = re.search(r"\s*\(at line (\d+), column (\d+)\)\s*$", msg)
    if m:
        return f"{path}:{m.group(1)}:{m.group(2)}: invalid TOML: {msg[: m.start()]}"
    m = re.search(r"\s*\(at end of document\)\s*$", msg)
    if m:
        return f"{path}: invalid TOML at end of file: {msg[: m.start()]}"
    return f"{path}: invalid TOML: {msg}"


def _split(path: str | Path_) -> Path_:
    return tuple(path.split(".")) if isinstance(path, str) else tuple(path)


def _nest(path: Path_, value: Any) -> dict[str, Any]:
    node: Any = value
    for part in reversed(path):
        node = {part: node}
    return node


def _normalize(tree: dict[str, Any]) -> dict[str, Any]:
    """Accept `agent_cmd = "llm -m x"` / `agent_cmd = [...]` as shorthands for `{argv = [...]}`."""
    tree = dict(tree)
    if "agent_cmd" in tree:
        tree["agent_cmd"] = _command_table(tree["agent_cmd"])
    if isinstance(tree.get("commands"), dict):
        tree["commands"] = {k: _command_table(v) for k, v in tree["commands"].items()}
    return tree


def _command_table(value: Any) -> Any:
    if isinstance(value, (str, list)):
        value = {"argv": value}
    if isinstance(value, dict) and isinstance(value.get("argv"), str):
        try:
            value = {**value, "argv": shlex.split(value["argv"])}
        except ValueError:
            pass  # left as a string: validation reports it
    return value


def _merge(dst: dict[str, Any], sources: dict[Path_, Source], src: Mapping[str, Any], source: Source,
           prefix: Path_ = ()) -> None:
    for key, value in src.items():
        path = prefix + (str(key),)
        if isinstance(value, dict) and not is_open(path):
            if not isinstance(dst.get(key), dict):
                _drop_sources(sources, path)
                dst[key] = {}
            if not value:
                sources.setdefault(path, source)  # an explicitly empty table still shows up
            elif sources.get(path) is not None:
                del sources[path]  # it has entries now: they show up instead of the empty table
            _merge(dst[key], sources, value, source, path)
            continue
        _drop_sources(sources, path)
        dst[key] = copy.deepcopy(value)
        sources[path] = source


def _drop_sources(sources: dict[Path_, Source], path: Path_) -> None:
    for p in [p for p in sources if p[: len(path)] == path]:
        del sources[p]


def flag_problems(key: str, value: Any) -> list[str]:
    """What is wrong with setting dotted `key` to `value` (`tftui config --set`): unknown
    settings (with a "did you mean"), wrong types, unknown themes/verbs, bad key strings."""
    path = _split(key)
    if not all(part.strip() for part in path):
        return [f"'{key}' is not a setting name (dotted, e.g. ui.theme)"]
    return setting_problems(_normalize(_nest(path, value)))


def _validate(cfg: Config) -> None:
    def where(path: Path_) -> str:
        src = cfg.sources.get(path) or next((s for p, s in cfg.sources.items() if p[: len(path)] == path), None)
        return f" (from {src.describe()})" if src else ""

    def walk(node: Any, path: Path_) -> None:
        kind = schema_type(path)
        if kind is None:
            cfg.warnings.append(f"unknown setting '{'.'.join(path)}'{where(path)} is ignored"
                                + unknown_setting_hint(path))
            return
        problem = type_problem(kind, node)
        if problem:
            cfg.errors.append(f"{'.'.join(path)}: {problem}, got {node!r}{where(path)}")
            return
        if isinstance(node, dict) and not is_open(path):
            for key, value in node.items():
                walk(value, path + (str(key),))

    for key, value in cfg.data.items():
        walk(value, (key,))


def apply_limits(cfg: Config) -> None:
    """Make the `[limits]` settings take effect for this process (docs/trust.md §3)."""
    from tftui.lang.jsregex import DEFAULT_BUDGET_S, set_default_budget

    ms = cfg.get("limits.regex_budget_ms")
    seconds = ms / 1000 if isinstance(ms, (int, float)) and not isinstance(ms, bool) else None
    source = cfg.source("limits.regex_budget_ms")
    if seconds is not None and seconds > DEFAULT_BUDGET_S and (source is None or source.kind not in ("user", "env", "flag")):
        seconds = None  # a project's tftui.toml may tighten the budget, never loosen it (as the cwd-bridge opt-in)
    set_default_budget(seconds)
