#!/usr/bin/env python3
"""Rewrite citations of the outside specification in code comments to the repo's own docs/.

    python tools/cite_docs.py            # dry run: print every change, touch nothing
    python tools/cite_docs.py --write    # apply the changes
    python tools/cite_docs.py --check    # exit 1 while a `SPEC §` / `DESIGN §` citation remains

Only comments and docstrings (and other string statements that stand alone) are rewritten;
code, including string literals a program prints, is never touched. Citations left inside
such literals are listed so a person can decide.

What is rewritten:
- `SPEC §6.5` and bare `§6.5` (in tftui/ a bare `§` number is always a SPEC section) become
  `docs/gates.md §5`, following MAPPING (with OVERRIDES where one SPEC section is covered by
  several pages); lists and ranges to one page are merged: `docs/language.md §1.4, §1.6`.
- `DESIGN §N` becomes a docs citation where the text describes behaviour a user relies on
  (node paths, debugger pause points), and is dropped where it only described architecture the
  code itself shows; other mentions of the outside documents ("SPEC's message", "seed 000")
  are reworded (PHRASE_RULES).

Every target is checked against the headings of docs/ before anything is written.
"""

from __future__ import annotations

import argparse
import ast
import difflib
import io
import re
import sys
import tokenize
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"

# SPEC section -> "page.md §N" (or "page.md" for a whole page). Every section of SPEC is listed,
# cited or not, so a citation added later is covered too.
MAPPING: dict[str, str] = {
    # 1 Flow file -> language.md §1
    "1": "language.md §1",
    "1.1": "language.md §1.1",
    "1.2": "language.md §1.2",
    "1.3": "language.md §1.3",
    "1.4": "language.md §1.4",
    "1.5": "language.md §1.5",
    "1.6": "language.md §1.6",
    # 2 Phase model -> language.md §2
    "2": "language.md §2",
    "2.1": "language.md §2.1",
    "2.2": "language.md §2.2",
    "2.3": "language.md §2.3",
    "2.4": "language.md §2.4",
    # 3 Scheduling and statuses -> scheduling.md
    "3": "scheduling.md",
    "3.1": "scheduling.md §1",
    "3.2": "scheduling.md §2.1",
    "3.3": "scheduling.md §2.2",
    "3.4": "scheduling.md §3",
    "3.5": "scheduling.md §4",
    "3.6": "scheduling.md §5",
    # 4 Interpolation -> language.md §3
    "4": "language.md §3",
    "4.1": "language.md §3.1",
    "4.2": "language.md §3.2",
    "4.3": "language.md §3.3",
    "4.4": "language.md §3.4",
    "4.5": "language.md §3.5",
    "4.6": "language.md §3.6",
    "4.7": "language.md §3.7",
    "4.8": "language.md §3.8",
    # 5 Condition language -> language.md §4
    "5": "language.md §4",
    "5.1": "language.md §4.1",
    "5.2": "language.md §4.2",
    "5.3": "language.md §4.3",
    "5.4": "language.md §4.4",
    "5.5": "language.md §4.5",
    "5.6": "language.md §4.6",
    "5.7": "language.md §4.7",
    "5.8": "language.md §4.8",
    # 6 Gates and scorers -> gates.md (contracts: language.md §5)
    "6": "gates.md",
    "6.1": "gates.md §1",
    "6.2": "gates.md §2",
    "6.3": "gates.md §3",
    "6.4": "gates.md §4",
    "6.5": "gates.md §5",
    "6.6": "gates.md §6",
    "6.7": "gates.md §7",
    "6.8": "gates.md §8",
    "6.9": "language.md §5",
    "6.10": "gates.md §9",
    # 7 Retry -> retry.md
    "7": "retry.md",
    "7.1": "retry.md §1",
    "7.2": "retry.md §2",
    "7.3": "retry.md §3",
    "7.4": "retry.md §4",
    # 8 Per-type runtime semantics -> language.md §6 (budget: scheduling.md, timeouts: retry.md)
    "8": "language.md §6",
    "8.1": "language.md §6.1",
    "8.2": "language.md §6.2",
    "8.3": "language.md §6.3",
    "8.4": "language.md §6.4",
    "8.5": "language.md §6.5",
    "8.6": "language.md §6.6",
    "8.7": "scheduling.md §6",
    "8.8": "retry.md §5",
    # 9 Trace quality gates -> trace-gates.md
    "9": "trace-gates.md",
    "9.1": "trace-gates.md §1",
    "9.2": "trace-gates.md §2",
    "9.3": "trace-gates.md §3",
    "9.3.1": "trace-gates.md §3.7",
    "9.4": "trace-gates.md §4",
    "9.5": "trace-gates.md §5",
    "9.6": "trace-gates.md §6",
    "9.7": "trace-gates.md §7",
    "9.8": "trace-gates.md §8",
    # 10 Divergences, 11 Clarifications -> differences.md
    "10": "differences.md",
    "10.1": "differences.md §1",
    "10.2": "differences.md §2",
    "10.3": "differences.md §3",
    "11": "differences.md",
}


