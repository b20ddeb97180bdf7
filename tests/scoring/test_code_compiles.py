"""code-compiles: isolation (planted tools are not used), cleanup, timeout, outcomes."""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from pathlib import Path

import pytest

from tftui.scoring import compile as compile_mod
from tftui.scoring.compile import extract_code, run_code_compiles

HAS_NODE = shutil.which("node") is not None


def scorer(language: str) -> dict:
    return {"type": "code-compiles", "language": language}


def write_script(path: Path, body: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


@pytest.fixture
def created_dirs(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Record every temp dir the scorer creates (to check privacy and cleanup)."""
    made: list[str] = []
    real = tempfile.mkdtemp

    def spy(*args, **kwargs):
        path = real(*args, **kwargs)
        made.append(path)
        assert stat.S_IMODE(os.stat(path).st_mode) == 0o700
        return path

    monkeypatch.setattr(compile_mod.tempfile, "mkdtemp", spy)
    return made


def test_extract_code() -> None:
    assert extract_code("```python\nx = 1\n```") == "x = 1\n"
    assert extract_code("intro\n```  \ny\n```\noutro") == "y\n"
    assert extract_code("```a\n1\n```\n```b\n2\n```") == "```a\n1\n```\n```b\n2\n```"
    assert extract_code("no fences") == "no fences"


async def test_python_pass_and_fail(created_dirs: list[str]) -> None:
    ok = await run_code_compiles(scorer("python"), 0, "```python\ndef f():\n    return 1\n```")
    assert ok.passed and ok.score == 1 and ok.name == "code-compiles-0" and ok.detail is None
    bad = await run_code_compiles(scorer("python") | {"name": "py"}, 3, "def f(:\n    pass\n")
    assert not bad.passed and bad.name == "py"
    assert bad.detail.startswith("snippet.py:1:") and "SyntaxError" in bad.detail
    assert len(bad.detail.splitlines()) <= 5
    assert created_dirs and not any(os.path.exists(d) for d in created_dirs)


async def test_python_does_not_execute_or_import(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    marker = tmp_path / "executed"
    (tmp_path / "sitecustomize.py").write_text(f"open({str(tmp_path / 'site-ran')!r}, 'w').close()\n")
    (tmp_path / "usercustomize.py").write_text(f"open({str(tmp_path / 'site-ran')!r}, 'w').close()\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    code = f"import os\nopen({str(marker)!r}, 'w').close()\n"
    result = await run_code_compiles(scorer("python"), 0, code)
    assert result.passed
    assert not marker.exists() and not (tmp_path / "site-ran").exists()


@pytest.mark.skipif(not HAS_NODE, reason="node is not installed")
async def test_javascript_pass_and_fail() -> None:
    assert (await run_code_compiles(scorer("javascript"), 0, "export const x = 1;")).passed
    bad = await run_code_compiles(scorer("javascript"), 0, "const = ;")
    assert not bad.passed and "SyntaxError" in bad.detail and "tftui-compile-" not in bad.detail


async def test_planted_tools_in_the_working_directory_are_not_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, created_dirs: list[str]
) -> None:
    marker = tmp_path / "planted-ran"
    for tool in ("tsc", "npx", "node"):
        write_script(tmp_path / "node_modules" / ".bin" / tool, f"touch {marker}\nexit 0")
    monkeypatch.chdir(tmp_path)
    # a relative PATH entry would resolve against the project: it must be ignored
    monkeypatch.setenv("PATH", "node_modules/.bin" + os.pathsep + os.environ.get("PATH", ""))
    for language in ("typescript", "javascript"):
        await run_code_compiles(scorer(language), 0, "let x: number = 1;")
    assert not marker.exists()
    assert not any(os.path.exists(d) for d in created_dirs)


async def test_missing_compiler_is_unavailable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    result = await run_code_compiles(scorer("javascript"), 0, "1")
    assert not result.passed and result.detail == "compiler unavailable: 'node' not found on PATH"


async def test_a_hanging_compiler_is_killed_at_the_timeout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, created_dirs: list[str]
) -> None:
    pid_file = tmp_path / "grandchild.pid"
    write_script(tmp_path / "bin" / "node", f"sleep 60 &\necho $! > {pid_file}\nwait")
    monkeypatch.setenv("PATH", str(tmp_path / "bin") + os.pathsep + "/bin" + os.pathsep + "/usr/bin")
    result = await run_code_compiles(scorer("javascript"), 0, "1", timeout_s=1)
    assert not result.passed and result.detail == "compiler timed out after 1000ms"
    pid = int(pid_file.read_text())
    status = Path(f"/proc/{pid}/status")
    # the whole process group was killed: the grandchild is gone (or a zombie awaiting init)
    assert not status.exists() or "State:\tZ" in status.read_text()
    assert not any(os.path.exists(d) for d in created_dirs)


async def test_exit_without_output_and_minimal_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env_dump = tmp_path / "env.txt"
    write_script(tmp_path / "bin" / "node", f"env > {env_dump}\npwd >> {env_dump}\nexit 3")
    monkeypatch.setenv("PATH", str(tmp_path / "bin") + os.pathsep + "/usr/bin" + os.pathsep + "/bin")
    monkeypatch.setenv("NODE_PATH", "/somewhere")
    monkeypatch.setenv("SECRET_TOKEN", "x")
    result = await run_code_compiles(scorer("javascript"), 0, "1")
    assert result.detail == "compiler exited 3"
    lines = env_dump.read_text().splitlines()
    names = {line.split("=", 1)[0] for line in lines if "=" in line}
    assert "NODE_PATH" not in names and "SECRET_TOKEN" not in names
    assert {"PATH", "HOME"} <= names
    home = next(line.split("=", 1)[1] for line in lines if line.startswith("HOME="))
    assert lines[-1] == home and "tftui-compile-" in home  # cwd = HOME = the private temp dir


async def test_unsupported_language() -> None:
    result = await run_code_compiles(scorer("ruby"), 1, "x")
    assert result.detail == "unsupported language 'ruby' (expected javascript|typescript|python)"
    assert result.name == "code-compiles-1"


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to plant a file owned by another user")
def test_a_tsc_planted_above_the_temp_dir_by_another_user_is_refused(tmp_path: Path) -> None:
    from tftui.scoring.compile import _foreign_tsc

    workdir = tmp_path / "tftui-compile-x"
    workdir.mkdir()
    assert _foreign_tsc(str(workdir)) is None
    planted = write_script(tmp_path / "node_modules" / ".bin" / "tsc", "exit 0")
    assert _foreign_tsc(str(workdir)) is None  # ours: fine
    os.chown(tmp_path / "node_modules", 12345, 12345)
    os.chown(planted, 12345, 12345)
    assert _foreign_tsc(str(workdir)) == str(planted)
