"""Every command checks every option, agent spec, model and output path before it writes,
deletes or computes anything: a refused command line exits 2 with one paragraph, leaves a
finished run in ``--out`` byte for byte (``--overwrite`` included), creates no file or
folder, and starts none of its work (the work's entry point is replaced by one that fails
the test if it is called)."""

from __future__ import annotations

import importlib
import io
import sys
from pathlib import Path

import pytest

from carioca_experiments import cli

#: files of a finished run of every command (what a refusal must not touch)
PRIOR_RUN = ("data/heldout-0.npz", "learner/iter0.zip", "learner/epoch1.zip", "strength/results.jsonl",
             "imitation.csv", "improve.csv", "advantages.csv", "state.json", "model.zip", "model.json",
             "run.json", "eval.csv", "checkpoints/ckpt_100.zip", "experiment.json", "sweep.json", "sweep.csv",
             "results.jsonl", "summary.json", "pipeline.json")

#: (argv with {run} {a_file} {folder}, words of the message, "module:function" that is the work)
REFUSED = [
    ("imitate --out {run} --overwrite --teacher bogus", ["--teacher", "bogus", "unknown agent"],
     "carioca_experiments.training.imitate.pipeline:_generate"),
    ("imitate --out {run} --overwrite --opponents random bogus", ["--opponents", "bogus"],
     "carioca_experiments.training.imitate.pipeline:_generate"),
    ("imitate --out {run} --overwrite --teacher ppo:contract1-p4", ["--teacher", "made for 4 players", "2"],
     "carioca_experiments.training.imitate.pipeline:_generate"),
    ("imitate --out {a_file}/r --overwrite", ["--out", "a_file", "is a file"], "carioca_experiments.training.imitate.pipeline:_generate"),
    ("imitate --out {run} --overwrite --workers 0", ["--workers", ">= 1"], "carioca_experiments.training.imitate.pipeline:_generate"),
    ("improve --out {run} --overwrite --init no-such-model", ["--init", "no model file"],
     "carioca_experiments.studies.improve.pipeline:generate"),
    ("improve --out {run} --overwrite --teacher bogus", ["--teacher", "bogus"], "carioca_experiments.studies.improve.pipeline:generate"),
    ("improve --out {run} --overwrite --opponents bogus", ["--opponents", "bogus"],
     "carioca_experiments.studies.improve.pipeline:generate"),
    ("improve --out {a_file}/r --overwrite", ["--out", "a_file"], "carioca_experiments.studies.improve.pipeline:generate"),
    ("train --out {run} --overwrite --steps 64 --opponents bogus", ["--opponents", "bogus"],
     "carioca_experiments.training.train.loop:make_vec_env"),
    ("train --out {run} --overwrite --steps 64 --eval-opponents bogus", ["--eval-opponents", "bogus"],
     "carioca_experiments.training.train.loop:make_vec_env"),
    ("train-all --quick --out {run} --baselines bogus", ["--baselines", "bogus"], "carioca_experiments.training.train_all:train"),
    ("train-all --quick --out {run} --opponents bogus", ["--opponents", "bogus"], "carioca_experiments.training.train_all:train"),
    ("train-all --quick --out {run} --baselines ppo:contract1-p4", ["--baselines", "made for 4 players"],
     "carioca_experiments.training.train_all:train"),
    ("train-all --quick --out {a_file}/r", ["a_file", "is a file"], "carioca_experiments.training.train_all:train"),
    # a Ray address where nothing answers (port 9 on the loopback): refused before experiment.json
    ("train-all --quick --out {run} --backend ray --address 127.0.0.1:9", ["nothing answers", "127.0.0.1:9"],
     "carioca_experiments.training.train_all:train"),
    ("train-all --quick --out {folder}/fresh --backend ray --address 127.0.0.1:9", ["nothing answers"],
     "carioca_experiments.training.train_all:train"),
    ("train-all --quick --pipeline imitate --out {folder}/fresh --backend ray --address 127.0.0.1:9",
     ["nothing answers"], "carioca_experiments.training.learned_set:run_pipeline"),
    ("train-all --quick --pipeline imitate --out {run} --ship oops", ["--ship 'oops'", "NAME=TARGET/PLAYERS"],
     "carioca_experiments.training.learned_set:run_pipeline"),
    ("train-all --quick --pipeline imitate --contracts 1 --out {run} --ship contract2=contract2/2/imitate",
     ["--ship", "does not make p2/contract2/imitate"], "carioca_experiments.training.learned_set:run_pipeline"),
    ("train-all --quick --pipeline imitate --contracts 1 --out {run} --ship contract1=contract1/2",
     ["--ship", "does not make p2/contract1/ppo"], "carioca_experiments.training.learned_set:run_pipeline"),
    ("train-all --quick --pipeline imitate --out {run} --export {a_file}/x", ["--export", "a_file"],
     "carioca_experiments.training.learned_set:run_pipeline"),
    ("sweep --quick --out {run} --opponents bogus", ["--opponents", "bogus"], "carioca_experiments.training.sweep:connect"),
    ("sweep --quick --out {run} --eval-opponent bogus", ["--eval-opponent", "bogus"], "carioca_experiments.training.sweep:connect"),
    ("sweep --quick --out {run} --eval-opponent ppo:contract1-p4", ["--eval-opponent", "made for 4 players"],
     "carioca_experiments.training.sweep:connect"),
    ("sweep --quick --out {a_file}/s", ["a_file", "is a file"], "carioca_experiments.training.sweep:connect"),
    ("sweep --quick --out {run} --seeds 1 1", ["--seeds", "distinct"], "carioca_experiments.training.sweep:connect"),
    ("sweep --quick --out {run} --grid batch_size=64/nope", ["--grid", "batch_size"], "carioca_experiments.training.sweep:connect"),
    ("tune-heuristic --out {a_file}/t.json --trials 1 --decks 1", ["--out", "a_file", "is a file"],
     "carioca_experiments.training.tune_heuristic:run_study"),
    ("tune-heuristic --out {folder} --trials 1 --decks 1", ["--out", "is a folder"],
     "carioca_experiments.training.tune_heuristic:run_study"),
    ("tune-heuristic --max-turns -1 --out {folder}/t.json", ["--max-turns", ">= 1", "-1"],
     "carioca_experiments.training.tune_heuristic:run_study"),
    ("tune-heuristic --max-turns 0 --out {folder}/t.json", ["--max-turns", ">= 1", "0"],
     "carioca_experiments.training.tune_heuristic:run_study"),
    ("tune-heuristic --start nope --out {folder}/t.json", ["--start", "nope"], "carioca_experiments.training.tune_heuristic:run_study"),
    ("tune-heuristic --contracts 8 --out {folder}/t.json", ["--contracts", "invalid choice: 8"],
     "carioca_experiments.training.tune_heuristic:run_study"),
    ("tune-heuristic --players 2 2 --out {folder}/t.json", ["--players", "distinct"],
     "carioca_experiments.training.tune_heuristic:run_study"),
    ("tune-heuristic --trials 0 --out {folder}/t.json", ["--trials"], "carioca_experiments.training.tune_heuristic:run_study"),
    ("bench --quick --full-game-seconds -5 --out {folder}/b.json", ["--full-game-seconds", ">= 0", "-5"],
     "carioca_experiments.evaluation.bench.cli:run_bench"),
    ("bench --quick --full-game-seconds nan --out {folder}/b.json", ["--full-game-seconds"],
     "carioca_experiments.evaluation.bench.cli:run_bench"),
    ("bench --quick --repeats 0 --out {folder}/b.json", ["--repeats"], "carioca_experiments.evaluation.bench.cli:run_bench"),
    ("demo --seed -1", ["--seed", ">= 0", "-1"], "carioca_experiments.apps.demo:Game"),
    ("play --bots random --save {folder}/p.json --seed -1", ["--seed", ">= 0"], "carioca_experiments.apps.play:play_game"),
    ("tournament --overwrite --no-progress --out {run} --agents bogus random", ["bogus"],
     "carioca_experiments.evaluation.tournament.runner:play_into"),
    ("tournament --overwrite --no-progress --out {run} --agents ppo:contract1-p4 random --players 2",
     ["trained for 4 players"], "carioca_experiments.evaluation.tournament.runner:play_into"),
]


