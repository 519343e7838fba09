"""Training a run: checks before anything is written, the callback (checkpoints, snapshots, evaluations,
progress), resuming, and the final model and card (:func:`train`)."""

from __future__ import annotations

import datetime as _dt
import json
import shutil
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from carioca_experiments.common.files import write_file
from carioca_experiments.training.train.config import TrainConfig
from carioca_experiments.training.train.environments import make_vec_env
from carioca_experiments.training.train.errors import TrainError
from carioca_experiments.training.train.evaluation import (
    _eval_text,
    _label,
    evaluate,
    has_corrected,
    read_eval_csv,
    write_eval_csv,
)
from carioca_experiments.training.train.files import (
    _steps_of,
    check_writable,
    latest_checkpoint,
    remove_run_files,
)
from carioca_experiments.training.train.models import (
    attach_anchor,
    load_init,
    make_model,
    model_class,
    package_versions,
    save_model,
)


@dataclass
class TrainResult:
    """What a run produced."""

    out: Path
    model_path: Path
    card: dict[str, Any]
    eval_rows: list[dict[str, Any]]
    num_timesteps: int
    wall_time_s: float
    resumed_from: int | None


def _make_callback(config: TrainConfig, out: Path, state: dict[str, Any], progress: bool,
                   say: Callable[[str], None]) -> Any:
    from stable_baselines3.common.callbacks import BaseCallback

    from carioca_experiments.common.progress import progress_bar

    class TrainCallback(BaseCallback):
        """Checkpoints, self-play snapshots, evaluations and the progress bar."""

        def _on_training_start(self) -> None:
            n = self.model.num_timesteps
            self.bar = progress_bar(total=config.steps, initial=n, unit="step", desc=f"train c{config.contract}",
                                    enabled=progress, smoothing=0.1, file=sys.stderr)
            self.shown = n
            self.marks = {"ckpt": n, "snap": n, "eval": n}

        def _due(self, key: str, every: int) -> bool:
            n = self.model.num_timesteps
            if every > 0 and n // every > self.marks[key] // every:
                self.marks[key] = n
                return True
            return False

        def _on_step(self) -> bool:
            n = self.model.num_timesteps
            self.bar.update(n - self.shown)
            self.shown = n
            if self._due("ckpt", config.checkpoint_every):
                save_checkpoint(self.model, out, state)
            if config.self_play and self._due("snap", config.snapshot_every):
                save_model(self.model, out / "snapshots" / f"snap_{n}.zip", state["card"](n), slim=True)
            if self._due("eval", config.eval_every):
                self.run_eval()
            return True

        def _on_rollout_end(self) -> None:
            buf = self.model.ep_info_buffer
            if buf:
                self.bar.set_postfix_str(
                    f"ep_ret {sum(e['r'] for e in buf) / len(buf):+.3f} | eval {state.get('eval_text', '-')}",
                    refresh=False)

        def run_eval(self) -> None:
            rows = run_evaluation(self.model, config, out, state)
            for r in rows:
                lab = _label(r["opponent"])
                for k in ("learner_mean", "opponent_mean", "diff_mean", "learner_open_rate", "learner_win_rate"):
                    self.logger.record(f"eval/{lab}/{k}", r[k])
                if has_corrected(r):
                    self.logger.record(f"eval/{lab}/corrected_diff_mean", r["corrected_diff_mean"])
            self.bar.set_postfix_str(f"eval {state['eval_text']}", refresh=True)

        def _on_training_end(self) -> None:
            self.bar.close()

    return TrainCallback()


def run_evaluation(model: Any, config: TrainConfig, out: Path, state: dict[str, Any]) -> list[dict[str, Any]]:
    """Evaluate the current model, append the rows to ``eval.csv``; returns the rows."""
    n = model.num_timesteps
    path = out / "eval" / "current.zip"
    save_model(model, path, state["card"](n), slim=True)
    rows = evaluate(path, config, n, out / "eval", wall_time=state["wall"](), luck=state.get("luck"))
    state["eval_rows"] = [r for r in state["eval_rows"] if r["steps"] != n] + rows
    write_eval_csv(out / "eval.csv", state["eval_rows"])
    state["eval_text"] = _eval_text(rows)
    return rows


def save_checkpoint(model: Any, out: Path, state: dict[str, Any]) -> Path:
    """Save a full checkpoint (and its sidecar with the wall time); keep the last three."""
    n = model.num_timesteps
    path = out / "checkpoints" / f"ckpt_{n}.zip"
    save_model(model, path, {"steps": n, "wall_time_s": state["wall"]()})
    old = sorted((out / "checkpoints").glob("ckpt_*.zip"), key=lambda p: _steps_of(p.stem))[:-3]
    for p in old:
        p.unlink(missing_ok=True)
        p.with_suffix(".json").unlink(missing_ok=True)
    return path


