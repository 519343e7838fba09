"""RLlib's PPO on ``carioca_v0``: one policy shared by every seat, the action mask respected.

Run it (needs ``pip install 'carioca-env[rllib]'``)::

    python examples/rllib_example.py --iterations 20 --contract 1 --players 2

How it fits together (RLlib's new API stack, Ray 2.40+)

- The env: RLlib's own PettingZoo wrapper, ``ray.rllib.env.wrappers.pettingzoo_env.PettingZooEnv``,
  around the AEC env.  It turns the AEC cycle into RLlib's turn-based ``MultiAgentEnv``:
  each step returns the observation of the one agent to act next (the same agent several
  times in a row while it draws, melds and discards), and a reward reaches an agent with
  its next observation (the AEC env accumulates it until then), or at the end of the
  episode.  :class:`CariocaRLlibEnv` only renames the observation keys to the ones RLlib's
  action-masking module expects (``observations``, ``action_mask``) and gives the mask as
  float32 (the module takes its logarithm).
- The policy: one module id, ``shared``, to which every ``player_i`` maps: parameter
  sharing, as in RLlib's ``pettingzoo_parameter_sharing.py`` example.  The seat is part
  of what each observation encodes relative to the acting seat, so one policy can play
  every seat.
- The mask: RLlib's ``ActionMaskingTorchRLModule`` (``ray.rllib.examples.rl_modules.
  classes.action_masking_rlm``), which adds ``log(mask)`` (clamped to ``FLOAT_MIN``) to the
  action logits in exploration, inference and training, so a masked action has
  probability 0 when sampled and in the PPO loss.  The env is built with
  ``illegal_action="raise"``: an action the mask forbids would stop the run with
  ``IllegalActionError``, so a finished training is itself the check that every sampled
  action was legal.  RLlib's environment pre-check is switched off
  (``disable_env_checking=True``): it steps one action sampled from the whole action
  space, ignoring the mask, which this env refuses (``IllegalActionError: ... swap KS ...
  is not legal ... in phase draw``), as a masked env should.
- Truncation: a deal cut off at ``max_turns`` is scored by the cards in hand, as in
  tournaments and in ``carioca train`` (the AEC env leaves it unscored, so without this
  stalling until the cut-off would be the best policy).

:func:`train` runs some iterations and returns, per iteration, the episodes finished, the
env steps sampled and the mean episode return of the shared policy (minus the deal
penalty times ``reward_scale``, averaged over seats).  :func:`evaluate` plays the
trained module greedily (argmax over the legal actions) against ``random`` seat by seat.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
from typing import Any

import numpy as np
from gymnasium import spaces

MODULE_ID = "shared"


def _rllib() -> Any:
    try:
        import ray.rllib  # noqa: F401
    except ImportError:
        raise SystemExit("the RLlib example needs RLlib: pip install 'carioca-env[rllib]'") from None
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv

    return PettingZooEnv


def _mask_obs(obs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    return {"observations": obs["observation"], "action_mask": obs["action_mask"].astype(np.float32)}


def make_env_class() -> type:
    """:class:`CariocaRLlibEnv` (built on first use, so importing this module needs no Ray)."""
    pettingzoo_env = _rllib()

    class CariocaRLlibEnv(pettingzoo_env):  # type: ignore[misc, valid-type]
        """``carioca_v0`` through RLlib's ``PettingZooEnv``, observations renamed for the masking module.

        ``env_config`` holds :class:`carioca_env.env.EnvConfig` options (``num_players``,
        ``deals``, ``reward_scale``, ``max_turns`` ...).
        """

        def __init__(self, env_config: dict[str, Any] | None = None) -> None:
            from carioca_env import carioca_v0

            options = {"reward_scale": 0.01, "max_turns": 200, **dict(env_config or {})}
            options["illegal_action"] = "raise"  # a masking bug must stop the run, never be learned around
            super().__init__(carioca_v0.env(**options))
            inner = self.observation_spaces[next(iter(self.observation_spaces))]
            n = inner["action_mask"].shape[0]
            space = spaces.Dict({"observations": inner["observation"],
                                 "action_mask": spaces.Box(0.0, 1.0, (n,), np.float32)})
            self.observation_spaces = {a: space for a in self.observation_spaces}
            self.observation_space = spaces.Dict(self.observation_spaces)

        def reset(self, *, seed: int | None = None, options: dict | None = None):  # type: ignore[no-untyped-def]
            """Reset; the first observation is the dealt seat's."""
            obs, infos = super().reset(seed=seed, options=options)
            return {a: _mask_obs(o) for a, o in obs.items()}, infos

        def step(self, action_dict):  # type: ignore[no-untyped-def]
            """Play the acting agent's action; observations of the next agent (or of all, at the end).

            A deal cut off at ``max_turns`` (R17) is scored as tournaments score it: each
            seat gets minus the penalty of the cards it holds (the AEC env leaves a
            truncated deal unscored, which would make stalling pay).
            """
            obs, rew, term, trunc, info = super().step(action_dict)
            if trunc.get("__all__"):
                from carioca_env.cards import hand_penalty

                game = self.env.unwrapped.game
                scale = self.env.unwrapped.config.reward_scale
                for seat, agent in enumerate(self.env.unwrapped.possible_agents):
                    rew[agent] = rew.get(agent, 0.0) - hand_penalty(game.hands[seat]) * scale
            return {a: _mask_obs(o) for a, o in obs.items()}, rew, term, trunc, info

    return CariocaRLlibEnv


