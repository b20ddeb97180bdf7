"""Suite-wide isolation: no test reads the developer's own tftui configuration.

A user config with `default_provider` would otherwise make sample-flow tests call a real
model. Pointing XDG_CONFIG_HOME at a temp dir (inherited by subprocesses) keeps every test
offline and deterministic.
"""

import importlib.util
import os
import signal
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

# Bytecode is cached even where the environment says not to (PYTHONDONTWRITEBYTECODE, as some CI
# and sandbox images set): otherwise every `python -m tftui` a test starts compiles the whole
# package again (~0.5 s of CPU each), and pytest rewrites every test module's asserts afresh.
# __pycache__/ is git-ignored. Set before the tests import tftui; inherited by subprocesses.
sys.dont_write_bytecode = False
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)

# Ctrl+C acts as at a terminal in every process a test starts, however pytest was launched: a
# background job of a non-interactive shell begins with SIGINT ignored and would hand that to its
# children, so the interrupt tests (tests/cli/test_resume_kill.py, test_run_interrupt_tree.py) would
# hang or pass uninterrupted. A Python handler here is reset to the default in each child.
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

# The loopback chat-completions server (tests/fake_provider.py), loaded by path: under
# --import-mode=importlib test helpers are not importable by name.
_spec = importlib.util.spec_from_file_location("tftui_tests_fake_provider", Path(__file__).with_name("fake_provider.py"))
assert _spec is not None and _spec.loader is not None
fake_provider_module = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fake_provider_module)

# Property tests are seeded (issue 17): `derandomize` draws the same examples on every run and
# machine, so a failure in CI reproduces locally; no example database is read or written, and a
# loaded machine's slow example is not a failure. HYPOTHESIS_PROFILE=explore searches afresh.
settings.register_profile(
    "tftui", derandomize=True, database=None, deadline=None, print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("explore", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "tftui"))


@pytest.fixture(autouse=True)
def _isolated_user_config(tmp_path_factory, monkeypatch):
    config_home = tmp_path_factory.mktemp("xdg-config")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config_home))
    for name in ("TFTUI_CONFIG", "TFTUI_PROVIDER", "TFTUI_AGENT_CMD", "NO_COLOR"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def fake_provider() -> Iterator[Any]:
    """A real chat-completions server on 127.0.0.1 for this test (tests/fake_provider.py)."""
    fake = fake_provider_module.start()
    try:
        yield fake
    finally:
        fake.close()


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session) -> None:
    """Collect once, then freeze what survives: pytest's end-of-session check for unraisable
    exceptions then runs its five collections over what is left to free, not over the hundreds of
    thousands of objects a worker still holds (the modules, hypothesis, Textual's caches), each
    ~1 s on a slow machine. An xdist worker not finished 5 s after its last test is sent SIGINT
    (a KeyboardInterrupt in the middle of those collections, seen in full suites on a 2-core VM).
    Garbage is still collected here, so an exception in a finalizer is still reported."""
    import gc

    gc.collect()
    gc.freeze()