@dataclass(frozen=True)
class Override:
    """Where one SPEC section is covered by several pages: the section, the target, and where it
    applies: a file (path under the repo) and/or a piece of the line that must be present."""

    section: str
    target: str
    path: str | None = None
    line_has: str | None = None


OVERRIDES: tuple[Override, ...] = (
    # SPEC §8.8 covers call timeouts (retry.md §5), scripts and races (language.md §6.7, §6.8).
    Override("8.8", "language.md §6.7", path="tftui/engine/phases/script.py"),
    Override("8.8", "language.md §6.7", line_has="script phases"),
    Override("8.8", "language.md §6.7", line_has="as scripts do"),
    Override("8.8", "language.md §6.8", path="tftui/engine/phases/race.py"),
    Override("8.8", "language.md §6.8", line_has="race phases"),
    # SPEC §2.4's last paragraph (hardening of generated definitions) is language.md §2.5.
    Override("2.4", "language.md §2.5", path="tftui/engine/subflow_def.py"),
    Override("2.4", "language.md §2.5", line_has="hardened"),
    Override("2.4", "language.md §6.9", line_has="flow and expand phases"),
    # SPEC §3.5's BLOCKED display rule.
    Override("3.5", "scheduling.md §4.2", line_has="BLOCKED"),
    Override("3.5", "scheduling.md §4.2", line_has="verdict block"),
    # The backoff curve within the attempt loop.
    Override("7.3", "retry.md §3.3", line_has="Delay before the retry"),
)

# Other mentions of the outside documents, rewritten as whole phrases (they may span lines),
# before the section citations. DESIGN.md was the architecture note: node paths and pause points
# are behaviour users rely on and are in docs/; the other DESIGN citations described structure the
# code shows itself, and are dropped. A `DESIGN §` citation no rule covers is reported, not guessed.
PHRASE_RULES: tuple[tuple[str, str], ...] = (
    ("Additions to the DESIGN §3 signature", "Additions to the basic signature"),
    ("(DESIGN §3)", "(docs/language.md §7)"),
    ("# DESIGN §3:", "# docs/language.md §7:"),
    ("follows DESIGN §3", "follows docs/language.md §7"),
    ("Pause points (DESIGN §4):", "Pause points (docs/scheduling.md §7):"),
    ("Injectable time (DESIGN §4):", "Injectable time:"),
    ("as a fold over events (DESIGN §4):", "as a fold over events:"),
    ("Rules (DESIGN §5):", "Rules:"),
    (" (DESIGN §1)", ""),
    ('library\n(DESIGN asks to share that machinery "where it fits"; here it does not):', "library:"),
    ("in SPEC's order:", "in the order of docs/language.md §1.6:"),
    ("Messages are SPEC's (and taskflow 0.2.4's) byte for byte;", "Messages are taskflow 0.2.4's byte for byte (docs/language.md §1.6);"),
    ("# SPEC message, plus a hint", "# the documented message, plus a hint"),
    ("SPEC's shape-error list does not include it,", "it is not a shape error (docs/gates.md §4.3),"),
    ("# SPEC's count is set when", "# the count (docs/language.md §2.2) is set when"),
    ("fails it with SPEC's message.", "fails it with the documented message (docs/gates.md §4.4)."),
    ("Values whose limits SPEC gives its own messages for", "Values whose limits have messages of their own"),
    ("which emits SPEC's exact wording.", "which emits those messages (docs/language.md §1.6)."),
    ("SPEC's errors for keys", "errors for keys"),
    ("(or SPEC's error, such as", "(or the documented error, such as"),
    ('Isolation (seed 000, "安全限制"):', "Isolation (docs/gates.md §8):"),
    ('(seed 000, SPEC §6.4 "Regex\ndialect"). ', "(docs/gates.md §4.5).\n"),
    ("(the seed's\n    transient defaults, also", "(the transient\n    defaults, also"),
    ("(the judge never runs, seed/D7)", "(the judge never runs, D7)"),
    ("All three fail open, as the seed requires:", "All three fail open (docs/differences.md §1):"),
    ("(seed fail-open, D2)", "(fail-open, D2)"),
)

