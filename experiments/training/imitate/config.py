"""What defines an imitation run (:class:`ImitateConfig`), checked once when it is built."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

from carioca_env.observation import has_pieces_of
from carioca_experiments.training.train import ALL_CONTRACTS, TRAIN_SETTINGS, TrainError, check_settings, parse_contract


class ImitateError(TrainError):
    """An imitation run that cannot start: a bad option (named, with what is allowed) or a
    folder holding another run."""


@dataclass(frozen=True)
class ImitateConfig:
    """One imitation run.

    Attributes:
        contract: 1..7, or ``"full"`` (the whole game).
        players: seats, 2-4.
        teacher: the agent spec imitated (any registry agent).
        opponents: specs of the other seats; each game every other seat draws one.
        iterations: DAgger iterations (iteration 0 is the teacher's own roll-outs).
        games: games per iteration (the learner's seat rotates).
        heldout_games: games on held-out decks (teacher roll-outs) for the accuracy.
        beta0, beta_decay: iteration ``i >= 1`` plays each learner-seat decision with the
            teacher's move with probability ``beta_i = beta0 * beta_decay ** (i - 1)``,
            otherwise with the learner's (iteration 0: ``beta = 1``).
        epochs: passes over all the data gathered so far after each iteration.
        batch_size, learning_rate, vf_coef: the supervised update.
        net_arch: the policy's and the value net's hidden layers.
        seed: every seed (decks, opponents, learner seat, roll-in draws, the network) comes
            from it through :func:`derive_seed`.
        max_turns: turns per deal before it is cut (R17; scored as in training).
        gamma, reward_scale: the returns the value net is fitted to (as in ``carioca train``).
        shard_games: games per data shard.
        learner_sample: the learner samples its masked distribution in roll-ins instead
            of playing its most likely action.
        features: the observation variant (``"base"``, ``"planning"`` or ``"discards"``).
        card_head: the policy also scores each card type with one shared net
            (:class:`carioca_agents.ppo_policy.CardScores`).
        action_prior: the heuristic's advice scored against every action id is added
            to the logits (:mod:`carioca_agents.action_prior`; needs ``features="advice_play"``).
        init: a model (a shipped name such as ``contract4-p4``, or a path) whose weights the
            network starts from instead of fresh ones; its player count, observation
            and network settings must be the run's (checked when the run starts).
    """

    contract: int | str = 1
    players: int = 2
    teacher: str = "heuristic"
    opponents: tuple[str, ...] = ("heuristic", "greedy")
    iterations: int = 3
    games: int = 400
    heldout_games: int = 100
    beta0: float = 0.5
    beta_decay: float = 0.5
    epochs: int = 4
    batch_size: int = 256
    learning_rate: float = 1e-3
    vf_coef: float = 0.5
    net_arch: tuple[int, ...] = (256, 256)
    seed: int = 0
    max_turns: int = int(TRAIN_SETTINGS["max_turns"])
    gamma: float = float(TRAIN_SETTINGS["gamma"])
    reward_scale: float = float(TRAIN_SETTINGS["reward_scale"])
    shard_games: int = 100
    learner_sample: bool = False
    features: str = "base"
    card_head: bool = False
    action_prior: bool = False
    init: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "contract", parse_contract(self.contract, ImitateError))
        if self.players not in (2, 3, 4) or isinstance(self.players, bool):
            raise ImitateError(f"--players must be 2, 3 or 4, got {self.players!r}")
        object.__setattr__(self, "opponents", tuple(self.opponents))
        if not self.opponents or not all(isinstance(s, str) and s for s in self.opponents):
            raise ImitateError(f"--opponents needs one or more agent specs, got {self.opponents!r}")
        if not isinstance(self.teacher, str) or not self.teacher:
            raise ImitateError(f"--teacher must be an agent spec, got {self.teacher!r}")
        for name, low in (("iterations", 1), ("games", 1), ("heldout_games", 1), ("epochs", 1), ("batch_size", 2),
                          ("seed", 0), ("max_turns", 1), ("shard_games", 1)):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < low:
                raise ImitateError(f"--{name.replace('_', '-')} must be an integer >= {low}, got {v!r}")
        for name, lo, hi, lo_open in (("beta0", 0.0, 1.0, False), ("beta_decay", 0.0, 1.0, False),
                                      ("learning_rate", 0.0, 1.0, True), ("vf_coef", 0.0, 1e6, False)):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) \
                    or v < lo or v > hi or (lo_open and v == lo):
                raise ImitateError(f"--{name.replace('_', '-')} must be a number in {'(' if lo_open else '['}"
                                   f"{lo:g}, {hi:g}], got {v!r}")
        checked = check_settings({"net_arch": list(self.net_arch), "gamma": self.gamma,
                                  "reward_scale": self.reward_scale, "features": self.features})
        object.__setattr__(self, "net_arch", tuple(checked["net_arch"]))
        if not isinstance(self.card_head, bool):
            raise ImitateError(f"card_head must be True or False, got {self.card_head!r}")
        if not isinstance(self.action_prior, bool):
            raise ImitateError(f"action_prior must be True or False, got {self.action_prior!r}")
        if self.init is not None and (not isinstance(self.init, str) or not self.init):
            raise ImitateError(f"--init must be a model path or a shipped model's name, got {self.init!r}")
        if self.action_prior and not has_pieces_of(self.features, "advice_play"):
            raise ImitateError(f"--action-prior reads the advice_play pieces; --features {self.features} has none: "
                               f"use --features advice_play")

    @property
    def deals(self) -> tuple[int, ...]:
        """The deals of one game."""
        return ALL_CONTRACTS if self.contract == "full" else (int(self.contract),)

    def beta(self, iteration: int) -> float:
        """The share of the teacher's moves in the roll-ins of ``iteration``."""
        return 1.0 if iteration == 0 else self.beta0 * self.beta_decay ** (iteration - 1)

    def data_meta(self) -> dict[str, Any]:
        """What defines the data (a data folder of another run is refused)."""
        return {"contract": self.contract, "players": self.players, "teacher": self.teacher,
                "opponents": list(self.opponents), "games": self.games, "heldout_games": self.heldout_games,
                "beta0": self.beta0, "beta_decay": self.beta_decay, "seed": self.seed, "max_turns": self.max_turns,
                "gamma": self.gamma, "reward_scale": self.reward_scale, "shard_games": self.shard_games,
                "learner_sample": self.learner_sample, "features": self.features, "net_arch": list(self.net_arch),
                **({"card_head": True} if self.card_head else {}),
                **({"action_prior": True} if self.action_prior else {}),
                **({"init": self.init} if self.init else {}), "epochs": self.epochs,
                "batch_size": self.batch_size, "learning_rate": self.learning_rate, "vf_coef": self.vf_coef}

    def network_settings(self) -> dict[str, Any]:
        """The ``carioca train`` settings of the network this run trains (its card's
        ``settings``; ``build_model`` builds from them): the optional heads only when on."""
        return {"net_arch": list(self.net_arch), "gamma": self.gamma, "reward_scale": self.reward_scale,
                "max_turns": self.max_turns, "features": self.features,
                **({"card_head": 1} if self.card_head else {}),
                **({"action_prior": 1} if self.action_prior else {})}

    def to_json(self) -> dict[str, Any]:
        """Every option (for the model card)."""
        d = asdict(self)
        d["opponents"] = list(self.opponents)
        d["net_arch"] = list(self.net_arch)
        return d
