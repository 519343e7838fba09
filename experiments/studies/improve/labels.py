"""Rollout advantages: states of the teacher's own play, each candidate move valued by
rollouts from the true position.

One game (:func:`label_game`) is a one-contract game played by the teacher in every seat
(the heuristic by default), or by the teacher in one seat among opponents.  At every
decision of every teacher seat the state becomes one row:
the observation and mask that seat's learner would see, the teacher's action id (the
label an imitation would use), and, where the decision is a draw or a discard with a
real choice, up to ``top`` candidate action ids with their **advantage** over the
teacher's move:

1. the candidates: the teacher's move first, then for a draw the other draw, for a
   discard the next best discards by the teacher's own ranking
   (:meth:`carioca_agents.heuristic.HeuristicAgent.ranked_discards`);
2. ``reshuffles`` times: the stock of the true position is shuffled (the remaining stock's
   order is unseen by every seat, so a shuffle of it is as likely as the real one given
   all that was played), and each candidate is played on a clone of that same position
   and rolled out to the deal's end with each seat's own kind of agent (the teacher in
   the teacher's seats), every candidate with the same rollout seeds (common random
   numbers);
3. a rollout's value for the seat is the mean penalty of the other seats minus its own
   (what a duplicate tournament's head-to-head difference measures); a candidate's
   advantage is its mean value minus the teacher move's mean value.

The true position, hidden hands included, is used only to value moves, never as an
input: the observation is the seat's own.  Because the hidden hands of the true
position are a sample of what the seat's information allows (they are how the game
really went), the mean advantage over many rows with the same observation is that
observation's true one-step advantage against the teacher's continuation.  One row's
estimate is noisy (a deal's penalty varies by tens of points); the learner
(:mod:`carioca_experiments.studies.improve.learn`) fits the mean over many rows.
"""

from __future__ import annotations

import random
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from carioca_agents.search import candidate_moves, rollout_value
from carioca_env import Game, GameConfig, Move, MoveKind
from carioca_env.actions import action_table
from carioca_env.melds import Meld
from carioca_env.observation import encode_observation
from carioca_experiments.training.state_rows import StateRows

#: Columns of a labelled shard (see :mod:`carioca_experiments.studies.improve.data`).
COLUMNS = ("obs", "mask", "action", "cand", "adv", "seat", "game_seed", "game", "step", "deal")


@dataclass
class AdvantageRows(StateRows):
    """Rows gathered in memory before they become a shard: the shared columns of
    :class:`~carioca_experiments.training.state_rows.StateRows`, and per row up to ``top``
    candidate action ids with their advantages."""

    top: int = field(kw_only=True)
    cand: list[list[int]] = field(default_factory=list)
    adv: list[list[float]] = field(default_factory=list)

    def arrays(self) -> dict[str, np.ndarray]:
        """The shard's arrays (see :mod:`carioca_experiments.studies.improve.data`)."""
        n = len(self)
        arrays = {
            **self.state_arrays(),
            "cand": np.asarray(self.cand, dtype=np.int32).reshape(n, self.top),
            "adv": np.asarray(self.adv, dtype=np.float32).reshape(n, self.top),
        }
        return {k: arrays[k] for k in COLUMNS}


def advantages(game: Game, seat: int, candidates: Sequence[Move], policies: Sequence[Any], reshuffles: int,
               rng: random.Random, max_moves: int) -> list[float]:
    """Each candidate's mean rollout value minus the first's, over ``reshuffles`` shuffles
    of the stock shared by all candidates (see the module docstring)."""
    sums = [0.0] * len(candidates)
    for _ in range(reshuffles):
        policy_seed = rng.getrandbits(31)
        order = game.stock.copy()
        rng.shuffle(order)
        for i, move in enumerate(candidates):
            g = game.clone()
            g.stock = order.copy()
            g.rng = random.Random(policy_seed)  # an empty stock's reshuffle (R13), the same for all
            g.apply(move)
            sums[i] += rollout_value(g, seat, policies, policy_seed, max_moves)
    return [(s - sums[0]) / reshuffles for s in sums]


def label_game(players: int, contract: int, game_seed: int, game_index: int, features: str,
               agents: Sequence[Any], policies: Sequence[Any], labelled: Collection[int], reshuffles: int, top: int,
               max_turns: int, rng: random.Random, rows: AdvantageRows) -> dict[str, Any]:
    """Play one game of ``contract`` and append the rows of the ``labelled`` seats; returns
    its summary.

    ``agents`` play the seats (one per seat, reset by the caller; a labelled seat's agent
    is the teacher, whose ranking gives the candidates); ``policies`` (one per seat, of
    the same kinds) play the rollouts; ``rng`` draws the stock shuffles and rollout seeds.
    """
    game = Game(GameConfig(num_players=players, deals=(contract,)), seed=game_seed)
    table = action_table(players)
    max_moves = 4 * max_turns  # a turn is a few moves
    steps = valued = 0
    turns = 0
    while not game.game_over and turns < max_turns:
        seat = game.current
        legal = game.legal_moves()
        view = game.view(seat)
        choice = legal[0] if len(legal) == 1 else agents[seat].act(view, legal)
        if len(legal) > 1 and seat in labelled:
            cands = candidate_moves(agents[seat], view, legal, choice, top)  # the search agent's candidates
            adv = [0.0]
            if len(cands) > 1:
                adv = advantages(game, seat, cands, policies, reshuffles, rng, max_moves)
                valued += 1
            ids = table.move_actions(choice, seat)
            pending: list[Meld] = []
            for k, label in enumerate(ids):  # an opening is chosen meld by meld, one row each
                rows.add_state(encode_observation(view, pending, features), table.legal_mask(legal, seat, pending),
                               label, seat=seat, game_seed=game_seed, game=game_index, step=steps, deal=contract)
                if k == 0 and len(cands) > 1:
                    c = [table.move_actions(m, seat)[0] for m in cands]
                    a = list(adv)
                else:
                    c, a = [label], [0.0]
                rows.cand.append(c + [-1] * (top - len(c)))
                rows.adv.append(a + [0.0] * (top - len(a)))
                steps += 1
                decoded = table.to_move(label, seat)
                if isinstance(decoded, Meld):
                    pending.append(decoded)
        game.apply(choice)
        if choice.kind is MoveKind.DISCARD:
            turns += 1
    return {"game_seed": game_seed, "rows": steps, "valued": valued, "truncated": not game.game_over}
