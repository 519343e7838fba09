"""``carioca bench``: the quick path on tiny sizes, the JSON document, the command line.

No timed assertions: only structure and positive, finite figures.
"""

from __future__ import annotations

import argparse
import copy
import dataclasses
import importlib.util
import json
import math

import pytest

from carioca_experiments.cli import main
from carioca_experiments.evaluation import bench
from carioca_experiments.evaluation.bench import cli as bench_cli
from carioca_experiments.evaluation.bench import reference
from carioca_experiments.evaluation.bench.presentation import TABLE_WIDTH

#: Tiny sizes: every section runs in a few seconds.
TINY = bench.Sizes(
    engine_decisions=150,
    engine_contracts=(1, 7),
    full_game_seconds=0.2,
    full_game_max_games=1,
    env_steps=100,
    wrapper_steps=40,
    mask_states=2,
    mask_calls=1,
    mask_collect_games=30,
    ref_decisions=100,
    ref_steps=100,
    ppo_n_steps=32,
    ppo_min_steps=0,
    ppo_configs=("real.settings", "synthetic.settings", "real.settings.1env"),
    ppo_repeats=1,
    clone_states_per_contract=1,
    clone_calls=2,
    clone_search_decisions=2,
    clone_search_sims=2,
    play_heuristic_decisions=100,
    play_tournament_decks=1,
    play_wrapper_steps=60,
    play_search_states=1,
    play_search_sims=2,
)


def _positive(x: object) -> bool:
    return isinstance(x, (int, float)) and math.isfinite(x) and x > 0


@pytest.fixture(scope="module")
def doc() -> dict:
    out = bench.run_bench(sections=bench.SECTIONS, sizes=TINY, seed=3, repeats=2, progress=False)
    return json.loads(json.dumps(out, default=str))  # what the JSON file holds


def test_document_structure(doc: dict) -> None:
    assert doc["format"] == bench.FORMAT and doc["version"] == bench.VERSION
    assert doc["errors"] == []
    assert doc["sections"] == list(bench.SECTIONS)
    assert doc["sizes"]["engine_decisions"] == 150
    assert doc["train_settings"] == json.loads(json.dumps(bench.TRAIN_SETTINGS))
    machine = doc["machine"]
    for key in ("python", "cpu_count", "packages", "git_commit", "loadavg"):
        assert key in machine
    assert machine["packages"]["torch"]
    for key, m in doc["metrics"].items():
        prefix = key.split(".")[0]
        assert m["section"] == {"ref": "reference"}.get(prefix, prefix)
        for field in ("label", "unit", "median", "min", "max", "values", "extra", "higher_is_better"):
            assert field in m, (key, field)


def test_rates_are_positive_and_finite(doc: dict) -> None:
    metrics = doc["metrics"]
    expected = [f"engine.decisions.p{n}.c{k}" for n in (2, 4) for k in (1, 7)]
    expected += ["env.aec.p2", "env.aec.p4", "env.wrapper.p2", "ppo.real.settings", "ppo.synthetic.settings"]
    expected += [f"masks.p{n}.{kind}" for n in (2, 4) for kind in ("draw", "play_no_opening", "play_opening")]
    expected += ["masks.p2.observation", "masks.p4.observation"]
    for key in expected:
        m = metrics[key]
        assert len(m["values"]) == (1 if key.startswith("ppo.") else 2), key
        assert all(_positive(v) for v in m["values"]), (key, m["values"])
        assert m["min"] <= m["median"] <= m["max"], key
    for key, m in metrics.items():
        if key.startswith("masks.") and m["extra"][0].get("states"):
            assert all(_positive(v) for v in m["values"]), key
    for n in (2, 4):
        full = metrics[f"engine.full_game.p{n}"]
        assert len(full["extra"]) == 1  # measured once
        extra = full["extra"][0]
        assert extra["games_completed"] > 0 or extra["unfinished"] is not None
        assert _positive(extra["decisions_per_s"])
    ppo = metrics["ppo.real.settings"]["extra"][0]
    assert ppo["timesteps"] == 32 and 0 < ppo["rollout_share"] <= 1
    assert metrics["ppo.real.settings.1env"]["extra"][0]["timesteps"] == 32


def test_references_or_install_hint(doc: dict) -> None:
    metrics = doc["metrics"]
    if importlib.util.find_spec("pyspiel") is not None:
        for key in ("ref.openspiel.decisions", "ref.openspiel.decisions_obs"):
            assert all(_positive(v) for v in metrics[key]["values"])
            assert metrics[key]["extra"][0]["decisions"] == TINY.ref_decisions
        ratios = {r["key"]: r for r in doc["ratios"]}
        assert _positive(ratios["engine.p2.c1/openspiel"]["ratio"])
        assert _positive(ratios["env.p2/openspiel_obs"]["ratio"])
    else:
        assert any("pip install .[bench]" in m and "OpenSpiel" in m for m in doc["messages"])
    if importlib.util.find_spec("rlcard") is not None:
        assert all(_positive(v) for v in metrics["ref.rlcard.steps"]["values"])
    else:
        assert any("pip install .[bench]" in m and "RLCard" in m for m in doc["messages"])
    for r in doc["ratios"]:
        assert _positive(r["ratio"])