def _tensorboard_dir(config: TrainConfig, out: Path, say: Callable[[str], None]) -> str | None:
    if not config.tensorboard:
        return None
    try:
        import tensorboard  # noqa: F401
    except ImportError:
        say("note: tensorboard is not installed: no TensorBoard logs (pip install tensorboard); "
            "the learning curve is in eval.csv")
        return None
    return str(out / "tb")


def check_agents(config: TrainConfig) -> None:
    """Build every opponent and evaluation agent once, so a bad spec is refused before training.

    Raises:
        TrainError: naming the option and the spec.
    """
    from carioca_experiments.common.argtypes import check_agent_specs

    for option, specs in (("--opponents", config.opponents), ("--eval-opponents", config.eval_opponents)):
        check_agent_specs(option, specs, config.players, TrainError)


def eval_luck(config: TrainConfig, recorded: dict[str, Any] | None) -> str | None:
    """The fingerprint of the luck value function that corrects the run's evaluations
    (``None`` without ``luck_correction``): the one the run's ``run.json`` records
    (``recorded``: its config) when it records one, so that a resumed run's learning
    curve never mixes value functions when a newer one has shipped meanwhile, else the
    newest shipped one.

    Raises:
        TrainError: that value function has no model for the run's player count or
            contracts (3 players), or the recorded one is not shipped with this version.
    """
    if not config.luck_correction:
        return None
    from carioca_experiments.evaluation.luck import ValueFileError, shipped_value, value_by_fingerprint

    fingerprint = (recorded or {}).get("eval_luck")
    try:
        value = value_by_fingerprint(fingerprint) if fingerprint else shipped_value()
        for contract in config.eval_contracts:
            value.model(config.players, contract)
    except ValueFileError as exc:
        raise TrainError(f"--luck-correction: {exc}") from None
    return value.fingerprint


def _recorded_run(run_file: Path) -> dict[str, Any] | None:
    """The config a run folder's ``run.json`` records (``None``: a new run).

    Raises:
        TrainError: the file is unreadable.
    """
    if not run_file.exists():
        return None
    try:
        old = json.loads(run_file.read_text())["config"]
        if not isinstance(old, dict):
            raise TypeError("its config is not an object")
        return old
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise TrainError(f"{run_file} is unreadable ({exc}); move it away or pass --overwrite") from None


def _differences(old: dict[str, Any], defining: dict[str, Any]) -> list[str]:
    """What differs between a run folder's recorded config and this command's."""
    diffs = [f"{k}: the folder has {old.get(k)!r}, this command has {v!r}"
             for k, v in defining.items() if k != "eval_luck" and old.get(k) != v]
    was, now = old.get("eval_luck"), defining.get("eval_luck")
    if was != now:
        def said(x: Any) -> str:
            return f"luck-corrected with the value function {x}" if x else "not luck-corrected"

        diffs.append(f"--luck-correction: the folder's evaluations are {said(was)}, this command's would be "
                     f"{said(now)} (one learning curve cannot mix them)")
    return diffs


def train(config: TrainConfig, out: str | Path, progress: bool = True, overwrite: bool = False,
          log: Callable[[str], None] | None = None) -> TrainResult:
    """Train (or resume) a run into ``out``; see :mod:`carioca_experiments.training.train`.

    Raises:
        TrainError: a run folder of another run, or an unusable checkpoint.
    """
    import torch

    say = log or (lambda m: print(m, file=sys.stderr))
    from carioca_agents.threads import limit_torch_threads

    validate = torch.distributions.Distribution._validate_args
    threads = limit_torch_threads()  # small matrices: a second thread only waits (carioca_agents.threads)
    torch.distributions.Distribution.set_default_validate_args(False)  # no re-check of 2,191 logits per step
    try:
        return _train(config, Path(out), progress, overwrite, say)
    finally:
        torch.set_num_threads(threads)
        torch.distributions.Distribution.set_default_validate_args(validate)


