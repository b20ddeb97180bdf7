"""Agent definitions: markdown files whose front matter names the agent and whose body is its system prompt.

```
---
name: reviewer
description: Gates and judges work
model: gpt-4o-mini        # optional
tools: [read, grep]       # optional; `a, b` and `- a` lists work too
---
You are a strict reviewer…
```

The front matter is YAML (PyYAML's safe loader), so files written for other tools load as
they are: `description: |` blocks, `- item` lists, comments. A key tftui does not read
(anything but name, description, model, tools) is kept in `meta` and logged as a warning
naming the file and line.

Lookup for agent NAME, first hit wins: `<flow dir>/agents/NAME.md`, then
`$XDG_CONFIG_HOME/tftui/agents/NAME.md` (default `~/.config/tftui/agents/`), then the
built-ins shipped in `tftui/agents/builtin/`. An unknown name falls back to the default
agent (docs/language.md §1.4: `Unknown agent "<name>", falling back to "<fallback>".`, logged once).
"""

from __future__ import annotations

import logging
import os
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from tftui.paths import user_config_dir

log = logging.getLogger(__name__)

BUILTIN_DIR = Path(__file__).with_name("builtin")
DEFAULT_AGENT = "executor"
_NAME_RE = re.compile(r"^[a-z][a-z0-9-]*$")


@dataclass
class AgentDefinition:
    name: str
    system: str  # the body: the agent's system prompt
    description: str = ""
    model: str | None = None
    tools: list[str] = field(default_factory=list)
    path: str | None = None
    source: str = "builtin"  # "project" | "user" | "builtin"
    meta: dict[str, MetaValue] = field(default_factory=dict)  # every front-matter key


MetaValue = str | list[str]
# The front-matter keys tftui reads; any other key is kept in `meta` and warned about.
KNOWN_KEYS = ("name", "description", "model", "tools")


@dataclass
class FrontMatter:
    meta: dict[str, MetaValue]
    body: str
    errors: list[str]
    warnings: list[str] = field(default_factory=list)  # keys tftui does not read, with their lines


def parse_front_matter(text: str) -> FrontMatter:
    """Split `---`-fenced YAML front matter from the body. Never raises.

    The front matter is YAML (PyYAML's safe loader): agent files written for other tools use
    `description: |` blocks, `- item` lists and comments. Problems come back as `line N: …`
    (N counts from the file's first line); a key tftui does not read gets a warning with its
    line, and stays in `meta` as it was written."""
    text = text.lstrip("\ufeff")
    lines = text.splitlines()
    if not lines or lines[0].strip() != "---":
        return FrontMatter({}, text.strip(), [])
    try:
        end = next(i for i in range(1, len(lines)) if lines[i].strip() == "---")
    except StopIteration:
        return FrontMatter({}, text.strip(), ["front matter opened with '---' on line 1 is never closed"])
    body = "\n".join(lines[end + 1:]).strip()
    source = "\n".join(lines[1:end])
    meta, errors, warnings = _yaml_mapping(source, first_line=2)
    return FrontMatter(meta, body, errors, warnings)


def _yaml_mapping(source: str, *, first_line: int) -> tuple[dict[str, MetaValue], list[str], list[str]]:
    """The YAML mapping in `source` (its line 1 is the file's line `first_line`): (meta, errors, warnings)."""
    if _flow_depth(source) > MAX_FLOW_DEPTH:  # PyYAML's scanner is slow and recursive on deep [[[…]]]
        return {}, [f"line {first_line}: the front matter nests [ or {{ more than {MAX_FLOW_DEPTH} deep"], []
    import yaml  # here, not at the top: `tftui FLOW` loads this module before its first frame, reads agents after

    alias = _first_alias(source)
    if alias is not None:  # `&a [*b, *b, …]` nests exponentially: a few hundred bytes become gigabytes
        return {}, [f"line {first_line + alias}: YAML anchors and aliases are not read in agent files"], []
    loader = yaml.SafeLoader(source)
    try:
        node = loader.get_single_node()
        if node is None:
            return {}, [], []
        if not isinstance(node, yaml.MappingNode):
            line = first_line + node.start_mark.line
            shown = source.strip().splitlines()[0] if source.strip() else ""
            return {}, [f"line {line}: expected 'key: value', got {shown!r}"], []
        data = loader.construct_document(node)
    except RecursionError:
        return {}, [f"line {first_line}: the front matter is nested too deeply to read"], []
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {first_line + mark.line}: " if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc)
        # Plain `key: value` lines that YAML refuses (an unquoted `: ` inside a value, common in
        # hand-written descriptions) still read as they always did, with a warning.
        lines_meta, line_errors = _line_mapping(source.splitlines(), first_line)
        if not line_errors:
            return lines_meta, [], [f"{where}not valid YAML ({problem}); read as plain 'key: value' lines "
                                    "— quote the value to silence this"]
        return {}, [f"{where}{problem}"], []
    finally:
        loader.dispose()
    meta: dict[str, MetaValue] = {}
    warnings: list[str] = []
    for key_node, _value in node.value:
        key = key_node.value
        if str(key) not in KNOWN_KEYS:
            warnings.append(f"line {first_line + key_node.start_mark.line}: unknown key '{key}' "
                          f"(tftui reads {', '.join(KNOWN_KEYS)}; the rest is kept and ignored)")
    for key, value in data.items():
        meta[str(key)] = _meta_value(value)
    return meta, [], warnings


