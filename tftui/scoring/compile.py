"""The `code-compiles` scorer (docs/gates.md §8): a real compiler in an isolated temp directory.

Isolation (docs/gates.md §8):
- a fresh private directory per call (`tempfile.mkdtemp`: atomic, mode 0700) is the
  compiler's working directory, never the phase's or the project's, so a planted
  `node_modules/.bin/tsc` or `sitecustomize.py` in the project is not picked up;
- a minimal environment: `PATH` (absolute entries only: a relative entry would resolve
  against some working directory) and `HOME` = the temp dir; no NODE_PATH/PYTHONPATH;
  the TypeScript call also gets npm settings that forbid network and installs;
- executables are resolved to absolute paths before the spawn; stdin is closed;
- the compiler runs in its own process group, and the whole group is SIGKILLed at the
  timeout (30 s by default);
- the directory is removed in `finally` (errors swallowed);
- `npx` looks for `node_modules/.bin/tsc` in every parent of the temp dir (up to `/`), so
  one planted in the shared temp root by another user is refused, not run.

Python (tftui extension) is byte-compiled by the current interpreter in isolated mode
(`-I -S`: no site, no sitecustomize, no user site, no PYTHONPATH, no cwd on sys.path):
syntax only, nothing imported or executed, no `.pyc` written.
"""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import signal
import sys
import tempfile
from collections.abc import Mapping

from tftui.flow.score_shape import ScorerSpec
from tftui.scoring.scorers import ScorerResult, scorer_name

LANGUAGES = ("javascript", "typescript", "python")
_FILES = {"javascript": "snippet.mjs", "typescript": "snippet.ts", "python": "snippet.py"}
# ```<word>?<spaces>\n … ``` — the body of a fenced block
_FENCE_RE = re.compile(r"```[\w+#.-]*[ \t]*\r?\n([\s\S]*?)```")

# Parse-only check run with `python -I -S -c`: reads the file, compiles it, prints one line.
_PY_CHECK = """\
import sys
path = sys.argv[1]
with open(path, "rb") as handle:
    source = handle.read()
try:
    compile(source, path, "exec", dont_inherit=True)
except SyntaxError as exc:
    sys.stderr.write(f"{path}:{exc.lineno}:{exc.offset}: {type(exc).__name__}: {exc.msg}\\n")
    if exc.text:
        sys.stderr.write(exc.text.rstrip() + "\\n")
    sys.exit(1)
except ValueError as exc:
    sys.stderr.write(f"{path}: {exc}\\n")
    sys.exit(1)
"""

# npm settings for `npx --no-install tsc`: never reach the network, never install.
_NPM_ENV = {
    "npm_config_offline": "true",
    "npm_config_update_notifier": "false",
    "npm_config_audit": "false",
    "npm_config_fund": "false",
    "NO_UPDATE_NOTIFIER": "1",
}


def extract_code(target: str) -> str:
    """The body of the target's only fenced block, else the raw target."""
    if "```" not in target:
        return target
    matches = _FENCE_RE.findall(target)
    return matches[0] if len(matches) == 1 else target


def _safe_path() -> str:
    entries = os.environ.get("PATH", os.defpath).split(os.pathsep)
    return os.pathsep.join(e for e in entries if e and os.path.isabs(e))


def _command(language: str, path_env: str) -> list[str] | str:
    """The argv to run in the temp dir, or an `compiler unavailable` reason."""
    if language == "python":
        return [sys.executable, "-I", "-S", "-c", _PY_CHECK, _FILES["python"]]
    tool = "node" if language == "javascript" else "npx"
    exe = shutil.which(tool, path=path_env)
    if exe is None:
        return f"'{tool}' not found on PATH"
    if language == "javascript":
        return [exe, "--check", _FILES["javascript"]]
    return [exe, "--no-install", "tsc", "--noEmit", "--skipLibCheck", _FILES["typescript"]]


# What `npx --no-install tsc` prints when no tsc is resolvable (offline: ENOTCACHED).
_NPX_MISSING_RE = re.compile(r"ENOTCACHED|canceled due to missing packages|could not determine executable")


