"""The luck correction where the training stages measure strength: ``carioca train``'s
periodic evaluations (``--luck-correction``: the corrected difference beside the raw one in
``eval.csv``, the card and the printed result; the value function's fingerprint recorded
in ``run.json`` and kept on resume; a resume that would mix value functions or mix
corrected with uncorrected evaluations refused) and ``train-all``'s tables."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from carioca_experiments.evaluation.luck import (
    SHIPPED_BY_VERSION,
    load_value,
    shipped_value,
    shipped_version,
    shipped_versions,
)
from carioca_experiments.evaluation.tournament import TournamentConfig, run_tournament
from carioca_experiments.training.train import TrainConfig, TrainError, evaluate, read_eval_csv, train

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = ROOT / "agents" / "models" / "contract1"
#: Tiny settings for plumbing tests (no learning expected).
TINY = {"rollout_steps": 256, "batch_size": 128, "n_epochs": 1, "net_arch": [16]}


def _tiny(**kw) -> TrainConfig:
    base = dict(contract=1, steps=256, n_envs=2, vec="dummy", settings=TINY, eval_every=0, eval_decks=2,
                eval_opponents=("random",), eval_max_turns=60, checkpoint_every=256, tensorboard=False)
    base.update(kw)
    return TrainConfig(**base)


def _oldest_other_value() -> str:
    """The fingerprint of a shipped value function that is not the newest (a run recorded
    when it was the default)."""
    newest = shipped_value().fingerprint
    older = [shipped_version(v).fingerprint for v in shipped_versions() if shipped_version(v).fingerprint != newest]
    assert older, "the package ships a single value function"
    return older[0]


def test_evaluate_reports_the_corrected_difference_beside_the_unchanged_raw_one(tmp_path: Path) -> None:
    """Each evaluation row holds learner minus opponent, raw and luck-corrected: the raw
    fields are those of the uncorrected evaluation, the corrected ones those of the same
    tournament's pair read from the learner's side, and the fingerprint."""
    cfg = _tiny(eval_decks=3, eval_opponents=("greedy",))
    fp = shipped_value().fingerprint
    (raw,) = evaluate(SHIPPED / "model.zip", cfg, 7, tmp_path / "raw")
    (cor,) = evaluate(SHIPPED / "model.zip", cfg, 7, tmp_path / "cor", luck=fp)
    assert "corrected_diff_mean" not in raw and "luck" not in raw
    assert {k: v for k, v in cor.items() if not k.startswith("corrected_") and k != "luck"} == raw
    assert cor["luck"] == fp
    assert cor["corrected_diff_ci_low"] < cor["corrected_diff_mean"] < cor["corrected_diff_ci_high"]
    # the same tournament played on its own: its pair (in whatever order it is stored)
    tc = TournamentConfig(agents=(f"learner=ppo:{SHIPPED / 'model.zip'}", "greedy=greedy"), players=2, contracts=(1,),
                          decks=3, seed=cfg.eval_seed, max_turns=60, luck=fp)
    s = run_tournament(tc, tmp_path / "direct", workers=1, progress=False, log=lambda m: None)
    (p,) = s.pairs
    sign = 1.0 if p.agent_x == "learner" else -1.0
    assert math.isclose(cor["corrected_diff_mean"], sign * p.corrected_diff)
    assert math.isclose(cor["diff_mean"], sign * p.mean_diff)
    assert sorted((cor["corrected_diff_ci_low"], cor["corrected_diff_ci_high"])) == \
        sorted((sign * p.corrected_low, sign * p.corrected_high))
    assert cor["corrected_diff_mean"] != cor["diff_mean"]  # the correction did something on these decks


def test_a_corrected_run_records_its_value_function_and_a_resume_keeps_it(tmp_path: Path) -> None:
    """``run.json`` records the fingerprint; a resumed run keeps the recorded one even when
    another is the newest shipped (here: a run recorded when version 1 was the default),
    so its learning curve is corrected by one value function throughout."""
    out = tmp_path / "run"
    first = train(_tiny(luck_correction=True), out, progress=False, log=lambda m: None)
    fp = shipped_value().fingerprint
    assert json.loads((out / "run.json").read_text())["config"]["eval_luck"] == fp
    (row,) = read_eval_csv(out / "eval.csv")
    assert row["luck"] == fp and not math.isnan(row["corrected_diff_mean"])
    assert first.card["evaluation"]["luck"] == fp
    # the run as it would have been recorded under an older default
    old = _oldest_other_value()
    run = json.loads((out / "run.json").read_text())
    run["config"]["eval_luck"] = old
    (out / "run.json").write_text(json.dumps(run))
    second = train(_tiny(steps=512, luck_correction=True), out, progress=False, log=lambda m: None)
    assert second.resumed_from == 256
    last = [r for r in read_eval_csv(out / "eval.csv") if r["steps"] == 512]
    assert [r["luck"] for r in last] == [old] and second.card["evaluation"]["luck"] == old
    assert json.loads((out / "run.json").read_text())["config"]["eval_luck"] == old


@pytest.mark.parametrize("first,then,words", [
    (False, True, "not luck-corrected, this command's would be luck-corrected"),
    (True, False, "luck-corrected with the value function v"),
])
def test_a_resume_that_would_mix_corrected_and_raw_evaluations_is_refused(tmp_path: Path, first: bool, then: bool,
                                                                          words: str) -> None:
    out = tmp_path / "run"
    train(_tiny(luck_correction=first), out, progress=False, log=lambda m: None)
    before = {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    with pytest.raises(TrainError, match="--luck-correction: the folder's evaluations are") as err:
        train(_tiny(steps=512, luck_correction=then), out, progress=False, log=lambda m: None)
    assert words in str(err.value) and "cannot mix them" in str(err.value)
    assert {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()} == before
    # --overwrite starts afresh with the new choice
    train(_tiny(steps=256, luck_correction=then), out, progress=False, overwrite=True, log=lambda m: None)
    assert ("eval_luck" in json.loads((out / "run.json").read_text())["config"]) is then


def test_a_recorded_value_function_this_version_does_not_ship_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "run"
    train(_tiny(luck_correction=True), out, progress=False, log=lambda m: None)
    run = json.loads((out / "run.json").read_text())
    run["config"]["eval_luck"] = "v9-000000000000"
    (out / "run.json").write_text(json.dumps(run))
    with pytest.raises(TrainError, match="--luck-correction: no luck value function .* 'v9-000000000000'"):
        train(_tiny(steps=512, luck_correction=True), out, progress=False, log=lambda m: None)
    assert [r["steps"] for r in read_eval_csv(out / "eval.csv")] == [256]


def test_a_corrected_evaluation_without_a_model_is_refused_before_anything_runs(tmp_path: Path,
                                                                                 monkeypatch) -> None:
    from carioca_experiments.evaluation.luck import value as value_module

    # a default value function without 3-player models (version 2; version 3 has them)
    monkeypatch.setattr(value_module, "_LOADED", {value_module.SHIPPED_FILE: load_value(SHIPPED_BY_VERSION[2])})
    out = tmp_path / "run"
    with pytest.raises(TrainError, match="--luck-correction: .*no model for 3 players"):
        train(_tiny(players=3, luck_correction=True), out, progress=False, log=lambda m: None)
    assert not out.exists()
    with pytest.raises(TrainError, match="luck_correction must be True or False"):
        _tiny(luck_correction="yes")


def test_the_train_command_prints_and_records_the_corrected_difference(tmp_path: Path,
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    from carioca_experiments.cli import main

    out = tmp_path / "cli"
    code = main(["train", "--contract", "1", "--steps", "256", "--n-envs", "2", "--set", "rollout_steps=256",
                 "--set", "net_arch=16", "--eval-every", "0", "--eval-decks", "2", "--eval-opponents", "random",
                 "--eval-max-turns", "60", "--luck-correction", "--out", str(out), "--no-progress", "--no-tensorboard"])
    assert code == 0
    text = capsys.readouterr().out
    (row,) = read_eval_csv(out / "eval.csv")
    assert f"luck-corrected {row['corrected_diff_mean']:+6.1f}" in text
    assert f"luck-corrected with the value function {shipped_value().fingerprint}" in text
    card = json.loads((out / "model.json").read_text())
    assert "--luck-correction" in card["command"] and card["evaluation"]["luck"] == shipped_value().fingerprint


def test_a_pair_read_from_either_side() -> None:
    """``PairStats.seen_from``: y's side negates every difference and swaps every
    interval's ends; read back from x's side it is the pair itself."""
    from carioca_experiments.evaluation.tournament import PairStats

    p = PairStats("1", "a", "b", 10, -2.0, -5.0, 1.0, 3.0, 8, -1.0, -4.0, 2.0, 3.0, -1.5, -3.5, 0.5, 2.0)
    q = p.seen_from("b")
    assert (q.agent_x, q.agent_y, q.decks, q.h2h_decks) == ("b", "a", 10, 8)
    assert (q.mean_diff, q.ci_low, q.ci_high, q.ci_half) == (2.0, -1.0, 5.0, 3.0)
    assert (q.h2h_diff, q.h2h_low, q.h2h_high) == (1.0, -2.0, 4.0)
    assert (q.corrected_diff, q.corrected_low, q.corrected_high, q.corrected_half) == (1.5, -0.5, 3.5, 2.0)
    assert q.seen_from("a") == p and p.seen_from("a") is p
    assert q.corrected_significant is p.corrected_significant and q.significant is p.significant
    with pytest.raises(ValueError, match="'c' is not in the pair"):
        p.seen_from("c")


# --------------------------------------------------------------------------- train-all's tables


def _tournament(tmp_path: Path, name: str, agents: tuple[str, ...], players: int, decks: int, seed: int,
                luck: bool = True):
    tc = TournamentConfig(agents=agents, players=players, contracts=(1,), decks=decks, seed=seed, max_turns=60,
                          luck=shipped_value().fingerprint if luck else None)
    return run_tournament(tc, tmp_path / name, workers=1, progress=False, log=lambda m: None)


def test_final_rows_hold_the_corrected_difference_of_the_tournament(tmp_path: Path) -> None:
    """``learned_set.paired_rows`` of a luck-corrected two-agent tournament: raw and
    corrected are the tournament's own pair read from the learned agent's side."""
    from carioca_experiments.training.learned_set import final_table, paired_rows

    s = _tournament(tmp_path, "two", ("im_c1=ppo:contract1", "heuristic"), 2, 4, 11)
    (row,) = paired_rows(tmp_path / "two" / "results.jsonl", baselines=("heuristic",))
    pair = s.pair("im_c1", "heuristic")
    assert row["luck"] == shipped_value().fingerprint and row["decks"] == 4
    assert math.isclose(row["diff"], pair.mean_diff) and math.isclose(row["corrected_diff"], pair.corrected_diff)
    assert (row["corrected_low"], row["corrected_high"]) == pytest.approx((pair.corrected_low, pair.corrected_high))
    assert row["corrected_significant"] is pair.corrected_significant
    table = final_table([row])
    assert "| luck-corrected | 95% CI | sig. |" in table.splitlines()[0]
    assert (f"| 2 | 1 | im_c1 | heuristic | 4 | {pair.mean_diff:+.1f} | [{pair.ci_low:+.1f}, {pair.ci_high:+.1f}] | "
            f"{'*' if pair.significant else ''} | {pair.corrected_diff:+.1f} | [{pair.corrected_low:+.1f}, "
            f"{pair.corrected_high:+.1f}] |") in table
    assert shipped_value().fingerprint in table
    # an uncorrected tournament keeps the table as it was
    _tournament(tmp_path, "raw", ("im_c1=ppo:contract1", "heuristic"), 2, 4, 11, luck=False)
    (raw,) = paired_rows(tmp_path / "raw" / "results.jsonl", baselines=("heuristic",))
    assert "corrected_diff" not in raw and raw["diff"] == row["diff"]
    assert "luck" not in final_table([raw]) and final_table([raw]).splitlines()[0].endswith("| sig. |")
    # a corrected and an uncorrected row in one table: "-" where there is no correction
    mixed = final_table([row, {**raw, "agent": "ppo_c1"}])
    assert "| 2 | 1 | ppo_c1 | heuristic | 4 |" in mixed and mixed.count(" - | - | |") == 1


def test_final_rows_at_four_players_against_the_mean_of_the_table_mates(tmp_path: Path) -> None:
    """One learned agent among three heuristics: per deck, its corrected penalty minus the
    mean of its three table-mates' corrected penalties, averaged over the rotations."""
    from carioca_experiments.common.stats import paired_difference
    from carioca_experiments.training.learned_set import paired_rows

    _tournament(tmp_path, "four", ("im_c1=ppo:contract1-p4", "heuristic1=heuristic", "heuristic2=heuristic",
                                   "heuristic3=heuristic"), 4, 3, 12)
    (row,) = paired_rows(tmp_path / "four" / "results.jsonl", baselines=("heuristic",))
    deals = [json.loads(x) for x in (tmp_path / "four" / "results.jsonl").read_text().splitlines()[1:]]
    assert len(deals) == 12  # 3 decks x 4 rotations
    mine: dict[int, list[float]] = {}
    theirs: dict[int, list[float]] = {}
    for d in deals:
        c = [p - luck for p, luck in zip(d["penalty"], d["luck"])]
        s = d["seats"].index("im_c1")
        mine.setdefault(d["deck"], []).append(c[s])
        theirs.setdefault(d["deck"], []).append(sum(c[t] for t in range(4) if t != s) / 3)
    ci = paired_difference({k: sum(v) / 4 for k, v in mine.items()}, {k: sum(v) / 4 for k, v in theirs.items()})
    assert row["decks"] == 3 and row["players"] == 4
    assert row["corrected_diff"] == pytest.approx(ci.mean) and row["corrected_low"] == pytest.approx(ci.low)
    assert row["corrected_diff"] != pytest.approx(row["diff"])


