"""Acceptance: credentials planted in every place a user can put one never reach any output.

The secrets: an `api_key_env` value, an `Authorization` header, a custom credential header, a
`Cookie` header (all in `[providers.*]`), and an agent command's environment variable. The
loopback server quotes every header it was sent in its answers, its error bodies and its
response headers; the agent command prints its token on stdout and stderr. Flows run headless
(`tftui run`, text and `--json`, journaled), a bundle is exported, `tftui config` runs as text
and `--json`, and the debugger runs the same flow (Pilot) and exports a bundle with `x`. No
secret (nor a long piece of one) may appear anywhere.
"""

from __future__ import annotations

import json
import sys
import zipfile
from pathlib import Path

import pytest

from tftui.cli import main as cli_main
from tftui.redaction import forget_secrets

ENV_KEY = "sk-leak-envkey-A1B2C3D4E5F6G7H8"
AUTH_TOKEN = "hdrtok-Z9Y8X7W6V5U4T3S2R1"
CUSTOM = "portkey-Q1W2E3R4T5Y6U7I8O9"
COOKIE = "cookieval-M1N2B3V4C5X6Z7L8"
CMD_TOKEN = "cmdtok-P0O9I8U7Y6T5R4E3W2"
SECRETS = (ENV_KEY, AUTH_TOKEN, CUSTOM, COOKIE, CMD_TOKEN)

FLOW = {
    "name": "leaky",
    "phases": [
        {"id": "ask", "type": "agent", "task": "Say what you were sent."},
        {"id": "fail", "type": "agent", "dependsOn": ["ask"], "task": "Again: {steps.ask.output}", "final": True},
    ],
}
CMD_FLOW = {"name": "cmd", "phases": [{"id": "ask", "type": "agent", "task": "go", "final": True}]}
CMD = (f"{sys.executable} -c \"import os,sys; t=os.environ['LEAKY_CMD_TOKEN']; print('answer', t); "
       "print('err', t, file=sys.stderr); sys.exit(0 if sys.stdin.read().startswith('go') else 3)\"")


def _pieces(secret: str) -> list[str]:
    """The secret and every 10-character piece of it but its last 4 characters (which a mask shows)."""
    body = secret[:-4]
    return [secret, *(body[i:i + 10] for i in range(0, max(1, len(body) - 9)))]


def assert_clean(text: str, where: str) -> None:
    for secret in SECRETS:
        for piece in _pieces(secret):
            assert piece not in text, f"{piece!r} (from {secret!r}) leaked into {where}"


def _zip_text(path: Path) -> str:
    with zipfile.ZipFile(path) as zf:
        return "\n".join(zf.read(name).decode("utf-8", "replace") for name in zf.namelist())


def _all_files(root: Path) -> str:
    out = []
    for path in sorted(root.rglob("*")):
        if not path.is_file():
            continue
        if path.suffix == ".zip":
            out.append(_zip_text(path))
        else:
            out.append(path.read_text(encoding="utf-8", errors="replace"))
    return "\n".join(out)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake_provider) -> Path:
    forget_secrets()
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("LEAKY_KEY", ENV_KEY)
    monkeypatch.setenv("LEAKY_CMD_TOKEN", CMD_TOKEN)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "leaky.json").write_text(json.dumps(FLOW))
    (tmp_path / "cmd.json").write_text(json.dumps(CMD_FLOW))
    (tmp_path / "tftui.toml").write_text(
        f'[providers.envkey]\nbase_url = "{fake_provider.url}"\nmodel = "m"\napi_key_env = "LEAKY_KEY"\n\n'
        f'[providers.headers]\nbase_url = "{fake_provider.url}"\nmodel = "m"\n'
        f'headers = {{ Authorization = "Bearer {AUTH_TOKEN}", "X-Portkey-Api-Key" = "{CUSTOM}", '
        f'Cookie = "sessionid={COOKIE}" }}\n'
    )
    yield tmp_path
    forget_secrets()


def _script(fake_provider) -> None:
    fake_provider.add("echo", status=429, headers={"Retry-After": "0"})  # transient: retried
    fake_provider.add("echo")  # an answer quoting every header
    fake_provider.add("echo", status=401)  # an error quoting every header (not retried)


@pytest.mark.parametrize("provider", ["envkey", "headers"])
def test_headless_runs_bundles_and_config_leak_nothing(project: Path, fake_provider, capsys, provider: str):
    runs = project / "runs"
    outputs = []
    for extra in (["--json"], []):
        _script(fake_provider)
        code = cli_main(["run", "leaky.json", "--provider", provider, "--runs-dir", str(runs), "--no-wait", *extra])
        captured = capsys.readouterr()
        assert code == 1, captured.err  # the second phase fails on the 401
        outputs += [captured.out, captured.err]
    sent = [r["headers"] for r in fake_provider.requests]
    assert len(sent) == 6, outputs
    if provider == "headers":  # the secrets did reach the server (so the server did quote them)
        assert sent[0]["Authorization"] == f"Bearer {AUTH_TOKEN}" and sent[0]["Cookie"] == f"sessionid={COOKIE}"
    else:
        assert sent[0]["Authorization"] == f"Bearer {ENV_KEY}"
    assert any("rejected" in text for text in outputs)  # the provider's words are kept, masked

    run_dir = next(p for p in runs.iterdir() if p.is_dir())
    assert cli_main(["replay", str(run_dir), "--export", str(project / "out.tftui.zip")]) == 0
    assert cli_main(["replay", str(run_dir), "--print"]) in (0, 1)
    outputs += list(capsys.readouterr())
    for text in outputs:
        assert_clean(text, "stdout/stderr")
    assert_clean(_all_files(runs), "the runs dir")
    assert_clean(_zip_text(project / "out.tftui.zip"), "the bundle")

    for args in (["config"], ["config", "--json"]):
        cli_main(args)
        out, err = capsys.readouterr()
        assert_clean(out + err, " ".join(args))
        assert "X-Portkey-Api-Key" in out  # the setting is listed, its value masked


