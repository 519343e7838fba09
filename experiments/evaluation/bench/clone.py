"""The ``clone`` section of ``carioca bench``: what search pays per simulation.

Measured on the same mid-deal states (2 players, every contract, reached by heuristic
play, a state every few moves):

- ``clone.deepcopy.p2`` / ``clone.clone.p2`` / ``clone.pickle.p2``: microseconds of
  ``copy.deepcopy(game)``, ``game.clone()`` and a ``pickle`` round trip;
- ``clone.determinize.p2``: microseconds of ``determinize_view(view, rng)`` (a full
  validated game from a seat's view);
- ``clone.rollout.heuristic.p2``: decisions per second of a heuristic rollout (every
  seat the heuristic, ``legal_moves`` + ``view`` + ``act`` + ``apply``) from those
  states to the end of the deal;
- ``clone.search.decision.p2``: seconds per decision of the default ``search`` agent at
  the states where it has a real choice (measured once: it is the slow one);
  ``clone.search.decision.p2.learned`` and ``.inferred``: the same with
  ``belief=learned`` and ``belief=inferred`` (:mod:`carioca_agents.belief`), at the same states;
- ``clone.search.game.p2.learned``: seconds per searched decision of search with that
  belief in seat 0 of 2-player deals against the heuristic, played from the deal's start
  (contracts 1, 4 and 7, at most ``clone_search_decisions`` searched decisions each), as
  in a tournament;
- ``clone.openspiel``: microseconds of OpenSpiel's ``state.clone()`` on gin_rummy
  states reached by random play, as many as ours (when OpenSpiel is installed).

Sizes: ``Sizes.clone_states_per_contract``, ``clone_calls``, ``clone_search_decisions``,
``clone_search_sims`` (:class:`carioca_experiments.evaluation.bench.config.Sizes`).

Ratios: clone vs deepcopy, clone vs OpenSpiel's clone (a different, smaller game: one
52-card deck, 10-card hands).
"""

from __future__ import annotations

import copy
import importlib
import pickle
import random
import time
from collections.abc import Callable
from functools import partial
from typing import Any

from carioca_experiments.evaluation.bench.config import Sizes
from carioca_experiments.evaluation.bench.units import Sample, Unit


def _states(seed: int, per_contract: int) -> list[Any]:
    from carioca_agents.heuristic import HeuristicAgent
    from carioca_env import Game, GameConfig

    out: list[Any] = []
    for k in range(1, 8):
        game = Game(GameConfig(2, (k,)), seed=seed + k)
        agents = [HeuristicAgent(seed + k + s) for s in range(2)]
        rng = random.Random(seed + 100 + k)
        while not game.game_over and len([g for g in out if g.deal_number == k]) < per_contract:
            if rng.random() < 0.15:
                out.append(game.clone())
            s = game.current
            game.apply(agents[s].act(game.view(s), game.legal_moves()))
    return out


def _per_call_us(states: list[Any], fn: Callable[[Any], Any], calls: int) -> float:
    t0 = time.perf_counter()
    for g in states:
        for _ in range(calls):
            fn(g)
    return (time.perf_counter() - t0) / (len(states) * calls) * 1e6