def _tree(root: Path) -> dict[str, bytes | None]:
    """Every file (its bytes) and folder (None) under ``root``."""
    return {str(p.relative_to(root)): (p.read_bytes() if p.is_file() else None) for p in sorted(root.rglob("*"))}


@pytest.mark.parametrize("command, words, work", REFUSED, ids=[c[0][:60] for c in REFUSED])
def test_a_refused_command_touches_nothing_and_runs_no_work(tmp_path, monkeypatch, capsys, command, words, work) -> None:
    run = tmp_path / "run"
    for name in PRIOR_RUN:
        (run / name).parent.mkdir(parents=True, exist_ok=True)
        (run / name).write_bytes(f"finished {name}\n".encode())
    (tmp_path / "a_file").write_text("x\n")
    (tmp_path / "folder").mkdir()
    monkeypatch.chdir(tmp_path)
    module, _, name = work.partition(":")
    target = importlib.import_module(module)
    assert callable(getattr(target, name)), work

    def work_ran(*args, **kwargs):
        raise AssertionError(f"{work} ran before the command was refused")

    monkeypatch.setattr(target, name, work_ran)
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    before = _tree(tmp_path)
    argv = command.format(run=run, a_file=tmp_path / "a_file", folder=tmp_path / "folder").split()
    try:
        code = cli.main(argv)
    except SystemExit as exc:  # argparse: usage and status 2
        code = int(exc.code)
    out, err = capsys.readouterr()
    assert code == 2, err
    assert "Traceback" not in out + err and err.count("error:") == 1
    for w in words:
        assert w in err, (w, err)
    assert _tree(tmp_path) == before, "a refused command changed, deleted or created a file"


def test_catalogue_counts() -> None:
    """The closing note reports these counts; the test keeps them from silently shrinking."""
    assert len(REFUSED) >= 40
    assert len({c.split()[0] for c, _, _ in REFUSED}) >= 10