def test_an_agent_commands_environment_leaks_nothing(project: Path, capsys):
    runs = project / "runs"
    outputs = []
    for extra in (["--json"], []):
        code = cli_main(["run", "cmd.json", "--agent-cmd", CMD, "--runs-dir", str(runs), *extra])
        outputs += list(capsys.readouterr())
        assert code == 0
    assert any("answer …" in text for text in outputs)
    for text in outputs:
        assert_clean(text, "stdout/stderr")
    assert_clean(_all_files(runs), "the runs dir")


async def test_the_debugger_shows_and_exports_no_secret(project: Path, fake_provider):
    from textual.widgets import Input

    from tftui.commands.runner_select import build_runner
    from tftui.config import load_config
    from tftui.engine.clock import InstantClock
    from tftui.flow.load import load_flow
    from tftui.tui.app import TftuiApp

    _script(fake_provider)
    flow_path = project / "leaky.json"
    loaded = load_flow(flow_path)
    assert loaded.flow is not None
    runner = build_runner(load_config(flow_path), provider="headers", flow_path=flow_path)
    app = TftuiApp(loaded.flow, flow_path=str(flow_path), flow_text=loaded.source_text, runner=runner,
                   clock=InstantClock(), show_times=False, animations=False, watch=False,
                   config_path=project / "no-config.toml", runs_root=project / "runs")
    screens = []
    async with app.run_test(size=(160, 50)) as pilot:
        await pilot.press("c")
        for _ in range(800):
            await pilot.pause(0.01)
            if app.last_result is not None and not app.ctl.running:
                break
        assert app.last_result is not None
        for key in ("down", "enter", "down", "enter", "tab", "tab"):
            await pilot.press(key)
            await pilot.pause()
            screens.append("\n".join(strip.text for strip in app.screen._compositor.render_strips()))
        await pilot.press("x")
        for _ in range(300):
            await pilot.pause(0.01)
            if app.screen.query(Input):
                break
        app.screen.query_one(Input).value = str(project / "tui.tftui.zip")
        await pilot.press("enter")
        for _ in range(300):
            await pilot.pause(0.01)
            if (project / "tui.tftui.zip").exists():
                break
    assert len(fake_provider.requests) >= 3
    assert any("rejected" in shot or "you sent" in shot for shot in screens)  # the provider's words are drawn
    for shot in screens:
        assert_clean(shot, "the debugger's screen")
    assert_clean(_all_files(project / "runs"), "the runs dir")
    assert_clean(_zip_text(project / "tui.tftui.zip"), "the TUI bundle")


DEPLOY_PASS = "deploypass-K7J6H5G4F3D2S1A0"  # a name no shape rule knows: only `secret_env` marks it


def test_a_configured_commands_secret_env_leaks_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys):
    forget_secrets()
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    monkeypatch.chdir(tmp_path)
    (tmp_path / "cmd.json").write_text(json.dumps(CMD_FLOW))
    printer = (f"{sys.executable} -c \"import os,sys; t=os.environ['DEPLOY_PASS']; print('answer', t); "
               "print('err', t, file=sys.stderr)\"")
    import shlex

    argv = ", ".join(json.dumps(a) for a in shlex.split(printer))
    (tmp_path / "tftui.toml").write_text(
        f'[commands.deployer]\nargv = [{argv}]\nenv = {{ DEPLOY_PASS = "{DEPLOY_PASS}", REGION = "eu-west-1" }}\n'
        'secret_env = ["DEPLOY_PASS"]\n'
    )
    runs = tmp_path / "runs"
    try:
        outputs = []
        for extra in (["--json"], []):
            assert cli_main(["run", "cmd.json", "--agent-cmd", "deployer", "--runs-dir", str(runs), *extra]) == 0
            outputs += list(capsys.readouterr())
        for args in (["config", "--flow", "cmd.json"], ["config", "--flow", "cmd.json", "--json"]):
            cli_main(args)
            outputs += list(capsys.readouterr())
        text = "\n".join(outputs)
        assert "answer …" in text and "eu-west-1" in text  # the command ran with its env; REGION is no secret
        for piece in _pieces(DEPLOY_PASS):
            assert piece not in text and piece not in _all_files(runs), piece
    finally:
        forget_secrets()