def clone_units(sizes: Sizes, seed: int, messages: list[str]) -> list[Unit]:
    """The clone section's measurements."""
    from carioca_env.determinize import determinize_view

    cache: dict[str, list[Any]] = {}
    calls = sizes.clone_calls

    def states() -> list[Any]:
        if "s" not in cache:
            cache["s"] = _states(seed, sizes.clone_states_per_contract)
        return cache["s"]

    def timed(fn: Callable[[Any], Any]) -> Callable[[int], Sample]:
        return lambda rep: Sample(_per_call_us(states(), fn, calls), {"states": len(states()), "calls": calls})

    def determinize_us(rep: int) -> Sample:
        rng = random.Random(seed + rep)
        views = [g.view(g.current) for g in states()]
        t0 = time.perf_counter()
        for v in views:
            for _ in range(calls):
                determinize_view(v, rng)
        return Sample((time.perf_counter() - t0) / (len(views) * calls) * 1e6, {"states": len(views)})

    def rollout(rep: int) -> Sample:
        from carioca_agents.heuristic import HeuristicAgent

        rng = random.Random(seed + rep)
        decisions = 0
        t0 = time.perf_counter()
        for g in states():
            game = determinize_view(g.view(g.current), rng)
            agents = [HeuristicAgent(rep + s) for s in range(2)]
            while not game.game_over and game.turn < 400:
                s = game.current
                game.apply(agents[s].act(game.view(s), game.legal_moves()))
                decisions += 1
        dt = time.perf_counter() - t0
        return Sample(decisions / dt, {"decisions": decisions, "seconds": dt})

    def make_search(belief: str) -> Any:
        """The search agent the search units time: the sizes' ``sims``, or its default budget."""
        from carioca_agents.search import SearchAgent

        if sizes.clone_search_sims is None:
            return SearchAgent(seed=seed, belief=belief)
        return SearchAgent(seed=seed, sims=sizes.clone_search_sims, belief=belief)

    def search_decision(rep: int, belief: str = "auto") -> Sample:
        agent = make_search(belief)
        spent = 0.0
        n = 0
        picked = states()[:: max(1, len(states()) // sizes.clone_search_decisions)][: sizes.clone_search_decisions]
        for g in picked:
            legal = g.legal_moves()
            t0 = time.perf_counter()
            agent.act(g.view(g.current), legal)
            spent += time.perf_counter() - t0
            n += 1
        return Sample(spent / n, {"decisions": n, "searched": agent.searched, "rollouts": agent.rollouts,
                                  "sims": agent.sims})

    units = [
        Unit("clone", "clone.deepcopy.p2", "copy.deepcopy(game), 2p mid-deal", "us",
             timed(copy.deepcopy), higher_is_better=False),
        Unit("clone", "clone.clone.p2", "game.clone(), 2p mid-deal", "us", timed(lambda g: g.clone()),
             higher_is_better=False),
        Unit("clone", "clone.pickle.p2", "pickle round trip of a game, 2p mid-deal", "us",
             timed(lambda g: pickle.loads(pickle.dumps(g))), higher_is_better=False),
        Unit("clone", "clone.determinize.p2", "determinize_view(view, rng), 2p", "us", determinize_us,
             higher_is_better=False),
        Unit("clone", "clone.rollout.heuristic.p2", "heuristic rollouts to deal end, decisions/s, 2p", "/s",
             rollout),
        Unit("clone", "clone.search.decision.p2", "search, default budget, s per searched state, 2p", "s",
             search_decision, higher_is_better=False, once=True,
             note="states with a choice or not; forced moves cost nothing"),
    ]
    units += [Unit("clone", f"clone.search.decision.p2.{b}", f"search:belief={b}, s per searched state, 2p", "s",
                   partial(search_decision, belief=b), higher_is_better=False, once=True,
                   note="the states of clone.search.decision.p2") for b in ("learned", "inferred")]

    def search_game(rep: int, belief: str) -> Sample:
        from carioca_agents.heuristic import HeuristicAgent
        from carioca_env import Game, GameConfig

        spent = 0.0
        before = 0
        for contract in (1, 4, 7):
            agent = make_search(belief)
            game = Game(GameConfig(2, (contract,)), seed=seed + contract)
            other = HeuristicAgent(seed + contract)
            while not game.game_over and agent.searched < sizes.clone_search_decisions:
                s = game.current
                legal = game.legal_moves()
                t0 = time.perf_counter()
                move = (agent if s == 0 else other).act(game.view(s), legal)
                if s == 0:
                    spent += time.perf_counter() - t0
                game.apply(move)
            before += agent.searched
        return Sample(spent / max(1, before), {"searched": before})

    units += [Unit("clone", f"clone.search.game.p2.{b}", f"search:belief={b}, s per decision of a 2p deal",
                   "s", partial(search_game, belief=b), higher_is_better=False, once=True,
                   note="seat 0 against the heuristic from each deal's start, contracts 1, 4, 7")
              for b in ("learned",)]
    try:
        importlib.import_module("pyspiel")
    except ImportError:
        messages.append("OpenSpiel is not installed (pip install .[bench]): its clone is not measured")
    else:
        units.append(Unit("clone", "clone.openspiel", "OpenSpiel gin_rummy state.clone()", "us",
                          _openspiel_clone(seed, lambda: len(states()), calls), higher_is_better=False))
    return units


def _openspiel_clone(seed: int, count: Callable[[], int], calls: int) -> Callable[[int], Sample]:
    import pyspiel

    game = pyspiel.load_game("gin_rummy")

    def fn(rep: int) -> Sample:
        rng = random.Random(seed + rep)
        states: list[Any] = []
        want = count()  # as many states as ours
        while len(states) < want:
            state = game.new_initial_state()
            while not state.is_terminal() and len(states) < want:
                if state.is_chance_node():
                    actions, probs = zip(*state.chance_outcomes())
                    state.apply_action(rng.choices(actions, probs)[0])
                else:
                    if rng.random() < 0.15:
                        states.append(state.clone())
                    state.apply_action(rng.choice(state.legal_actions()))
        return Sample(_per_call_us(states, lambda s: s.clone(), calls), {"states": len(states)})

    return fn


#: (ratio key, ours, reference, against) for :func:`carioca_experiments.evaluation.bench.summary.compute_ratios`
CLONE_RATIOS = [
    ("clone/deepcopy", "clone.clone.p2", "clone.deepcopy.p2", "deepcopy"),
    ("clone/openspiel", "clone.clone.p2", "clone.openspiel", "OpenSpiel clone"),
    ("search.learned/default", "clone.search.decision.p2.learned", "clone.search.decision.p2", "search (rule belief)"),
    ("search.inferred/default", "clone.search.decision.p2.inferred", "clone.search.decision.p2",
     "search (rule belief)"),
    ("search.inferred/learned", "clone.search.decision.p2.inferred", "clone.search.decision.p2.learned",
     "search:belief=learned"),
]