def _line_mapping(lines: list[str], first_line: int) -> tuple[dict[str, MetaValue], list[str]]:
    """The plain reading of front matter: `key: value` lines, `[a, b]` lists, `- item` lines."""
    meta: dict[str, MetaValue] = {}
    errors: list[str] = []
    current: str | None = None  # key whose block list (`- item` lines) is being read
    for number, raw in enumerate(lines, start=first_line):
        line = _strip_comment(raw).rstrip()
        if not line.strip():
            continue
        stripped = line.strip()
        if stripped.startswith("- ") or stripped == "-":
            if current is None:
                errors.append(f"line {number}: list item without a key above it")
                continue
            items = meta.get(current)
            meta[current] = (items if isinstance(items, list) else []) + [_unquote(stripped[1:].strip())]
            continue
        key, sep, value = line.partition(":")
        if not sep or not key.strip() or line[:1].isspace():
            errors.append(f"line {number}: expected 'key: value', got {stripped!r}")
            current = None
            continue
        key, value = key.strip(), value.strip()
        current = key if not value else None
        if not value:
            meta[key] = []
        elif value.startswith("[") and value.endswith("]"):
            meta[key] = [_unquote(v.strip()) for v in value[1:-1].split(",") if v.strip()]
        else:
            meta[key] = _unquote(value)
    return meta, errors


def _strip_comment(line: str) -> str:
    # `#` starts a comment only after whitespace and outside quotes (keeps URLs and `C#`).
    quote = ""
    for i, ch in enumerate(line):
        if ch in "\"'" and (not quote or quote == ch):
            quote = "" if quote else ch
        elif ch == "#" and not quote and (i == 0 or line[i - 1].isspace()):
            return line[:i]
    return line


MAX_FLOW_DEPTH = 32  # front matter holds names, descriptions and lists of tools: a few levels at most


def _flow_depth(source: str) -> int:
    """How deep `[`/`{` nest in `source`, quotes ignored (an over-estimate is fine: it only refuses)."""
    depth = deepest = 0
    for ch in source:
        if ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}" and depth:
            depth -= 1
    return deepest


def _first_alias(source: str) -> int | None:
    """The line (0-based) of the first YAML anchor or alias in `source`, else None."""
    import yaml

    try:
        for token in yaml.scan(source, Loader=yaml.SafeLoader):
            if isinstance(token, (yaml.AnchorToken, yaml.AliasToken)):
                return int(token.start_mark.line)
    except (yaml.YAMLError, RecursionError):  # reported by the real parse
        return None
    return None


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    return value


def _meta_value(value: object) -> MetaValue:
    """A front-matter value as tftui keeps it: strings as written, lists of strings, other scalars as text."""
    if value is None:
        return []
    if isinstance(value, list):
        return [str(v) if not isinstance(v, str) else v for v in value if v is not None]
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value
    return str(value)


def _as_list(value: str | list[str] | None) -> list[str]:
    if value is None:
        return []
    if isinstance(value, list):
        return value
    return [v.strip() for v in value.split(",") if v.strip()]


def parse_definition(text: str, *, name: str, path: str | None = None, source: str = "builtin"
                     ) -> tuple[AgentDefinition, list[str]]:
    """An AgentDefinition from markdown text (file name gives `name` when front matter omits it)."""
    fm = parse_front_matter(text)
    errors = [f"{path or name}: {e}" for e in [*fm.errors, *fm.warnings]]
    declared = fm.meta.get("name")
    if isinstance(declared, str) and declared and declared != name:
        errors.append(f"{path or name}: front matter name '{declared}' differs from the file name; '{name}' is used")
    model = fm.meta.get("model")
    description = fm.meta.get("description")
    definition = AgentDefinition(
        name=name,
        system=fm.body,
        description=description if isinstance(description, str) else "",
        model=model if isinstance(model, str) and model else None,
        tools=_as_list(fm.meta.get("tools")),
        path=path,
        source=source,
        meta=fm.meta,
    )
    return definition, errors