def test_clone_section(doc: dict) -> None:
    metrics = doc["metrics"]
    for key in ("clone.deepcopy.p2", "clone.clone.p2", "clone.pickle.p2", "clone.determinize.p2",
                "clone.rollout.heuristic.p2"):
        assert len(metrics[key]["values"]) == 2 and all(_positive(v) for v in metrics[key]["values"]), key
    search = metrics["clone.search.decision.p2"]
    assert len(search["values"]) == 1 and _positive(search["median"])
    assert search["extra"][0]["sims"] == 2 and search["extra"][0]["decisions"] == 2
    for belief in ("learned", "inferred"):  # the same states, another belief
        other = metrics[f"clone.search.decision.p2.{belief}"]
        assert _positive(other["median"]) and other["extra"][0]["decisions"] == 2
    for belief in ("learned",):  # through deals: 2 searched decisions in each of 3
        game = metrics[f"clone.search.game.p2.{belief}"]
        assert _positive(game["median"]) and game["extra"][0]["searched"] == 6
    ratios = {r["key"]: r for r in doc["ratios"]}
    assert _positive(ratios["clone/deepcopy"]["ratio"])
    assert _positive(ratios["search.inferred/default"]["ratio"]) and _positive(ratios["search.inferred/learned"]["ratio"])
    if importlib.util.find_spec("pyspiel") is not None:
        assert _positive(ratios["clone/openspiel"]["ratio"])
        assert metrics["clone.openspiel"]["extra"][0]["states"] == metrics["clone.clone.p2"]["extra"][0]["states"]


def test_table_mentions_every_metric(doc: dict) -> None:
    table = bench.format_table(doc)
    for m in doc["metrics"].values():
        assert m["label"] in table
    # notes and ratios wrap inside their cells instead of running to 220 columns
    assert max(len(line) for line in table.splitlines()) <= TABLE_WIDTH == 120


def test_the_table_keeps_its_width_when_figures_and_ratio_names_grow(doc: dict) -> None:
    # figures of 10+ characters and long reference names (OpenSpiel and RLCard installed)
    # made a 124-column table before the ratio column took only the room left
    wide = copy.deepcopy(doc)
    for m in wide["metrics"].values():  # 10-character figures: "1,234.6 us", "1,234.56 s", "12,345,678"
        m["median"] = m["min"] = m["max"] = 1_234.56 if m["unit"] in ("us", "s") else 12_345_678.0
    for r in wide["ratios"]:
        r["against"] = "OpenSpiel gin_rummy clone with observation tensors " + r["against"]
    table = bench.format_table(wide)
    assert max(len(line) for line in table.splitlines()) <= TABLE_WIDTH
    for r in wide["ratios"]:  # every ratio still shows, whole, if wrapped
        assert f"{r['ratio']:.2f}x" in table and "tensors" in table


def test_help_exits_zero(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["bench", "--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    for option in ("--quick", "--seed", "--repeats", "--out", "--only"):
        assert option in out


def test_command_line_writes_json(tmp_path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    monkeypatch.setattr(bench_cli, "QUICK", TINY)  # where run() reads it
    out = tmp_path / "sub" / "b.json"
    code = main(["bench", "--quick", "--only", "masks", "engine", "--repeats", "1", "--seed", "5",
                 "--out", str(out), "--no-progress", "--full-game-seconds", "0"])
    assert code == 0
    data = json.loads(out.read_text())
    assert data["sections"] == ["engine", "masks"] and data["seed"] == 5 and data["repeats"] == 1
    assert not any(k.startswith("engine.full_game") for k in data["metrics"])
    assert all(k.split(".")[0] in ("engine", "masks") for k in data["metrics"])
    printed = capsys.readouterr().out
    assert "decisions/s 2p contract 1" in printed and str(out) in printed


def test_missing_reference_prints_install_hint(monkeypatch: pytest.MonkeyPatch) -> None:
    real_import = reference.importlib.import_module

    def fake_import(name: str, *args: object) -> object:
        if name in ("pyspiel", "rlcard"):
            raise ImportError(f"No module named {name!r}")
        return real_import(name, *args)

    monkeypatch.setattr(reference.importlib, "import_module", fake_import)
    messages: list[str] = []
    assert bench.reference_units(TINY, 0, messages) == []
    assert len(messages) == 2 and all("pip install .[bench]" in m for m in messages)


def _bench_args(*argv: str) -> object:
    parser = argparse.ArgumentParser()
    bench_cli.add_arguments(parser)
    return parser.parse_args(list(argv))


def test_config_from_args_reads_every_option(tmp_path) -> None:
    out = tmp_path / "new" / "b.json"
    config = bench_cli.config_from_args(_bench_args(
        "--quick", "--only", "ppo", "engine", "--seed", "7", "--full-game-seconds", "0",
        "--out", str(out), "--profile", "--no-progress"))
    # sections in SECTIONS order, whatever order --only gave them in
    assert config.sections == ("engine", "ppo")
    assert config.sizes == dataclasses.replace(bench.QUICK, full_game_seconds=0.0)
    assert (config.seed, config.repeats, config.out, config.profile, config.progress) == (7, 2, out, True, False)
    assert out.parent.is_dir() and not out.exists()  # the folder made ready, the file not written
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.seed = 1  # type: ignore[misc]


def test_config_from_args_defaults_to_the_full_run(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    config = bench_cli.config_from_args(_bench_args())
    assert config.sections == bench.SECTIONS and config.sizes == bench.FULL
    assert (config.seed, config.repeats, config.profile, config.progress) == (0, 3, False, True)
    assert config.out.parent == bench_cli.Path("results") and config.out.name.startswith("bench-")


def test_config_from_args_refuses_an_unwritable_out_before_measuring(tmp_path) -> None:
    with pytest.raises(IsADirectoryError, match="--out"):
        bench_cli.config_from_args(_bench_args("--quick", "--out", str(tmp_path)))