def test_final_rows_pool_tournaments_of_two_seeds_and_refuse_mixed_corrections(tmp_path: Path) -> None:
    from carioca_experiments.training.learned_set import paired_rows

    agents = ("im_c1=ppo:contract1", "heuristic")
    _tournament(tmp_path, "a", agents, 2, 3, 21)
    _tournament(tmp_path, "b", agents, 2, 2, 22)
    (a,) = paired_rows(tmp_path / "a" / "results.jsonl", baselines=("heuristic",))
    (b,) = paired_rows(tmp_path / "b" / "results.jsonl", baselines=("heuristic",))
    (both,) = paired_rows([tmp_path / "a" / "results.jsonl", tmp_path / "b" / "results.jsonl"],
                          baselines=("heuristic",))
    assert both["decks"] == 5  # deck 0 of each seed counts twice, as two decks
    assert both["diff"] == pytest.approx((3 * a["diff"] + 2 * b["diff"]) / 5)
    assert both["corrected_diff"] == pytest.approx((3 * a["corrected_diff"] + 2 * b["corrected_diff"]) / 5)
    _tournament(tmp_path, "raw", agents, 2, 2, 23, luck=False)
    with pytest.raises(ValueError, match="different luck value functions"):
        paired_rows([tmp_path / "a" / "results.jsonl", tmp_path / "raw" / "results.jsonl"])
    _tournament(tmp_path, "p4", ("im_c1=ppo:contract1-p4", "heuristic1=heuristic", "heuristic2=heuristic",
                                 "heuristic3=heuristic"), 4, 1, 24)
    with pytest.raises(ValueError, match="different player counts"):
        paired_rows([tmp_path / "a" / "results.jsonl", tmp_path / "p4" / "results.jsonl"])