class AgentLibrary:
    """Finds agent definitions for one flow; results are cached per name."""

    def __init__(self, flow_path: str | os.PathLike[str] | None = None, *,
                 env: Mapping[str, str] | None = None, default_agent: str = DEFAULT_AGENT) -> None:
        self.search_path: list[tuple[Path, str]] = []
        if flow_path is not None:
            self.search_path.append((Path(flow_path).resolve().parent / "agents", "project"))
        self.search_path.append((user_config_dir(env) / "agents", "user"))
        self.search_path.append((BUILTIN_DIR, "builtin"))
        self.default_agent = default_agent
        self.errors: list[str] = []
        self._cache: dict[str, AgentDefinition | None] = {}
        self._warned: set[str] = set()

    def find(self, name: str) -> AgentDefinition | None:
        """The definition named `name`, or None when no directory has it."""
        if name in self._cache:
            return self._cache[name]
        found: AgentDefinition | None = None
        if _NAME_RE.match(name or ""):  # a name is a file name: never let it walk out of the directory
            for directory, source in self.search_path:
                path = directory / f"{name}.md"
                try:
                    text = path.read_text(encoding="utf-8")
                except (FileNotFoundError, NotADirectoryError):
                    continue
                except (OSError, UnicodeDecodeError) as exc:
                    self.errors.append(f"{path}: cannot read agent definition: {exc}")
                    continue
                found, errors = parse_definition(text, name=name, path=str(path), source=source)
                self.errors.extend(errors)
                for problem in errors:  # once per file: `find` caches by name
                    log.warning("%s", problem)
                break
        self._cache[name] = found
        return found

    def resolve(self, name: str | None) -> AgentDefinition | None:
        """`find`, falling back to the default agent for unknown names (warned once per name)."""
        if not name or name == "default":
            return self.find(self.default_agent)
        found = self.find(name)
        if found is None and name not in self._warned:
            self._warned.add(name)
            log.warning('Unknown agent "%s", falling back to "%s".', name, self.default_agent)
        return found or self.find(self.default_agent)

    def fallback_for(self, name: str | None) -> str | None:
        """The agent that answers for `name` when no definition has that name (the default
        agent), else None: `name` itself (or the default for `default`/no name) answers."""
        if not name or name == "default" or self.find(name) is not None:
            return None
        return self.default_agent

    def names(self) -> dict[str, AgentDefinition]:
        """Every findable agent, by name, with the winning definition for each."""
        out: dict[str, AgentDefinition] = {}
        for directory, _source in self.search_path:
            if not directory.is_dir():
                continue
            for path in sorted(directory.glob("*.md")):
                if path.stem not in out:
                    found = self.find(path.stem)
                    if found is not None:
                        out[path.stem] = found
        return out


_FolderKey = tuple[str, tuple[tuple[str, int, int], ...] | None]
_NAMES_SEEN: dict[tuple[_FolderKey, ...], frozenset[str]] = {}  # each folder's *.md stats -> names
_NAMES_KEPT = 8
_RACY_NS = 2_000_000_000  # a file changed this recently may change again within its mtime's tick


def known_agent_names(flow_path: str | os.PathLike[str] | None, *, env: Mapping[str, str] | None = None) -> frozenset[str]:
    """Every agent name a phase of the flow at `flow_path` can use: what `AgentLibrary.find` finds
    (agents/ beside the flow, the user's folder, the built-ins) plus `default` (docs/linter.md).

    The names are remembered while every folder's `*.md` files keep their names, sizes and
    modification times (one stat per file, far cheaper than parsing them): the debugger's hot
    reload asks on every save, and a file edited in place (a definition that did not parse and
    now does) changes its own time though not its folder's. Nothing is remembered while a file
    was modified in the last 2 s (its next change could fall in the same timestamp tick)."""
    library = AgentLibrary(flow_path, env=env)
    key = tuple((str(directory), _md_stats(directory)) for directory, _source in library.search_path)
    names = _NAMES_SEEN.get(key)
    if names is None:
        names = frozenset({*library.names(), "default"})
        now = time.time_ns()
        if all(now - mtime > _RACY_NS for _, stats in key for _, mtime, _ in stats or ()):
            _NAMES_SEEN[key] = names
            while len(_NAMES_SEEN) > _NAMES_KEPT:
                del _NAMES_SEEN[next(iter(_NAMES_SEEN))]
    return names


def _md_stats(directory: Path) -> tuple[tuple[str, int, int], ...] | None:
    """(name, mtime, size) of each `*.md` file in `directory`, sorted; None when it cannot be listed."""
    try:
        with os.scandir(directory) as entries:
            stats = []
            for entry in entries:
                if entry.name.endswith(".md"):
                    st = entry.stat()
                    stats.append((entry.name, st.st_mtime_ns, st.st_size))
    except OSError:  # no such folder (or not readable): no names from it
        return None
    return tuple(sorted(stats))


def system_prompt_for(request_system: str | None, definition: AgentDefinition | None) -> str | None:
    """The system prompt of a call: the request's own, else its agent definition's body (the
    runners that send one, CLI agents and providers, read it here)."""
    if request_system:
        return request_system
    return definition.system if definition is not None and definition.system else None