# A SPEC citation: `SPEC §6.5`, or a bare `§6.5` not already part of a docs citation.
_SPEC_REF = re.compile(r"(?:\bSPEC\s+)?(?<![\w.])§(\d+(?:\.\d+)*)")
_DOCS_PREFIX = re.compile(r"docs/[\w-]+\.md(?:\s*(?:,|–|-|and|\+)?\s*§\d+(?:\.\d+)*)*\s*(?:,|–|-|and|\+)?\s*$")
_DESIGN_REF = re.compile(r"DESIGN\s+§\d+")
_MERGE = re.compile(r"(docs/([\w-]+\.md) §[\d.]*\d(?:(?:, | and |–|-)§[\d.]*\d)*)(, | and |–|-)docs/\2 (?=§)")
_HEADING = re.compile(r"^#{1,6}\s+(\d+(?:\.\d+)*)\.?\s", re.MULTILINE)


def doc_sections() -> dict[str, set[str]]:
    return {p.name: set(_HEADING.findall(p.read_text(encoding="utf-8"))) for p in DOCS.glob("*.md")}


def target_problem(target: str, sections: dict[str, set[str]]) -> str | None:
    page, _, section = target.partition(" §")
    if page not in sections:
        return f"no page docs/{page}"
    if section and section not in sections[page]:
        return f"no heading §{section} in docs/{page}"
    return None


def check_tables() -> list[str]:
    sections = doc_sections()
    problems = [f"MAPPING §{k} -> {v}: {p}" for k, v in MAPPING.items() if (p := target_problem(v, sections))]
    problems += [f"override {o}: {p}" for o in OVERRIDES if (p := target_problem(o.target, sections))]
    for old, new in PHRASE_RULES:
        for ref in re.findall(r"docs/([\w-]+\.md(?: §[\d.]*\d)?)", new):
            if p := target_problem(ref, sections):
                problems.append(f"phrase rule {old!r}: {p}")
    return problems


def _target(path: str, section: str, line: str) -> str | None:
    for o in OVERRIDES:
        if o.section != section or (o.path is not None and o.path != path):
            continue
        if o.line_has is None or o.line_has in line:
            return o.target
    return MAPPING.get(section)


def rewrite_text(text: str, path: str, problems: list[str], used: set[int] | None = None) -> str:
    """Rewrite the citations in one comment or docstring (`text` may span lines)."""
    for n, (old, new) in enumerate(PHRASE_RULES):
        if old in text:
            text = text.replace(old, new)
            if used is not None:
                used.add(n)
    for ref in _DESIGN_REF.findall(text):
        problems.append(f"{path}: no rule for {ref!r}")
    out_lines = []
    for line in text.split("\n"):

        def spec(match: re.Match[str], line: str = line) -> str:
            before = line[: match.start()]
            if _DOCS_PREFIX.search(before):  # already a docs citation (`docs/x.md §1, §2`)
                return match.group(0)
            section = match.group(1)
            target = _target(path, section, line)
            if target is None:
                problems.append(f"{path}: no mapping for SPEC §{section}")
                return match.group(0)
            return "docs/" + target

        line = _SPEC_REF.sub(spec, line)
        while True:
            merged = _MERGE.sub(r"\1\3", line)
            if merged == line:
                break
            line = merged
        out_lines.append(line)
    return "\n".join(out_lines)


