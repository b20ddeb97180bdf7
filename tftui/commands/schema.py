"""`tftui schema`: print the JSON Schema of the flow format, for editors."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from tftui.present.terminal import write_raw

HELP = "print the JSON Schema of the flow format (or, with --trace, of the trace format)"
DESCRIPTION = """\
Print a JSON Schema (draft 2020-12) of the flow file format, generated from tftui's
flow models, with a description on every field. Point your editor at it, e.g. in
VS Code settings: "json.schemas": [{"fileMatch": ["*.flow.json"], "url": "./taskflow.schema.json"}],
or add "$schema": "./taskflow.schema.json" at the top of a flow file.

The schema covers the full form ({name, phases}); `tftui check` also accepts the
shorthand forms ({task}, {tasks}, {chain}) and reports semantic problems the schema
cannot express (cycles, unknown dependencies, per-type requirements).

With --trace, print the JSON Schema of the trace format instead (trace.json,
schemaVersion 1): what `tftui gate` validates every trace against before its integrity
checks, for anyone writing a recorder.

examples:
  tftui schema > taskflow.schema.json
  tftui schema --output taskflow.schema.json
  tftui schema --trace > trace.schema.json

exit codes: 0 written, 2 the output file could not be written
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--output", "-o", metavar="FILE", help="write the schema to FILE instead of stdout")
    parser.add_argument("--trace", action="store_true", help="the trace format's schema (what `tftui gate` reads)")


def flow_json_schema() -> dict[str, Any]:
    """The flow models' JSON Schema, closed the way taskflow's schema is (`tftui.flow.closed`):
    every phase type lists taskflow's whole flat set of phase keys (a key another type uses is
    accepted and ignored), nothing else is allowed, and tftui's own extensions are marked
    `"x-tftui-extension": true`."""
    from tftui.flow import closed
    from tftui.flow.model import PHASE_CLASSES, Flow

    schema = Flow.model_json_schema(by_alias=True, mode="validation")
    out: dict[str, Any] = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "taskflow flow",
    }
    out.update(schema)
    out["title"] = "taskflow flow"
    out["additionalProperties"] = False
    properties = out.setdefault("properties", {})
    for key, what in closed.EXTENSIONS.items():
        properties[key] = {"type": "string", "description": f"tftui extension: {what}", "x-tftui-extension": True}
    defs: dict[str, Any] = out.get("$defs", {})
    for name in ("Branch", "Retry", "Budget", "ArgSpec"):
        if name in defs:
            defs[name]["additionalProperties"] = False
    phase_defs = {t: defs[cls.__name__] for t, cls in PHASE_CLASSES.items() if cls.__name__ in defs}
    owners: dict[str, list[str]] = {}
    for ptype, definition in phase_defs.items():
        for key in definition.get("properties", {}):
            owners.setdefault(key, []).append(ptype)
    cache = {
        "type": "object",
        "additionalProperties": False,
        "description": "Cache policy: {scope?, ttl?, fingerprint?}.",
        "properties": {
            "scope": {"enum": ["run-only", "cross-run", "off"]},
            "ttl": {"type": "string", "description": "Max age of a cross-run hit, e.g. '30m', '6h', '7d'."},
            "fingerprint": {
                "type": "array",
                "items": {"type": "string"},
                "description": "Extra cache-key inputs: " + ", ".join(f"'{p}…'" for p in closed.CACHE_FINGERPRINT_PREFIXES),
            },
        },
    }
    for ptype, definition in phase_defs.items():
        props = definition.setdefault("properties", {})
        for key in closed.PHASE_KEYS:
            if key not in props:
                users = [t for t in owners.get(key, []) if t != ptype]
                borrowed = dict(phase_defs[users[0]]["properties"][key]) if users else {}
                borrowed["description"] = (
                    f"[{'/'.join(users)}] accepted on every phase, ignored on {ptype} phases. "
                    + str(borrowed.get("description", ""))
                ).strip()
                props[key] = borrowed
        props["cache"] = cache
        props["score"] = score_schema()
        props["thinking"] = {**props.get("thinking", {}), "enum": list(closed.THINKING_LEVELS)}
        definition["additionalProperties"] = False
    if "ArgSpec" in defs:
        _typed_args(defs["ArgSpec"])
    return out


def score_schema() -> dict[str, Any]:
    """A gate's `score` block, closed as its shape check is (`tftui.flow.score_shape`); the one
    tftui extension there, `code-compiles` with `language: "python"`, is marked."""
    from tftui.flow import score_shape

    field_schemas: dict[str, dict[str, Any]] = {
        "type": {"enum": list(score_shape.SCORER_TYPES)},
        "name": {"type": "string"},
        "value": {"type": "string"},
        "pattern": {"type": "string", "description": "A JavaScript regular expression (searched, not anchored)."},
        "negate": {"type": "boolean"},
        "schema": {"type": "object", "description": "An output contract {type, properties, required, items, enum}."},
        "min": {"type": "number", "minimum": 0},
        "max": {"type": "number", "minimum": 0},
        "language": {
            "enum": list(score_shape.LANGUAGES),
            "description": "javascript and typescript as in taskflow; python is a tftui extension.",
            "x-tftui-extension": ["python"],
        },
    }
    scorers = []
    for kind, fields in score_shape.ALLOWED_FIELDS.items():
        props = {key: dict(field_schemas[key]) for key in fields}
        props["type"] = {"const": kind}
        scorers.append({"type": "object", "additionalProperties": False, "required": ["type"], "properties": props})
    return {
        "type": "object",
        "additionalProperties": False,
        "required": ["scorers"],
        "description": "[gate] Deterministic scorers with an optional judge.",
        "properties": {
            "target": {"type": "string", "description": "What is scored (default \"{previous.output}\")."},
            "scorers": {"type": "array", "minItems": 1, "items": {"oneOf": scorers}},
            "combine": {"enum": list(score_shape.COMBINE_MODES)},
            "weights": {"type": "array", "items": {"type": "number", "exclusiveMinimum": 0}},
            "threshold": {"type": "number", "exclusiveMinimum": 0, "maximum": 1},
            "judge": {
                "type": "object",
                "additionalProperties": False,
                "required": ["task"],
                "properties": {"agent": {"type": "string"}, "task": {"type": "string", "minLength": 1}},
            },
        },
    }


def _typed_args(spec: dict[str, Any]) -> None:
    """Typed args as taskflow checks them at invocation (docs/language.md §1.3)."""
    from tftui.flow import closed

    props = spec.setdefault("properties", {})
    props["type"] = {"enum": list(closed.ARG_TYPES),
                     "description": "The arg's type; an invocation value of another type is refused."}
    for key, text in (("values", "The allowed values of an enum arg."),
                      ("minimum", "The smallest value of a number arg."),
                      ("maximum", "The largest value of a number arg.")):
        if key in props:
            props[key] = {**props[key], "description": text}


def run(args: argparse.Namespace) -> int:
    if args.trace:
        from tftui.trace.integrity import trace_schema

        schema = trace_schema()
    else:
        schema = flow_json_schema()
    text = json.dumps(schema, indent=2, ensure_ascii=False) + "\n"
    if args.output:
        try:
            Path(args.output).write_text(text, encoding="utf-8")
        except OSError as exc:
            print(f"tftui schema: cannot write {args.output}: {exc.strerror or exc}", file=sys.stderr)
            return 2
        print(f"wrote {args.output}", file=sys.stderr)
        return 0
    write_raw(sys.stdout, text)
    return 0
