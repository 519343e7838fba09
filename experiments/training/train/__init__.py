"""``carioca train``: MaskablePPO on one learning seat, with a learning curve from duplicate deals.

Usage::

    carioca train --contract 1 --steps 200000 --out models/contract1
    carioca train --contract full --opponents random greedy --out runs/full
    carioca train --contract 3 --self-play --steps 500000 --out runs/c3-self
    carioca train --contract 1 --steps 400000 --out models/contract1   # resume / extend
    carioca train --contract 1 --n-envs 2 --vec subproc                # one process per env

or from Python::

    from carioca_experiments.training.train import TrainConfig, train
    config = TrainConfig(contract=1, steps=2_048, eval_decks=2, eval_opponents=("random",))
    result = train(config, "runs/c1", progress=False)     # a smoke run of a few seconds
    result.model_path, result.eval_rows[-1]

What is trained
    sb3-contrib ``MaskablePPO`` (an MLP policy) on :class:`~carioca_env.wrappers.CariocaSingleAgentEnv`
    with penalty rewards (minus the deal penalty, times ``reward_scale``), the learner's
    seat drawn per episode, and the other seats played by opponents: every episode each
    opponent seat draws one agent from ``--opponents`` (registry specs, default
    ``random``).  With ``--self-play`` an opponent seat plays, with probability
    ``--self-play-prob``, a frozen snapshot of the learner drawn from the last
    ``--pool-size`` snapshots (saved every ``--snapshot-every`` steps in
    ``OUT/snapshots``; the policy samples from its masked distribution), and otherwise one
    of ``--opponents``.  A deal cut off at ``max_turns`` (R17) is scored as the
    tournament scores it: the learner receives minus the penalty of the cards it still
    holds and the episode ends (so stalling never pays).

    The settings are :data:`TRAIN_SETTINGS` (fast ones for two CPU cores; ``--set
    KEY=VALUE`` overrides one).  ``--n-envs N`` environments (default 8) run in this
    process (``--vec dummy``, the default: on 2 cores one batched forward pass for 8
    steps beats worker processes, which pay pipe round trips per step), or one worker
    process each (``--vec subproc``; ``--vec auto``: subprocesses when N > 1, one
    in-process env when N = 1).  Every environment is the wrapper plus
    :class:`ScoreTruncation`, which also exposes ``action_masks`` for MaskablePPO.

What is written in ``--out``
    ``model.zip`` + ``model.json`` (the final model and its card: command line, seed,
    package versions, steps, wall time, layout fingerprint, players, contract, settings
    and the last evaluation; the zip holds no optimizer state, to stay small),
    ``eval.csv`` (the learning curve), ``run.json`` (what defines the run),
    ``checkpoints/ckpt_<steps>.zip`` (full state, every ``--checkpoint-every`` steps, the
    last three kept), ``tb/`` (TensorBoard, when ``tensorboard`` is installed),
    ``snapshots/`` (self-play).  ``--clean`` keeps only the model, its card,
    ``eval.csv`` and ``run.json`` at the end (a folder to ship, e.g. ``models/contract1``).

Evaluation (the learning curve)
    Every ``--eval-every`` steps (and at the end) the current model is saved to
    ``OUT/eval/current.zip`` and plays a duplicate tournament (:mod:`carioca_experiments.evaluation.tournament`,
    one process) as ``ppo:OUT/eval/current.zip`` against each ``--eval-opponents`` agent
    on the trained contract (all seven for ``full``), ``--eval-decks`` decks per contract,
    fixed seed ``--eval-seed``: the same deals at every evaluation.  One row per opponent
    goes to ``eval.csv``: steps, the learner's and the opponent's mean penalty per deal
    with 95% intervals, their paired difference (learner - opponent, negative = learner
    better) with its interval, the learner's open and win rates, truncated deals and the
    wall time.  The same numbers go to TensorBoard (``eval/<opponent>/...``) and the
    progress bar.

Resuming
    Run the same command again: when ``OUT/checkpoints`` holds a checkpoint the run
    resumes from the latest one (model, optimizer and ``num_timesteps``) and continues to
    ``--steps`` (which may be raised to train further); learning-curve rows after the
    checkpoint are dropped and evaluated again.  Ctrl-C saves a checkpoint first.  A
    folder without checkpoints (``--clean``) continues from ``model.zip`` with a fresh
    optimizer state.  The options that define the run must be the same (the error lists
    the differences); ``--overwrite`` starts afresh.

Modules (each answers one question)
    :mod:`.settings` the training settings and their checks; :mod:`.config` what one run
    is (:class:`TrainConfig`); :mod:`.environments` the training environments and
    opponent pools; :mod:`.models` building, loading and saving the model;
    :mod:`.evaluation` the learning curve (``eval.csv``); :mod:`.files` the run folder's
    files; :mod:`.loop` training, resuming and the final model (:func:`train`);
    :mod:`.cli` the command line; :mod:`.errors` :class:`TrainError`.
"""

from carioca_experiments.training.train.cli import (
    INTERRUPTED,
    add_arguments,
    command_line,
    config_from_args,
    print_result,
    run,
)
from carioca_experiments.training.train.config import DEFAULT_N_ENVS, DEFAULT_VEC, TrainConfig
from carioca_experiments.training.train.environments import (
    EnvFactory,
    OpponentPool,
    ScoreTruncation,
    make_env,
    make_vec_env,
)
from carioca_experiments.training.train.errors import TrainError
from carioca_experiments.training.train.evaluation import EVAL_COLUMNS, evaluate, read_eval_csv, write_eval_csv
from carioca_experiments.training.train.files import check_writable, latest_checkpoint
from carioca_experiments.training.train.loop import (
    TrainResult,
    check_agents,
    run_evaluation,
    save_checkpoint,
    train,
)
from carioca_experiments.training.train.models import (
    attach_anchor,
    load_init,
    make_model,
    model_class,
    package_versions,
    policy_kwargs,
    save_model,
)
from carioca_experiments.training.train.settings import (
    ALL_CONTRACTS,
    SETTING_SPECS,
    TRAIN_SETTINGS,
    SettingSpec,
    check_settings,
    init_settings,
    parse_contract,
    parse_settings,
)

__all__ = [
    "ALL_CONTRACTS", "DEFAULT_N_ENVS", "DEFAULT_VEC", "EVAL_COLUMNS", "INTERRUPTED", "SETTING_SPECS", "TRAIN_SETTINGS",
    "EnvFactory", "OpponentPool", "ScoreTruncation", "SettingSpec", "TrainConfig", "TrainError", "TrainResult",
    "add_arguments", "attach_anchor", "check_agents", "check_settings", "check_writable", "command_line",
    "config_from_args", "evaluate", "init_settings", "latest_checkpoint", "load_init", "make_env", "make_model",
    "make_vec_env", "model_class", "package_versions", "parse_contract", "parse_settings", "policy_kwargs",
    "print_result", "read_eval_csv", "run", "run_evaluation", "save_checkpoint", "save_model", "train",
    "write_eval_csv",
]
