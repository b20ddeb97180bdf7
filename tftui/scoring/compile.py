"""The `code-compiles` scorer (docs/gates.md §8): a real compiler on model output, boxed in (docs/trust.md §4).

Isolation:
- a fresh private directory per call (`tempfile.mkdtemp`: atomic, mode 0700) inside a per-user
  root tftui makes itself in the system temp directory (`/tmp/tftui-<uid>`, mode 0700, refused
  when someone else owns it or others may write it); `TMPDIR` is ignored, so a project cannot
  move the directory under its own tree. It is the compiler's working directory and `HOME`;
- a minimal environment: `PATH` with only trusted absolute entries (not relative, not inside a
  temp directory, not inside the current folder unless that is your home or above it), `HOME`,
  npm's cache, prefix and user config inside the private directory, offline; no
  NODE_PATH/PYTHONPATH/PYTHONSTARTUP;
- `tsc` is resolved by tftui, not by `npx` (which would search `node_modules/.bin` in every
  parent of the temp dir and the project): the first `tsc` on that PATH (or beside `node`) whose
  real path is owned by you or root, not writable by group or others (nor its folder), and not
  in an untrusted location; `node` is checked the same way;
- stdin is closed; the compiler runs in its own session (`tftui.procs`): at the timeout (30 s by
  default), on cancel and at exit, its whole tree is stopped (SIGTERM, SIGKILL 1 s later);
- the directory is removed in `finally` (errors swallowed).

Python (tftui extension) is byte-compiled by the current interpreter in isolated mode
(`-I -S`: no site, no sitecustomize, no user site, no PYTHONPATH, no cwd on sys.path), with the
same scrubbed environment: syntax only, nothing imported or executed, no `.pyc` written.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import sys
import tempfile
from collections.abc import Mapping

from tftui.flow.score_shape import ScorerSpec
from tftui.procs import run_process
from tftui.scoring.scorers import ScorerResult, scorer_name

LANGUAGES = ("javascript", "typescript", "python")
_FILES = {"javascript": "snippet.mjs", "typescript": "snippet.ts", "python": "snippet.py"}
# ```<word>?<spaces>\n … ``` — the body of a fenced block
_FENCE_RE = re.compile(r"```[\w+#.-]*[ \t]*\r?\n([\s\S]*?)```")
_SYSTEM_TEMP = ("/tmp", "/var/tmp")  # where the private root may live; never $TMPDIR
KILL_GRACE_S = 1.0
_OUTPUT_CAP = 256 * 1024

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

# npm settings, should the compiler call npm: never reach the network, never install, keep
# everything it writes inside the private directory (filled in per call).
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


def _inside(path: str, folder: str) -> bool:
    try:
        return os.path.commonpath([path, folder]) == folder
    except ValueError:
        return False


def _untrusted_folders() -> list[str]:
    """Where no compiler (or PATH entry) is taken from: temp directories and the project."""
    folders = [*_SYSTEM_TEMP, tempfile.gettempdir(), *(os.environ.get(k, "") for k in ("TMPDIR", "TEMP", "TMP"))]
    cwd = os.getcwd()
    home = os.path.expanduser("~")
    if not _inside(os.path.realpath(home), os.path.realpath(cwd)):  # cwd is not home or above it
        folders.append(cwd)
    return [os.path.realpath(f) for f in folders if f and os.path.isabs(f)]


def _safe_path(untrusted: list[str]) -> str:
    entries = os.environ.get("PATH", os.defpath).split(os.pathsep)
    kept = [e for e in entries if e and os.path.isabs(e)]
    return os.pathsep.join(e for e in kept if not any(_inside(os.path.realpath(e), u) for u in untrusted))


def _trusted(path: str, untrusted: list[str]) -> str | None:
    """Why the program at `path` (a real path) may not run, or None when it may."""
    if any(_inside(path, u) for u in untrusted):
        return f"refusing {path} (in a temporary or project folder)"
    me = os.getuid() if hasattr(os, "getuid") else 0
    for item in (path, os.path.dirname(path)):
        try:
            info = os.stat(item)
        except OSError as exc:
            return f"cannot check {item}: {exc.strerror or exc}"
        if info.st_uid not in (0, me):
            return f"refusing {path} ({item} is owned by another user)"
        if stat.S_IMODE(info.st_mode) & (stat.S_IWGRP | stat.S_IWOTH):
            return f"refusing {path} ({item} is writable by others)"
    return None


def _resolve(tool: str, path_env: str, untrusted: list[str], beside: str | None = None) -> tuple[str | None, str]:
    """The real path of the first trustworthy `tool` on `path_env` (then in folder `beside`),
    or (None, why not)."""
    refused: list[str] = []
    folders = [*path_env.split(os.pathsep), *([beside] if beside else [])]
    for folder in dict.fromkeys(f for f in folders if f):
        candidate = os.path.join(folder, tool)
        if not (os.path.isfile(candidate) and os.access(candidate, os.X_OK)):
            continue
        real = os.path.realpath(candidate)
        problem = _trusted(real, untrusted)
        if problem is None:
            return real, ""
        refused.append(problem)
    if refused:
        return None, refused[0]
    return None, f"'{tool}' not found on PATH"


def _command(language: str, path_env: str, untrusted: list[str]) -> list[str] | str:
    """The argv to run in the temp dir, or a `compiler unavailable` reason."""
    if language == "python":
        return [sys.executable, "-I", "-S", "-c", _PY_CHECK, _FILES["python"]]
    node, why = _resolve("node", path_env, untrusted)
    if language == "javascript":
        return [node, "--check", _FILES["javascript"]] if node else why
    tsc, why = _resolve("tsc", path_env, untrusted, beside=os.path.dirname(node) if node else None)
    if tsc is None:
        if why.endswith("not found on PATH"):
            return "tsc is not installed (no tsc on PATH or beside node)"
        return why
    return [tsc, "--noEmit", "--skipLibCheck", _FILES["typescript"]]


def _first_lines(stderr: bytes, stdout: bytes, code: int, workdir: str) -> str:
    for stream in (stderr, stdout):
        # the private directory's name is random: drop it so details are stable
        text = stream.decode("utf-8", errors="replace").replace(workdir + os.sep, "").strip()
        if text:
            return "\n".join(text.splitlines()[:5])
    return f"compiler exited {code}"


def private_root() -> str:
    """`<system temp>/tftui-<uid>`, made 0700 by us; raises OSError when none can be trusted."""
    me = os.getuid() if hasattr(os, "getuid") else 0
    problems: list[str] = []
    for base in _SYSTEM_TEMP:
        root = os.path.join(base, f"tftui-{me}")
        try:
            os.mkdir(root, 0o700)
        except FileExistsError:
            pass
        except OSError as exc:
            problems.append(f"{root}: {exc.strerror or exc}")
            continue
        info = os.lstat(root)
        if not stat.S_ISDIR(info.st_mode) or info.st_uid != me or stat.S_IMODE(info.st_mode) & 0o077:
            problems.append(f"{root} is not a private directory of yours")
            continue
        return root
    raise OSError("no private temp root: " + "; ".join(problems))


def _environment(workdir: str, path_env: str) -> dict[str, str]:
    env = {"PATH": path_env, "HOME": workdir, **_NPM_ENV}
    env["npm_config_cache"] = os.path.join(workdir, ".npm")
    env["npm_config_prefix"] = os.path.join(workdir, ".npm-prefix")
    env["npm_config_userconfig"] = os.path.join(workdir, ".npmrc")
    return env


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
        untrusted = _untrusted_folders()
        path_env = _safe_path(untrusted)
        argv = _command(language, path_env, untrusted)
        if isinstance(argv, str):
            return fail(f"compiler unavailable: {argv}")
        try:
            workdir = tempfile.mkdtemp(prefix="tftui-compile-", dir=private_root())
        except OSError as exc:
            return fail(f"compiler unavailable: {exc}")
        with open(
            os.path.join(workdir, _FILES[language]), "w", encoding="utf-8", errors="surrogatepass"
        ) as handle:
            handle.write(code)
        try:
            done = await run_process(
                argv, stdin=None, cwd=workdir, env=_environment(workdir, path_env), timeout_s=timeout_s,
                grace_s=KILL_GRACE_S, stdout_cap=_OUTPUT_CAP, stderr_cap=_OUTPUT_CAP, until_pipes_close=False,
            )
        except OSError as exc:
            return fail(f"compiler unavailable: {exc}")
        if done.timed_out:
            return fail(f"compiler timed out after {round(timeout_s * 1000)}ms")
        if done.code == 0:
            return ScorerResult(name, "code-compiles", True, 1, None)
        return fail(_first_lines(done.stderr, done.stdout, done.code or 0, workdir))
    except Exception as exc:  # scorers never raise (docs/gates.md §4)
        return fail(f"scorer error: {exc}")
    finally:
        if workdir is not None:
            shutil.rmtree(workdir, ignore_errors=True)