def make_config(num_players: int = 2, contracts: tuple[int, ...] = (1,), *, max_turns: int = 200, seed: int = 0,
                train_batch: int = 1024, minibatch: int = 256, epochs: int = 2, lr: float = 3e-4,
                hidden: tuple[int, ...] = (128,), env_runners: int = 0) -> Any:
    """The ``PPOConfig``: the masked env, one shared policy, the action-masking RLModule."""
    _rllib()
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule
    from ray.tune.registry import register_env

    env_class = make_env_class()
    register_env("carioca_masked", lambda cfg: env_class(cfg))
    return (
        PPOConfig()
        .environment("carioca_masked", env_config={"num_players": num_players, "deals": tuple(contracts),
                                                   "max_turns": max_turns},
                     # RLlib's env pre-check steps a random action sampled from the whole action
                     # space, ignoring the mask: the env (rightly) refuses it. Masking is checked
                     # instead by every training step, which plays with illegal_action="raise".
                     disable_env_checking=True)
        .env_runners(num_env_runners=env_runners, num_envs_per_env_runner=1)
        .multi_agent(policies={MODULE_ID}, policy_mapping_fn=lambda agent_id, *a, **k: MODULE_ID)
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={MODULE_ID: RLModuleSpec(
            module_class=ActionMaskingTorchRLModule,
            model_config={"head_fcnet_hiddens": list(hidden), "head_fcnet_activation": "relu"})}))
        .training(train_batch_size_per_learner=train_batch, minibatch_size=minibatch, num_epochs=epochs, lr=lr,
                  gamma=0.995, lambda_=0.95, entropy_coeff=0.01)
        .debugging(seed=seed)
    )


def _metric(result: dict[str, Any], *path: str) -> float:
    x: Any = result
    for p in path:
        if not isinstance(x, dict) or p not in x:
            return math.nan
        x = x[p]
    try:
        return float(x)
    except (TypeError, ValueError):
        return math.nan


