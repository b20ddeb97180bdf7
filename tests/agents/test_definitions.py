"""Agent definition files: front matter parsing, lookup order, fallback, built-ins."""

from __future__ import annotations

import logging

import pytest

from tftui.agents.definitions import BUILTIN_DIR, AgentLibrary, parse_definition, parse_front_matter


def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


@pytest.fixture
def dirs(tmp_path):
    flow = tmp_path / "proj" / "flow.json"
    write(flow, "{}")
    env = {"XDG_CONFIG_HOME": str(tmp_path / "xdg")}
    return flow, tmp_path / "proj" / "agents", tmp_path / "xdg" / "tftui" / "agents", env


def test_front_matter_forms():
    fm = parse_front_matter(
        "---\nname: a\ndescription: \"Quoted: yes\"  # comment\ntools: [read, 'grep']\n"
        "skills:\n  - one\n  - two\nurl: http://x/#frag\n---\n\nBody line\n"
    )
    assert fm.errors == []
    assert fm.meta == {"name": "a", "description": "Quoted: yes", "tools": ["read", "grep"],
                       "skills": ["one", "two"], "url": "http://x/#frag"}
    assert fm.body == "Body line"


def test_front_matter_problems_are_reported_not_raised():
    assert parse_front_matter("no front matter").body == "no front matter"
    unclosed = parse_front_matter("---\nname: a\nbody")
    assert unclosed.errors == ["front matter opened with '---' on line 1 is never closed"]
    # YAML (issue 16) reads the two lines as one plain text, so there is one problem, on line 2
    bad = parse_front_matter("---\njust words\n- stray\n---\nx")
    assert bad.errors == ["line 2: expected 'key: value', got 'just words'"]
    broken = parse_front_matter("---\nname: a\ntools: [read,\n---\nx")
    assert broken.errors == [] and broken.warnings[0].startswith("line 3: not valid YAML (")


def test_definition_fields_and_comma_tools():
    d, errors = parse_definition("---\nname: other\nmodel: m\ntools: Read, Grep\n---\nPrompt", name="mine")
    assert (d.name, d.model, d.tools, d.system) == ("mine", "m", ["Read", "Grep"], "Prompt")
    assert errors == ["mine: front matter name 'other' differs from the file name; 'mine' is used"]


def test_lookup_order_project_then_user_then_builtin(dirs):
    flow, project, user, env = dirs
    write(project / "reviewer.md", "---\nname: reviewer\n---\nproject reviewer")
    write(user / "reviewer.md", "---\nname: reviewer\n---\nuser reviewer")
    write(user / "writer.md", "---\nname: writer\n---\nuser writer")
    lib = AgentLibrary(flow, env=env)
    assert (lib.find("reviewer").system, lib.find("reviewer").source) == ("project reviewer", "project")
    assert (lib.find("writer").system, lib.find("writer").source) == ("user writer", "user")
    assert lib.find("scout").source == "builtin"
    names = lib.names()
    assert names["reviewer"].source == "project" and names["analyst"].source == "builtin"


def test_unknown_agent_falls_back_to_default_once(dirs, caplog):
    flow, _, _, env = dirs
    lib = AgentLibrary(flow, env=env)
    with caplog.at_level(logging.WARNING):
        assert lib.resolve("nobody").name == "executor"
        assert lib.resolve("nobody").name == "executor"
    assert [r.getMessage() for r in caplog.records] == ['Unknown agent "nobody", falling back to "executor".']
    assert lib.resolve(None).name == "executor" and lib.resolve("default").name == "executor"


def test_names_cannot_escape_the_agents_directory(dirs):
    flow, project, _, env = dirs
    write(project.parent / "secret.md", "---\nname: secret\n---\nnope")
    assert AgentLibrary(flow, env=env).find("../secret") is None


@pytest.mark.parametrize("name", ["executor", "reviewer", "analyst", "scout", "writer"])
def test_builtins_are_complete(name):
    d, errors = parse_definition((BUILTIN_DIR / f"{name}.md").read_text(), name=name)
    assert errors == [] and d.meta["name"] == name and d.description and len(d.system) > 100


AGENT_FROM_ANOTHER_TOOL = """---
# written for another tool
name: code-reviewer
description: |
  Reviews diffs for bugs.
  Use it after every change: "key: value" text stays text.
model: gpt-4o-mini   # the cheap one
tools:
  - Read
  - Grep   # search
  - Bash
color: purple
---
You review code.
"""


def test_yaml_agent_file_with_block_list_and_comments(tmp_path, caplog):
    d, problems = parse_definition(AGENT_FROM_ANOTHER_TOOL, name="code-reviewer", path="agents/code-reviewer.md")
    assert d.description == 'Reviews diffs for bugs.\nUse it after every change: "key: value" text stays text.\n'
    assert (d.model, d.tools, d.system) == ("gpt-4o-mini", ["Read", "Grep", "Bash"], "You review code.")
    assert d.meta["color"] == "purple"
    assert problems == ["agents/code-reviewer.md: line 12: unknown key 'color' "
                        "(tftui reads name, description, model, tools; the rest is kept and ignored)"]
    # through the library: found, every field right, the warning logged with the file and line
    write(tmp_path / "agents" / "code-reviewer.md", AGENT_FROM_ANOTHER_TOOL)
    lib = AgentLibrary(flow_path=str(tmp_path / "flow.json"), env={"XDG_CONFIG_HOME": str(tmp_path / "x")})
    with caplog.at_level(logging.WARNING):
        found = lib.find("code-reviewer")
    assert found is not None and found.tools == ["Read", "Grep", "Bash"] and found.source == "project"
    assert any("code-reviewer.md: line 12: unknown key 'color'" in r.getMessage() for r in caplog.records)


def test_plain_lines_yaml_refuses_still_load_with_a_warning():
    # an unquoted ': ' inside a value is a YAML error; such hand-written files load as before
    d, problems = parse_definition("---\nname: copy\ndescription: Writes copy: headlines, taglines.\n"
                                   "tools: [read]\n---\nBody", name="copy", path="agents/copy.md")
    assert (d.description, d.tools, d.system) == ("Writes copy: headlines, taglines.", ["read"], "Body")
    assert problems == ["agents/copy.md: line 3: not valid YAML (mapping values are not allowed here); "
                        "read as plain 'key: value' lines — quote the value to silence this"]


def test_front_matter_aliases_are_refused_not_expanded():
    """`&a`/`*a` nest exponentially (a few hundred bytes become gigabytes when read as text)."""
    level = "[x, x, x, x, x, x, x, x, x]"
    lines = [f"a0: &a0 {level}"] + [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, 9)]
    fm = parse_front_matter("---\nname: bomb\n" + "\n".join(lines) + "\n---\nbody\n")
    assert fm.errors == ["line 3: YAML anchors and aliases are not read in agent files"]
    assert fm.meta == {} and fm.body.strip() == "body"


def test_front_matter_nested_too_deep_is_an_error_not_a_crash():
    fm = parse_front_matter("---\nx: " + "[" * 5000 + "]" * 5000 + "\n---\nbody\n")
    assert fm.errors == ["line 2: the front matter nests [ or { more than 32 deep"]
    fm = parse_front_matter("---\nx: [[a, b], {c: [d]}]\n---\nbody\n")
    assert fm.errors == [] and fm.meta["x"]