def _train(config: TrainConfig, out: Path, progress: bool, overwrite: bool, say: Callable[[str], None]) -> TrainResult:
    from carioca_agents.ppo_agent import model_card

    check_agents(config)  # everything is checked before anything is written
    run_file = out / "run.json"
    recorded = None if overwrite else _recorded_run(run_file)
    luck = eval_luck(config, recorded)
    init_model = load_init(config)
    check_writable(out)
    if overwrite:
        remove_run_files(out, ("checkpoints", "snapshots", "eval", "tb", "eval.csv", "run.json", "model.zip",
                               "model.json"))
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise TrainError(f"--out {out}: cannot create the folder ({exc.strerror or exc}); choose another --out") from None
    defining = config.defining()
    if luck is not None:
        defining["eval_luck"] = luck
    if recorded is not None:
        diffs = _differences(recorded, defining)
        if diffs:
            raise TrainError(
                f"{out} holds another training run:\n  " + "\n  ".join(diffs)
                + "\nRepeat its options to resume it, choose another --out, or pass --overwrite to start afresh."
            )
    else:
        write_file(run_file, (json.dumps({"format": "carioca-train-run", "config": defining}, indent=1) + "\n").encode())

    ckpt = latest_checkpoint(out)
    resumed_from = None
    base_wall = 0.0
    eval_rows = read_eval_csv(out / "eval.csv")
    final = out / "model.zip"
    start_from = ckpt
    if ckpt is None and final.exists():
        start_from = final  # a cleaned folder (--clean): continue from the final model
    tb = _tensorboard_dir(config, out, say)
    snapshots = str(out / "snapshots") if config.self_play else None
    venv = make_vec_env(config, snapshots)
    try:
        if start_from is not None:
            try:
                side = json.loads(start_from.with_suffix(".json").read_text())
                from carioca_agents.model_file import legacy_objects
                from carioca_agents.ppo_agent import _rng_preserved

                with _rng_preserved():
                    model = model_class(config).load(str(start_from), env=venv, device="cpu", tensorboard_log=tb,
                                                     custom_objects=legacy_objects(start_from))
                if init_model is not None:
                    attach_anchor(model, config, init_model)
            except Exception as exc:  # noqa: BLE001
                raise TrainError(f"cannot resume from {start_from}: {type(exc).__name__}: {exc}; delete it to "
                                 f"resume from an earlier checkpoint, or pass --overwrite") from None
            resumed_from = int(model.num_timesteps)
            base_wall = float(side.get("wall_time_s", 0.0))
            eval_rows = [r for r in eval_rows if r["steps"] <= resumed_from]
            note = "" if start_from == ckpt else " (no checkpoint: from the final model, with a fresh optimizer state)"
            if resumed_from < config.steps:
                say(f"resuming {out} from {start_from.name}{note}: {resumed_from} steps done, training to {config.steps}")
        else:
            model = make_model(venv, config, tb, init_model)
        start = time.monotonic()
        state: dict[str, Any] = {"eval_rows": eval_rows, "luck": luck}
        state["wall"] = lambda: base_wall + time.monotonic() - start

        def card(n: int) -> dict[str, Any]:
            return model_card(
                config.players, features=config.merged_settings["features"], contract=config.contract, deals=list(config.deals), steps=n,
                seed=config.seed, command=config.command or f"carioca_experiments.training.train.train({config.defining()})",
                opponents=list(config.opponents),
                self_play=config.self_play, n_envs=config.n_envs, settings=config.merged_settings,
                wall_time_s=round(state["wall"](), 1), versions=package_versions(),
                created=_dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
            )

        state["card"] = card
        if init_model is not None and resumed_from is None and config.eval_every > 0 and not state["eval_rows"]:
            run_evaluation(model, config, out, state)  # the learning curve starts at the imitation policy
        remaining = config.steps - model.num_timesteps
        if remaining > 0:
            callback = _make_callback(config, out, state, progress, say)
            try:
                model.learn(total_timesteps=remaining, callback=callback, reset_num_timesteps=resumed_from is None,
                            tb_log_name="ppo", progress_bar=False)
            except KeyboardInterrupt:
                save_checkpoint(model, out, state)
                say(f"interrupted at {model.num_timesteps} steps: checkpoint saved; rerun the same command to resume")
                raise
        n = int(model.num_timesteps)
        if not any(r["steps"] == n for r in state["eval_rows"]):
            run_evaluation(model, config, out, state)
        save_checkpoint(model, out, state)
        wall = state["wall"]()
        last = [r for r in state["eval_rows"] if r["steps"] == n]
        final_card = card(n)
        final_card.update(
            wall_time_s=round(wall, 1),
            evaluation={"opponents": list(config.eval_opponents), "decks": config.eval_decks,
                        "seed": config.eval_seed, "contracts": list(config.eval_contracts),
                        "max_turns": config.eval_max_turns or config.merged_settings["max_turns"],
                        "luck": luck, "results": last},
            learning_curve="eval.csv",
            resumed_from=resumed_from,
        )
        save_model(model, final, final_card, slim=True)
        if config.clean:
            for name in ("checkpoints", "snapshots", "eval", "tb"):
                shutil.rmtree(out / name, ignore_errors=True)
    finally:
        venv.close()
    return TrainResult(out, final, final_card, state["eval_rows"], n, wall, resumed_from)
