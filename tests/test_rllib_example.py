"""The RLlib example: PPO on carioca_v0 through RLlib's PettingZoo wrapper, one shared policy, masked actions."""

from __future__ import annotations

import importlib.util
import math
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

ray = pytest.importorskip("ray", reason="the RLlib example needs the [rllib] extra")
pytest.importorskip("ray.rllib", reason="the RLlib example needs the [rllib] extra")

#: the example is a script of the repository, not a module of the installed package
EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "rllib_example.py"


def _load_example() -> ModuleType:
    spec = importlib.util.spec_from_file_location("rllib_example", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # RLlib pickles the env class by its module's name
    spec.loader.exec_module(module)
    return module


ex = _load_example()


@pytest.fixture(scope="module")
def ray_cluster() -> Iterator[None]:
    # the workers import the example by name, as this process does
    path = os.pathsep.join([str(EXAMPLE.parent), *filter(None, [os.environ.get("PYTHONPATH")])])
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False,
             runtime_env={"env_vars": {"PYTHONPATH": path}})
    yield
    ray.shutdown()


def test_rllibs_own_pettingzoo_wrapper_passes_its_pre_check_with_default_options() -> None:
    # RLlib steps a random (unmasked) action: by PettingZoo's convention the default env
    # ends the episode on it with a penalty instead of raising (which RLlib reports as
    # "the old Gym API")
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
    from ray.rllib.utils.pre_checks.env import check_multiagent_environments

    from carioca_env import carioca_v0

    for _ in range(5):  # random actions: most are illegal, some legal
        check_multiagent_environments(PettingZooEnv(carioca_v0.env(num_players=2, deals=(1,))))
    env = PettingZooEnv(carioca_v0.env(num_players=2, deals=(1,)))
    obs, _ = env.reset(seed=0)
    (agent, o), = obs.items()
    illegal = int(np.flatnonzero(o["action_mask"] == 0)[0])
    _, rew, term, _, info = env.step({agent: illegal})
    assert term["__all__"] and rew[agent] == -340.0 and info[agent]["illegal_action"] == illegal


def test_the_wrapped_env_is_turn_based_with_float_masks_and_delivers_every_reward() -> None:
    env = ex.make_env_class()({"num_players": 2, "deals": (1,), "max_turns": 400, "reward_scale": 1.0})
    obs, _ = env.reset(seed=3)
    rng = np.random.default_rng(0)
    totals = {a: 0.0 for a in env.possible_agents}
    steps = 0
    while True:
        assert len(obs) == 1  # one agent to act at a time
        (agent, o), = obs.items()
        assert set(o) == {"observations", "action_mask"} and o["action_mask"].dtype == np.float32
        assert env.observation_space[agent].contains(o)
        legal = np.flatnonzero(o["action_mask"])
        obs, rew, term, trunc, _ = env.step({agent: int(rng.choice(legal))})
        steps += 1
        for a, r in rew.items():
            totals[a] += r
        if term["__all__"] or trunc["__all__"]:
            break
    game = env.env.unwrapped.game
    if term["__all__"]:  # the deal was scored: every seat got minus its penalty, once
        seats = env.env.possible_agents  # in seat order (the wrapper keeps its agents in a set)
        assert totals == {a: -float(s) for a, s in zip(seats, game.deal_results[-1].scores)}
    assert steps > 10


def test_a_truncated_deal_is_scored_by_the_cards_in_hand() -> None:
    from carioca_env.cards import hand_penalty

    env = ex.make_env_class()({"num_players": 3, "deals": (2,), "max_turns": 4, "reward_scale": 1.0})
    obs, _ = env.reset(seed=1)
    totals: dict[str, float] = {}
    while True:
        (agent, o), = obs.items()
        legal = np.flatnonzero(o["action_mask"])
        obs, rew, term, trunc, _ = env.step({agent: int(legal[0])})
        for a, r in rew.items():
            totals[a] = totals.get(a, 0.0) + r
        if term["__all__"] or trunc["__all__"]:
            break
    assert trunc["__all__"] and not term["__all__"]
    game = env.env.unwrapped.game
    assert totals == {a: -float(hand_penalty(game.hands[s])) for s, a in enumerate(env.env.possible_agents)}
    assert all(v < 0 for v in totals.values())


def test_ppo_trains_a_few_iterations_with_the_mask_respected(ray_cluster: None) -> None:
    import torch

    algo, history = ex.train(2, log=lambda m: None, train_batch=128, minibatch=64, epochs=1, max_turns=60,
                             hidden=(32,))
    try:
        assert [h["iteration"] for h in history] == [1, 2]
        assert history[-1]["env_steps"] >= 256 and history[-1]["episodes"] >= 1
        assert all(math.isfinite(h["policy_loss"]) and math.isfinite(h["entropy"]) for h in history)
        module = algo.get_module(ex.MODULE_ID)
        # the module puts every masked-out action at (about) minus infinity
        env = ex.make_env_class()({"num_players": 2, "deals": (1,), "max_turns": 60})
        obs, _ = env.reset(seed=9)
        (agent, o), = obs.items()
        from ray.rllib.core.columns import Columns

        batch = {Columns.OBS: {k: torch.as_tensor(v[None]) for k, v in o.items()}}
        with torch.no_grad():
            logits = module.forward_exploration(batch)[Columns.ACTION_DIST_INPUTS][0].numpy()
        illegal = o["action_mask"] == 0
        assert illegal.any() and logits[illegal].max() < -1e30 < logits[~illegal].min()
        assert o["action_mask"][ex.greedy_action(module, o)] == 1
        ev = ex.evaluate(algo, 2, num_players=2, deals=(1,), max_turns=60)
        assert ev["games"] == 2 and ev["learner_penalty"] >= 0 and ev["random_penalty"] >= 0
    finally:
        algo.stop()
