"""Suite-wide isolation: no test reads the developer's own tftui configuration.

A user config with `default_provider` would otherwise make sample-flow tests call a real
model. Pointing XDG_CONFIG_HOME at a temp dir (inherited by subprocesses) keeps every test
offline and deterministic.
"""

import os

import pytest
from hypothesis import HealthCheck, settings

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
