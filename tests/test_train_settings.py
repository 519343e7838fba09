"""`carioca train` / `train-all` refuse bad settings and options before anything is written."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from carioca_experiments.cli import main
from carioca_experiments.training.train import (
    SETTING_SPECS,
    TRAIN_SETTINGS,
    TrainConfig,
    TrainError,
    parse_settings,
    train,
)

BAD_SETTINGS = [
    ("batch_size=0", "batch_size"),
    ("batch_size=1", "batch_size"),
    ("batch_size=2.5", "batch_size"),
    ("ent_coef=abc", "ent_coef"),
    ("ent_coef=-0.1", "ent_coef"),
    ("ent_coef=nan", "ent_coef"),
    ("learning_rate=0", "learning_rate"),
    ("learning_rate=inf", "learning_rate"),
    ("gamma=1.5", "gamma"),
    ("n_epochs=0", "n_epochs"),
    ("rollout_steps=-8", "rollout_steps"),
    ("max_turns=0", "max_turns"),
    ("net_arch=0", "net_arch"),
    ("net_arch=64,x", "net_arch"),
    ("net_arch=", "net_arch"),
    ("kl_coef=-1", "kl_coef"),
    ("clip_range=0", "clip_range"),
]


@pytest.mark.parametrize("item,key", BAD_SETTINGS)
def test_bad_setting_is_refused_naming_it_and_what_is_allowed(item: str, key: str) -> None:
    with pytest.raises(TrainError) as err:
        parse_settings([item])
    msg = str(err.value)
    assert key in msg and "allowed" in msg and repr(item.partition("=")[2]) in msg
    assert isinstance(err.value, ValueError)


def test_good_settings_are_converted_to_their_types() -> None:
    s = parse_settings(["batch_size=128", "ent_coef=0.02", "net_arch=64,64", "rollout_steps=2e3", "gamma=1"])
    assert s == {"batch_size": 128, "ent_coef": 0.02, "net_arch": [64, 64], "rollout_steps": 2000, "gamma": 1.0}
    assert isinstance(s["batch_size"], int) and isinstance(s["gamma"], float)


def test_every_default_setting_passes_its_own_check() -> None:
    assert set(SETTING_SPECS) == set(TRAIN_SETTINGS)
    for k, v in TRAIN_SETTINGS.items():
        assert SETTING_SPECS[k].check(k, v) == v


@settings(max_examples=200, deadline=None)
@given(st.one_of(st.text(max_size=12), st.integers(-10**9, 10**9), st.floats(allow_nan=True)))
def test_any_value_either_passes_in_range_or_raises_a_train_error(value) -> None:
    spec = SETTING_SPECS["batch_size"]
    try:
        out = spec.check("batch_size", value)
    except TrainError as exc:
        assert "batch_size" in str(exc)
    else:
        assert isinstance(out, int) and 2 <= out <= 1 << 20


@pytest.mark.parametrize("kw,name", [
    ({"steps": -5}, "--steps"), ({"steps": 0}, "--steps"), ({"n_envs": 0}, "--n-envs"),
    ({"eval_decks": 0}, "--eval-decks"), ({"eval_every": -1}, "--eval-every"),
    ({"checkpoint_every": -1}, "--checkpoint-every"), ({"checkpoint_every": 0}, "--checkpoint-every"),
    ({"snapshot_every": 0}, "--snapshot-every"), ({"pool_size": 0}, "--pool-size"),
    ({"self_play_prob": 1.5}, "--self-play-prob"), ({"seed": -1}, "--seed"), ({"steps": True}, "--steps"),
    ({"eval_max_turns": 0}, "--eval-max-turns"), ({"eval_opponents": ()}, "--eval-opponents"),
])
def test_bad_options_are_refused_naming_them(kw: dict, name: str) -> None:
    with pytest.raises(TrainError, match=name):
        TrainConfig(**kw)


def test_a_refused_run_writes_nothing_so_the_corrected_rerun_works(tmp_path: Path, capsys) -> None:
    out = tmp_path / "run"
    base = ["train", "--contract", "1", "--steps", "64", "--n-envs", "1", "--eval-every", "0", "--eval-decks", "1",
            "--eval-opponents", "random", "--no-tensorboard", "--no-progress", "--out", str(out),
            "--set", "rollout_steps=64", "--set", "batch_size=32", "--set", "n_epochs=1", "--set", "net_arch=8"]
    assert main(base + ["--opponents", "bogus"]) == 2
    assert "bogus" in capsys.readouterr().err
    assert not out.exists()
    assert main(base + ["--set", "ent_coef=abc"]) == 2
    assert not out.exists()
    assert main(base + ["--opponents", "random"]) == 0
    assert (out / "model.zip").exists() and (out / "run.json").exists()


def test_unwritable_out_is_a_clear_error_not_an_os_traceback(tmp_path: Path, capsys) -> None:
    blocker = tmp_path / "afile"
    blocker.write_text("x")
    with pytest.raises(TrainError, match="is a file, not a folder"):
        train(TrainConfig(steps=64), blocker / "sub", progress=False)
    assert main(["train", "--steps", "64", "--out", str(blocker / "sub"), "--no-progress"]) == 2
    assert "afile" in capsys.readouterr().err
    assert main(["train-all", "--quick", "--out", str(blocker / "sub"), "--no-progress"]) == 2
    assert "not a folder" in capsys.readouterr().err
    assert blocker.read_text() == "x"


@pytest.mark.parametrize("args,name", [
    (["--steps", "-5"], "--steps"), (["--decks", "0"], "--decks"), (["--scale", "0"], "--scale"),
    (["--contracts", "8"], "--contracts"), (["--workers", "0"], "--workers"), (["--full-steps", "-1"], "--full-steps"),
])
def test_train_all_refuses_bad_numbers_before_training(tmp_path: Path, capsys, args: list[str], name: str) -> None:
    out = tmp_path / "exp"
    assert main(["train-all", "--out", str(out), "--no-progress", *args]) == 2
    err = capsys.readouterr().err
    assert name in err and "Traceback" not in err and "already trained" not in err
    assert not out.exists()


def test_a_missing_init_model_is_refused_before_anything_is_written(tmp_path: Path, capsys) -> None:
    out = tmp_path / "run"
    assert main(["train", "--init", str(tmp_path / "nothing"), "--steps", "64", "--out", str(out), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "--init" in err and "no model file" in err
    assert not out.exists()