def _first_lines(stderr: bytes, stdout: bytes, code: int, workdir: str) -> str:
    for stream in (stderr, stdout):
        # the private directory's name is random: drop it so details are stable
        text = stream.decode("utf-8", errors="replace").replace(workdir + os.sep, "").strip()
        if text:
            return "\n".join(text.splitlines()[:5])
    return f"compiler exited {code}"


def _foreign_tsc(workdir: str) -> str | None:
    """A `node_modules/.bin/tsc` that `npx` would find above the temp dir and that belongs to
    another user (npx searches every parent up to `/`, and the temp dir lives in a shared
    /tmp): return its path so the scorer refuses to run it."""
    me = os.getuid()
    parent = os.path.dirname(workdir)
    while True:
        candidate = os.path.join(parent, "node_modules", ".bin", "tsc")
        try:
            owners = {os.stat(candidate).st_uid, os.stat(os.path.join(parent, "node_modules")).st_uid}
        except OSError:
            owners = set()
        if owners - {0, me}:
            return candidate
        up = os.path.dirname(parent)
        if up == parent:
            return None
        parent = up


def _kill_group(proc: asyncio.subprocess.Process) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)  # own session: pgid == pid
    except (ProcessLookupError, PermissionError):
        pass


async def run_code_compiles(
    scorer: ScorerSpec, index: int, target: str, *, timeout_s: float = 30
) -> ScorerResult:
    """Run the scorer's compiler on the target; never raises."""
    name = scorer_name(scorer, index)
    language = scorer.get("language") if isinstance(scorer, Mapping) else None

    def fail(detail: str) -> ScorerResult:
        return ScorerResult(name, "code-compiles", False, 0, detail)

    if language not in LANGUAGES:
        return fail(f"unsupported language '{language}' (expected {'|'.join(LANGUAGES)})")
    workdir: str | None = None
    try:
        code = extract_code(target if isinstance(target, str) else str(target))
        path_env = _safe_path()
        argv = _command(language, path_env)
        if isinstance(argv, str):
            return fail(f"compiler unavailable: {argv}")
        workdir = tempfile.mkdtemp(prefix="tftui-compile-")
        with open(
            os.path.join(workdir, _FILES[language]), "w", encoding="utf-8", errors="surrogatepass"
        ) as handle:
            handle.write(code)
        env = {"PATH": path_env, "HOME": workdir}
        if language == "typescript":
            foreign = _foreign_tsc(workdir)
            if foreign is not None:
                return fail(f"compiler unavailable: refusing {foreign} (owned by another user)")
            env.update(_NPM_ENV)
            # A package.json makes the temp dir npm's project root, so `npx` does not walk
            # up into a parent directory's node_modules/.bin looking for tsc.
            with open(os.path.join(workdir, "package.json"), "w", encoding="utf-8") as handle:
                handle.write('{"private": true}\n')
        try:
            proc = await asyncio.create_subprocess_exec(
                *argv,
                cwd=workdir,
                env=env,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                start_new_session=True,
            )
        except OSError as exc:
            return fail(f"compiler unavailable: {exc}")
        try:
            stdout, stderr = await asyncio.wait_for(proc.communicate(), timeout_s)
        except TimeoutError:
            _kill_group(proc)
            await proc.wait()
            return fail(f"compiler timed out after {round(timeout_s * 1000)}ms")
        except BaseException:
            _kill_group(proc)  # cancelled: take the compiler down with us
            raise
        _kill_group(proc)  # stray grandchildren of a compiler that exited
        if proc.returncode == 0:
            return ScorerResult(name, "code-compiles", True, 1, None)
        if language == "typescript" and _NPX_MISSING_RE.search(stderr.decode("utf-8", errors="replace")):
            return fail(
                "compiler unavailable: tsc is not installed (npx --no-install found no local or global tsc)"
            )
        return fail(_first_lines(stderr, stdout, proc.returncode or 0, workdir))
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # scorers never raise (docs/gates.md §4)
        return fail(f"scorer error: {exc}")
    finally:
        if workdir is not None:
            shutil.rmtree(workdir, ignore_errors=True)