def _standalone_strings(source: str) -> set[tuple[int, int]]:
    """(line, col) of every string that is a statement on its own (docstrings and the like)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    return {
        (node.lineno, node.col_offset)
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
    }


def _offsets(source: str) -> list[int]:
    starts, total = [0], 0
    for line in source.splitlines(keepends=True):
        total += len(line)
        starts.append(total)
    return starts


def rewrite_source(
    source: str, path: str, problems: list[str], in_code: list[str], used: set[int] | None = None
) -> str:
    """`source` with its comments and standalone strings rewritten; code strings are reported."""
    docstrings = _standalone_strings(source)
    starts = _offsets(source)
    edits: list[tuple[int, int, str]] = []
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type not in (tokenize.COMMENT, tokenize.STRING):
            continue
        if tok.type == tokenize.STRING and tok.start not in docstrings:
            if _SPEC_REF.search(tok.string) or _DESIGN_REF.search(tok.string):
                in_code.append(f"{path}:{tok.start[0]}: {tok.string[:100]}")
            continue
        new = rewrite_text(tok.string, path, problems, used)
        if new != tok.string:
            begin = starts[tok.start[0] - 1] + tok.start[1]
            end = starts[tok.end[0] - 1] + tok.end[1]
            edits.append((begin, end, new))
    for begin, end, new in reversed(edits):
        source = source[:begin] + new + source[end:]
    return source


def code_shape(source: str) -> str:
    """The program without its standalone strings: equal before and after a rewrite, or the
    rewrite touched code."""
    tree = ast.parse(source)
    for node in ast.walk(tree):
        for name in ("body", "orelse", "finalbody", "handlers"):
            block = getattr(node, name, None)
            if isinstance(block, list):
                kept = [
                    n for n in block
                    if not (isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant) and isinstance(n.value.value, str))
                ]
                setattr(node, name, kept or [ast.Pass()])
    return ast.dump(tree)


def python_files(paths: Iterable[str]) -> list[Path]:
    files: list[Path] = []
    for raw in paths:
        p = (ROOT / raw).resolve() if not Path(raw).is_absolute() else Path(raw)
        files += sorted(p.rglob("*.py")) if p.is_dir() else [p]
    return [f for f in files if "__pycache__" not in f.parts]


def remaining(files: list[Path]) -> list[str]:
    """Every `SPEC §` / `DESIGN §` still in the files (comments, docstrings or code)."""
    out = []
    for f in files:
        for n, line in enumerate(f.read_text(encoding="utf-8").splitlines(), 1):
            if "SPEC §" in line or "DESIGN §" in line:
                out.append(f"{f.relative_to(ROOT)}:{n}: {line.strip()[:110]}")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="*", default=["tftui"], help="files or folders (default: tftui)")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--write", action="store_true", help="apply the changes")
    mode.add_argument("--check", action="store_true", help="exit 1 while SPEC/DESIGN citations remain")
    args = parser.parse_args(argv)

    table_problems = check_tables()
    if table_problems:
        print("the tables point at headings docs/ does not have:", *table_problems, sep="\n  ")
        return 2
    files = python_files(args.paths)
    if args.check:
        left = remaining(files)
        print(*left, sep="\n") if left else print("no SPEC § / DESIGN § citation left")
        return 1 if left else 0

    problems: list[str] = []
    in_code: list[str] = []
    used: set[int] = set()
    changed = 0
    for f in files:
        rel = f.relative_to(ROOT).as_posix()
        old = f.read_text(encoding="utf-8")
        new = rewrite_source(old, rel, problems, in_code, used)
        if new == old:
            continue
        if code_shape(new) != code_shape(old):  # never expected: the tokens edited are comments/docstrings
            problems.append(f"{rel}: the rewrite would change code; file left alone")
            continue
        changed += 1
        diff = difflib.unified_diff(old.splitlines(), new.splitlines(), rel, rel, n=0, lineterm="")
        print(*diff, sep="\n")
        if args.write:
            f.write_text(new, encoding="utf-8")
    verb = "rewrote" if args.write else "would rewrite"
    print(f"{verb} {changed} file(s)")
    if in_code:
        print("left alone (in code, not a comment):", *in_code, sep="\n  ")
    unused = [old for n, (old, _) in enumerate(PHRASE_RULES) if n not in used]
    if unused:
        print("phrase rules that matched nothing (the text changed or was rewritten already):", *unused, sep="\n  ")
    if problems:
        print("not rewritten:", *problems, sep="\n  ")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