def train(iterations: int = 3, log: Any = None, **config_kw: Any) -> tuple[Any, list[dict[str, float]]]:
    """Build PPO and train it ``iterations`` times: ``(algorithm, one metrics dict per iteration)``."""
    say = log or (lambda m: print(m, file=sys.stderr))
    algo = make_config(**config_kw).build_algo()
    history = []
    for i in range(iterations):
        r = algo.train()
        row = {
            "iteration": i + 1,
            "env_steps": _metric(r, "env_runners", "num_env_steps_sampled_lifetime"),
            "episodes": _metric(r, "env_runners", "num_episodes_lifetime"),
            "return_mean": _metric(r, "env_runners", "agent_episode_returns_mean", "player_0"),
            "policy_loss": _metric(r, "learners", MODULE_ID, "policy_loss"),
            "entropy": _metric(r, "learners", MODULE_ID, "entropy"),
        }
        history.append(row)
        say(f"[rllib] iteration {row['iteration']}: {row['env_steps']:.0f} env steps, {row['episodes']:.0f} episodes, "
            f"player_0 return {row['return_mean']:+.3f}, entropy {row['entropy']:.3f}")
    return algo, history


def greedy_action(module: Any, obs: dict[str, np.ndarray]) -> int:
    """The module's most likely action among the legal ones (the mask applied by the module itself)."""
    import torch
    from ray.rllib.core.columns import Columns

    batch = {Columns.OBS: {"observations": torch.as_tensor(obs["observations"][None]),
                           "action_mask": torch.as_tensor(obs["action_mask"][None])}}
    with torch.no_grad():
        logits = module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS][0].numpy()
    legal = np.flatnonzero(obs["action_mask"] > 0)
    return int(legal[np.argmax(logits[legal])])


def evaluate(algo: Any, games: int = 10, seed: int = 123, **env_config: Any) -> dict[str, float]:
    """The trained module (greedy) in seat ``g % players`` against ``random`` elsewhere, one deal per game.

    Returns the learner's and the random seats' mean penalty per deal (lower is better)
    and the mean of the per-game difference; each game's seat rotates so that every seat
    is played.  Not a duplicate tournament (see ``carioca tournament`` for strength claims):
    a quick check of what the example reached.
    """
    module = algo.get_module(MODULE_ID)
    env = make_env_class()({**env_config, "reward_scale": 1.0})
    rng = random.Random(seed)
    learner, others = [], []
    for g in range(games):
        obs, _ = env.reset(seed=seed + g)
        seats = env.env.possible_agents  # seat order (RLlib's wrapper keeps its agent ids in a set)
        me = seats[g % len(seats)]
        totals = dict.fromkeys(seats, 0.0)
        done = False
        while not done:
            (agent, o), = obs.items()
            legal = np.flatnonzero(o["action_mask"] > 0)
            action = greedy_action(module, o) if agent == me else int(legal[rng.randrange(len(legal))])
            obs, rew, term, trunc, _ = env.step({agent: action})
            for a, r in rew.items():
                totals[a] += r
            done = term.get("__all__", False) or trunc.get("__all__", False)
        learner.append(-totals[me])
        others.extend(-v for a, v in totals.items() if a != me)
    return {"games": games, "learner_penalty": float(np.mean(learner)), "random_penalty": float(np.mean(others))}


def main(argv: list[str] | None = None) -> int:
    """Command line of the example."""
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--iterations", type=int, default=10)
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--contract", type=int, nargs="+", default=[1])
    p.add_argument("--max-turns", type=int, default=200)
    p.add_argument("--train-batch", type=int, default=2048)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--eval-games", type=int, default=20)
    args = p.parse_args(argv)
    import ray

    ray.init(include_dashboard=False, log_to_driver=False)
    try:
        algo, _ = train(args.iterations, num_players=args.players, contracts=tuple(args.contract),
                        max_turns=args.max_turns, seed=args.seed, train_batch=args.train_batch)
        ev = evaluate(algo, args.eval_games, num_players=args.players, deals=tuple(args.contract),
                      max_turns=args.max_turns)
        print(f"learner (greedy) mean penalty per deal {ev['learner_penalty']:.1f} vs random "
              f"{ev['random_penalty']:.1f} over {ev['games']} games")
        algo.stop()
    finally:
        ray.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
