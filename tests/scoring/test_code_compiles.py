"""code-compiles: isolation (planted tools are not used), cleanup, timeout, outcomes."""

from __future__ import annotations

import asyncio
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


@pytest.fixture
def fake_compilers_trusted(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests that stand in a fake compiler under their tmp_path (a temp folder, which the scorer
    refuses: docs/trust.md §4) let the scorer trust every folder."""
    monkeypatch.setattr(compile_mod, "_untrusted_folders", lambda: [])


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
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, created_dirs: list[str], fake_compilers_trusted: None
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
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake_compilers_trusted: None
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
async def test_a_tsc_owned_by_another_user_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake_compilers_trusted: None
) -> None:
    marker = tmp_path / "planted-ran"
    planted = write_script(tmp_path / "bin" / "tsc", f"touch {marker}\nexit 0")
    os.chown(planted, 12345, 12345)
    monkeypatch.setenv("PATH", str(tmp_path / "bin") + os.pathsep + "/usr/bin" + os.pathsep + "/bin")
    result = await run_code_compiles(scorer("typescript"), 0, "let x: number = 1;")
    assert not result.passed and not marker.exists()
    assert result.detail == f"compiler unavailable: refusing {planted} ({planted} is owned by another user)"


# ── issue 17 fault 3: nothing planted by a project or in a temp folder runs ─────────────────


def plant_everywhere(root: Path, marker: Path) -> list[Path]:
    """A `tsc` (and `node`, `npx`) that leaves `marker` when run, in `root/node_modules/.bin`."""
    return [write_script(root / "node_modules" / ".bin" / tool, f"touch {marker}\nexit 0") for tool in ("tsc", "npx")]


async def test_a_tsc_planted_in_a_project_that_sets_tmpdir_never_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, created_dirs: list[str]
) -> None:
    project = tmp_path / "project"
    marker = tmp_path / "planted-ran"
    plant_everywhere(project, marker)
    (project / "tmp").mkdir()
    monkeypatch.chdir(project)
    monkeypatch.setenv("TMPDIR", str(project / "tmp"))  # e.g. set by the project's .envrc
    # and its node_modules/.bin on PATH as an absolute entry (direnv's PATH_add does this)
    monkeypatch.setenv("PATH", str(project / "node_modules" / ".bin") + os.pathsep + os.environ["PATH"])
    result = await run_code_compiles(scorer("typescript"), 0, "let x: number = 1;")
    assert not marker.exists()
    assert not result.passed and result.detail.startswith("compiler unavailable:")
    assert (await run_code_compiles(scorer("python"), 0, "x = 1")).passed
    assert created_dirs and not any(str(project) in d for d in created_dirs)  # TMPDIR was ignored


async def test_a_tsc_planted_above_the_private_temp_dir_never_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, created_dirs: list[str]
) -> None:
    system_temp = tmp_path / "systemp"  # stands in for /tmp: a shared folder anyone can write to
    system_temp.mkdir()
    marker = tmp_path / "planted-ran"
    plant_everywhere(system_temp, marker)
    monkeypatch.setattr(compile_mod, "_SYSTEM_TEMP", (str(system_temp),))
    result = await run_code_compiles(scorer("typescript"), 0, "let x: number = 1;")
    assert (await run_code_compiles(scorer("python"), 0, "x = 1")).passed
    assert not marker.exists()
    assert created_dirs and all(d.startswith(str(system_temp / f"tftui-{os.getuid()}")) for d in created_dirs)
    assert stat.S_IMODE(os.stat(system_temp / f"tftui-{os.getuid()}").st_mode) == 0o700
    assert not result.passed and result.detail.startswith("compiler unavailable:")


async def test_a_squatted_private_root_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    system_temp = tmp_path / "systemp"
    (system_temp / f"tftui-{os.getuid()}").mkdir(parents=True, mode=0o777)
    os.chmod(system_temp / f"tftui-{os.getuid()}", 0o777)  # made by someone else, open to all
    monkeypatch.setattr(compile_mod, "_SYSTEM_TEMP", (str(system_temp),))
    result = await run_code_compiles(scorer("python"), 0, "x = 1")
    assert not result.passed and "is not a private directory of yours" in result.detail


async def test_a_trusted_tsc_runs_with_npm_kept_inside_the_private_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake_compilers_trusted: None
) -> None:
    seen = tmp_path / "seen.txt"
    write_script(tmp_path / "bin" / "tsc", f'echo "$@" > {seen}\nenv >> {seen}\nexit 0')
    monkeypatch.setenv("PATH", str(tmp_path / "bin") + os.pathsep + "/usr/bin" + os.pathsep + "/bin")
    result = await run_code_compiles(scorer("typescript"), 0, "let x: number = 1;")
    assert result.passed, result.detail
    lines = seen.read_text().splitlines()
    assert lines[0] == "--noEmit --skipLibCheck snippet.ts"
    env = dict(line.split("=", 1) for line in lines[1:] if "=" in line)
    assert env["npm_config_cache"].startswith(env["HOME"]) and env["npm_config_prefix"].startswith(env["HOME"])
    assert env["npm_config_offline"] == "true"


async def test_a_hostile_pythonstartup_and_sitecustomize_never_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    marker = tmp_path / "hostile-ran"
    hostile = f"open({str(marker)!r}, 'w').close()\n"
    (tmp_path / "startup.py").write_text(hostile)
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "sitecustomize.py").write_text(hostile)
    (tmp_path / "sitecustomize.py").write_text(hostile)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PYTHONSTARTUP", str(tmp_path / "startup.py"))
    monkeypatch.setenv("PYTHONPATH", str(tmp_path / "site"))
    monkeypatch.setenv("PYTHONINSPECT", "1")
    monkeypatch.setenv("PYTHONHOME", str(tmp_path / "nowhere"))  # would break any non-isolated start
    ok = await run_code_compiles(scorer("python"), 0, "def f():\n    return 1\n")
    bad = await run_code_compiles(scorer("python"), 0, "def f(:\n")
    assert ok.passed, ok.detail
    assert not bad.passed and "SyntaxError" in bad.detail
    assert not marker.exists()


async def test_a_compiler_whose_child_leaves_its_group_ends_at_the_timeout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake_compilers_trusted: None
) -> None:
    import secrets
    import subprocess

    token = f"tftui-test-{secrets.token_hex(6)}"
    write_script(tmp_path / "bin" / "node", f"setsid sh -c 'sleep 300; : {token}' &\nsleep 300")
    monkeypatch.setenv("PATH", str(tmp_path / "bin") + os.pathsep + "/usr/bin" + os.pathsep + "/bin")
    result = await asyncio.wait_for(run_code_compiles(scorer("javascript"), 0, "1", timeout_s=1), 60)
    assert result.detail == "compiler timed out after 1000ms"

    def left() -> list[str]:
        listing = subprocess.run(["ps", "-eo", "pid=,stat=,args="], capture_output=True, text=True).stdout
        return [row for row in listing.splitlines() if token in row and not row.split()[1].startswith("Z")]

    for _ in range(50):
        if not left():
            break
        await asyncio.sleep(0.1)
    assert left() == []
