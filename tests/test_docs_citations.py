"""The repo's reference docs stand alone: every `docs/<page>.md §N` cited in tftui/ names a real
numbered heading, and every link between the docs pages lands on a real page and heading."""

from __future__ import annotations

import ast
import io
import re
import subprocess
import sys
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"

_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*$", re.MULTILINE)
_NUMBER = re.compile(r"^(\d+(?:\.\d+)*)\.?\s")
# `docs/retry.md §3.2`, `docs/gates.md §1–§7`, `docs/language.md §1.4, §1.6 and §2.3`
_CITATION = re.compile(r"docs/([A-Za-z0-9_-]+\.md)((?:(?:\s*,\s*|\s*[–-]\s*|\s+and\s+|\s+)§\d+(?:\.\d+)*)*)")
_SECTION = re.compile(r"§(\d+(?:\.\d+)*)")
_LINK = re.compile(r"\]\(([^)\s]+)\)")
_CODE = re.compile(r"```.*?```|`[^`\n]*`", re.DOTALL)


def _headings(page: Path) -> list[str]:
    return [m.group(2) for m in _HEADING.finditer(page.read_text(encoding="utf-8"))]


def section_numbers(page: Path) -> set[str]:
    """`3` for `## 3. Retry layers`, `3.2` for `### 3.2 Backoff`."""
    return {m.group(1) for h in _headings(page) if (m := _NUMBER.match(h))}


def slug(heading: str) -> str:
    """The anchor a Markdown renderer gives a heading (GitHub's rule)."""
    text = heading.strip().lower().replace("`", "")
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


_PAGE_CITATION = re.compile(_CITATION.pattern.replace("docs/", "(?<![\\w/.-])(?:docs/)?", 1))


def citations(text: str) -> list[tuple[str, list[str]]]:
    return [(m.group(1), _SECTION.findall(m.group(2))) for m in _CITATION.finditer(text)]


def page_citations(page: Path) -> list[tuple[str, list[str]]]:
    """`other.md §N` references in a docs page, then its bare `§N` references to itself."""
    prose = _CODE.sub("", page.read_text(encoding="utf-8"))
    found = [(m.group(1), _SECTION.findall(m.group(2))) for m in _PAGE_CITATION.finditer(prose)]
    rest = _PAGE_CITATION.sub("", prose)
    found.append((page.name, _SECTION.findall(rest)))
    return found


def test_every_docs_citation_in_the_code_names_a_real_section():
    dangling: list[str] = []
    for source in sorted((ROOT / "tftui").rglob("*.py")):
        text = source.read_text(encoding="utf-8")
        for page_name, sections in citations(text):
            page = DOCS / page_name
            where = f"{source.relative_to(ROOT)}: docs/{page_name}"
            if not page.is_file():
                dangling.append(f"{where} (no such page)")
                continue
            known = section_numbers(page)
            dangling += [f"{where} §{s}" for s in sections if s not in known]
    assert dangling == []


def test_section_references_inside_the_docs_resolve():
    dangling: list[str] = []
    for page in sorted(DOCS.glob("*.md")):
        for page_name, sections in page_citations(page):
            target = DOCS / page_name
            if not target.is_file():
                dangling.append(f"{page.name}: {page_name} (no such page)")
                continue
            known = section_numbers(target)
            dangling += [f"{page.name}: {page_name} §{s}" for s in sections if s not in known]
    assert dangling == []


def test_links_between_docs_pages_resolve():
    broken: list[str] = []
    checked = 0
    for page in sorted(DOCS.glob("*.md")):
        prose = _CODE.sub("", page.read_text(encoding="utf-8"))
        for target in _LINK.findall(prose):
            if "://" in target:
                continue
            checked += 1
            file_part, _, anchor = target.partition("#")
            dest = (page.parent / file_part).resolve() if file_part else page
            if not dest.exists():
                broken.append(f"{page.name}: {target} (no such file)")
            elif anchor and dest.suffix == ".md" and anchor not in {slug(h) for h in _headings(dest)}:
                broken.append(f"{page.name}: {target} (no such heading)")
    assert broken == []
    assert checked > 0


def test_the_citation_pattern_reads_lists_and_ranges():
    found = citations("see docs/gates.md §1–§7 and docs/language.md §1.4, §1.6 and §2.3, docs/retry.md §1-§2.")
    assert found == [("gates.md", ["1", "7"]), ("language.md", ["1.4", "1.6", "2.3"]), ("retry.md", ["1", "2"])]
    assert slug("### 4.2 `idempotent: false`".lstrip("# ")) == "42-idempotent-false"


def _comments_and_docstrings(source: str) -> list[tuple[int, str]]:
    """(line, text) of every comment and standalone string (docstring) of a module."""
    standalone = {
        (node.lineno, node.col_offset)
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
    }
    out = []
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.COMMENT or (tok.type == tokenize.STRING and tok.start in standalone):
            out.append((tok.start[0], tok.string))
    return out


def test_comments_cite_the_repos_docs_not_outside_documents():
    outside = re.compile(r"\b(?:SPEC|DESIGN)\s*§|(?<![\w.])§\d")
    found = []
    for source in sorted((ROOT / "tftui").rglob("*.py")):
        for line, text in _comments_and_docstrings(source.read_text(encoding="utf-8")):
            rest = _CITATION.sub("", text)  # `docs/x.md §1, §2` are fine
            if outside.search(rest):
                found.append(f"{source.relative_to(ROOT)}:{line}")
    assert found == [], "cite docs/<page>.md §N instead (tools/cite_docs.py rewrites SPEC/DESIGN citations)"


def test_the_rewrite_script_has_nothing_left_to_do():
    """Running tools/cite_docs.py again changes nothing (it is idempotent, and no SPEC/DESIGN
    citation was added to a comment since); its tables point at real docs headings."""
    done = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "cite_docs.py")], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "would rewrite 0 file(s)" in done.stdout, done.stdout