def test_train_all_tables_show_the_corrected_difference_beside_the_raw_one(tmp_path: Path, monkeypatch) -> None:
    """``train-all --luck-correction``: results.md and pairs.csv show each pair's corrected
    difference beside the raw one (the numbers of the tournament's summary), the training
    runs are asked for corrected evaluations, and without the flag the tables are as
    before."""
    import argparse
    import csv
    import shutil

    from carioca_experiments.training import train_all

    seen = []

    def copy_model(cfg, out, **kwargs) -> None:
        seen.append(cfg)
        shutil.copytree(SHIPPED, out, dirs_exist_ok=True)

    monkeypatch.setattr(train_all, "train", copy_model)
    parser = argparse.ArgumentParser()
    train_all.add_arguments(parser)
    texts = {}
    for name, extra in (("raw", []), ("cor", ["--luck-correction"])):
        out = tmp_path / name
        args = parser.parse_args(["--quick", "--contracts", "1", "--no-full", "--decks", "3", "--baselines", "greedy",
                                  "--workers", "1", "--no-progress", "--no-tensorboard", "--max-turns", "60",
                                  "--out", str(out), *extra])
        assert train_all.run(args) == 0
        texts[name] = (out / "results.md").read_text()
        assert seen[-1].luck_correction is bool(extra)
        assert ("--luck-correction" in seen[-1].command) is bool(extra)
    assert "luck-corrected" not in texts["raw"]
    (p,) = json.loads((tmp_path / "cor" / "tournaments" / "contract1" / "summary.json").read_text())["pairs"]
    assert p["corrected_diff"] is not None
    assert "| contract | x - y | mean diff | 95% CI | luck-corrected | 95% CI |" in texts["cor"]
    line = next(x for x in texts["cor"].splitlines() if x.startswith(f"| 1 | {p['agent_x']} - {p['agent_y']} |"))
    assert f"| {p['mean_diff']:+.1f} |" in line and f"| {p['corrected_diff']:+.1f} |" in line
    assert f"[{p['corrected_low']:+.1f}, {p['corrected_high']:+.1f}]" in line
    assert shipped_value().fingerprint in texts["cor"]
    with open(tmp_path / "cor" / "pairs.csv", newline="") as fh:
        (row,) = list(csv.DictReader(fh))
    assert float(row["corrected_diff"]) == pytest.approx(p["corrected_diff"], abs=1e-3)
    with open(tmp_path / "raw" / "pairs.csv", newline="") as fh:
        assert "corrected_diff" not in next(csv.reader(fh))


# --------------------------------------------------------------------------- the replayed final tournament's tables
