"""`tftui run` works each fact about its flow out once and hands it on: the flow file is read
once (the journal's flow.json is the text that was checked, not a second read that may find a
newer version), the settings are read once (the admission, the runner choice, the credentials
check and the glyphs all use them), and the `--arg` list is parsed once."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import tftui.commands.flow_args as flow_args_module
import tftui.config as config_module
import tftui.flow.load as load_module

SAMPLES = Path(__file__).resolve().parents[2] / "sample_flows"


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[str]]:
    seen: dict[str, list[str]] = {"file": [], "config": [], "args": []}
    read_file, read_bytes = load_module.read_regular_file, Path.read_bytes
    load_config, parse = config_module.load_config, flow_args_module.parse_arg_list

    def counting_read(path, limit):  # type: ignore[no-untyped-def]
        seen["file"].append(Path(path).name)
        return read_file(path, limit)

    def counting_bytes(self: Path) -> bytes:
        if self.suffix == ".json" and not self.name.endswith(".replies.json"):
            seen["file"].append(self.name)
        return read_bytes(self)

    def counting_config(*args, **kwargs):  # type: ignore[no-untyped-def]
        seen["config"].append("load")
        return load_config(*args, **kwargs)

    def counting_parse(items):  # type: ignore[no-untyped-def]
        seen["args"].append(" ".join(items))
        return parse(items)

    monkeypatch.setattr(load_module, "read_regular_file", counting_read)
    monkeypatch.setattr(Path, "read_bytes", counting_bytes)
    monkeypatch.setattr(config_module, "load_config", counting_config)
    monkeypatch.setattr(flow_args_module, "parse_arg_list", counting_parse)
    return seen


def test_one_read_of_the_file_and_the_settings(tftui, tmp_path: Path, reads: dict[str, list[str]]) -> None:
    flow = tmp_path / "race.json"
    flow.write_bytes(b"\xef\xbb\xbf" + (SAMPLES / "subflow_race.json").read_bytes())  # a BOM, kept in the copy
    (tmp_path / "race.replies.json").write_bytes((SAMPLES / "subflow_race.replies.json").read_bytes())
    (tmp_path / "flows").mkdir()
    (tmp_path / "flows" / "summarize.json").write_bytes((SAMPLES / "flows" / "summarize.json").read_bytes())
    done = tftui("run", str(flow), "--arg", "topic=x", "--no-wait", "--json")
    assert done.code == 0, done.stderr
    # the saved flow a `use` names is the engine's to read, when the phase runs
    assert reads["file"].count("race.json") == 1, reads["file"]
    assert reads["config"] == ["load"]
    assert reads["args"] == ["topic=x"]
    run_dir = Path(done.json()["run_dir"])
    assert (run_dir / "flow.json").read_bytes() == flow.read_bytes()


def test_a_typo_in_an_arg_name_is_still_refused(tftui, tmp_path: Path, reads: dict[str, list[str]]) -> None:
    flow = tmp_path / "f.json"
    flow.write_text(json.dumps({"name": "f", "args": {"topic": {}}, "phases": [{"id": "a", "task": "{args.topic}"}]}))
    (tmp_path / "f.replies.json").write_text(json.dumps({"a": "A"}))
    done = tftui("run", str(flow), "--arg", "tpoic=x", "--arg", "other:=1")
    assert done.code == 2 and "did you mean 'topic'" in done.stderr
    assert reads["args"] == ["tpoic=x other:=1"]
    ok = tftui("run", str(flow), "--arg", "topic=x", "--arg", "other:=1")
    assert ok.code == 0 and "neither declares nor uses 'other'" in ok.stderr and ok.stdout == "A\n"
