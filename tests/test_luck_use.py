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

from experiments.evaluation.luck import SHIPPED_FILES, load_value, shipped_value
from experiments.evaluation.tournament import TournamentConfig, run_tournament
from experiments.training.train import TrainConfig, TrainError, evaluate, read_eval_csv, train

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
    older = [load_value(p).fingerprint for p in SHIPPED_FILES if load_value(p).fingerprint != newest]
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


def test_a_corrected_evaluation_at_three_players_is_refused_before_anything_runs(tmp_path: Path) -> None:
    out = tmp_path / "run"
    with pytest.raises(TrainError, match="--luck-correction: .*no model for 3 players"):
        train(_tiny(players=3, luck_correction=True), out, progress=False, log=lambda m: None)
    assert not out.exists()
    with pytest.raises(TrainError, match="luck_correction must be True or False"):
        _tiny(luck_correction="yes")


def test_the_train_command_prints_and_records_the_corrected_difference(tmp_path: Path,
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    from experiments.cli import main

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
    from experiments.evaluation.tournament import PairStats

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
