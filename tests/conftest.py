"""Suite-wide isolation: no test reads the developer's own tftui configuration.

A user config with `default_provider` would otherwise make sample-flow tests call a real
model. Pointing XDG_CONFIG_HOME at a temp dir (inherited by subprocesses) keeps every test
offline and deterministic.
"""

import pytest


@pytest.fixture(autouse=True)
def _isolated_user_config(tmp_path_factory, monkeypatch):
    config_home = tmp_path_factory.mktemp("xdg-config")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config_home))
    for name in ("TFTUI_CONFIG", "TFTUI_PROVIDER", "TFTUI_AGENT_CMD", "NO_COLOR"):
        monkeypatch.delenv(name, raising=False)
