"""DAgger roll-ins: games played by a mix of the learner's and the teacher's moves, with every
learner-seat state labelled by the teacher's choice.

One game (:func:`play_game`): the engine deals from the game's seed; the learner's seat
is ``game_index % players``; every other seat plays an agent drawn from the opponents.
At each decision of the learner's seat:

1. the teacher chooses a move from its own seat's :class:`~carioca_env.PlayerView` and
   the legal moves (it never sees more than the learner would);
2. with probability ``beta`` the teacher's move is played, otherwise the learner's
   (its masked choice on the same observation);
3. each action id of the decision is one labelled row: the observation and mask the
   learner sees (``encode_observation(view, pending)`` and ``legal_mask``) and the
   teacher's id.  An opening is chosen one meld per id, as in the env; when the learner
   has chosen the first melds itself, the teacher's label for the next one is its
   choice among the openings that begin with those melds (it is asked again with only
   those as the legal moves), so each row's label is the teacher's best continuation
   of the state the learner actually reached.

Rewards are the learner seat's as in ``carioca train``: minus its deal penalty times
``reward_scale`` at each deal end (cancelled deals, R13, score nothing), and a deal cut
at ``max_turns`` ends the game with minus the cards still held.  Each row's return is
the discounted sum of the rewards from its step on.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from carioca_env import Game, GameConfig, Move, MoveKind
from carioca_env.actions import action_table
from carioca_env.cards import hand_penalty
from carioca_env.melds import Meld
from carioca_env.observation import encode_observation
from carioca_experiments.common.seeds import IMITATE, derive_seed
from carioca_experiments.training.imitate.config import ImitateConfig
from carioca_experiments.training.imitate.dataset import Rows

#: ``learner(obs, mask, rng) -> action id``
LearnerPolicy = Callable[[np.ndarray, np.ndarray, np.random.Generator], int]


def _consistent_opens(legal: Sequence[Move], table: Any, seat: int, prefix: Sequence[int]) -> list[Move]:
    """The openings of ``legal`` whose meld ids begin with ``prefix``."""
    k = len(prefix)
    return [m for m in legal if m.kind is MoveKind.OPEN and table.move_actions(m, seat)[:k] == list(prefix)]


def play_game(config: ImitateConfig, split: str, iteration: int, game_index: int, beta: float,
              teacher: Any, opponents: Sequence[Any], learner: LearnerPolicy | None, rows: Rows) -> dict[str, Any]:
    """Play one game and append its labelled rows to ``rows``; returns the game's summary.

    ``teacher`` and ``opponents`` are built agents (reset here with derived seeds);
    ``learner`` may be ``None`` only with ``beta == 1``.
    """
    n = config.players
    gseed = derive_seed(IMITATE, config.seed, split, "game", iteration, game_index)
    game = Game(GameConfig(num_players=n, deals=config.deals), seed=gseed)
    seat = game_index % n
    pick = random.Random(derive_seed(IMITATE, config.seed, split, "seats", iteration, game_index))
    agents: list[Any] = [None] * n
    for q in range(n):
        if q != seat:
            agents[q] = opponents[pick.randrange(len(opponents))]
            agents[q].reset(derive_seed(IMITATE, config.seed, split, "agent", iteration, game_index, q))
    teacher.reset(derive_seed(IMITATE, config.seed, split, "teacher", iteration, game_index))
    mix = random.Random(derive_seed(IMITATE, config.seed, split, "mix", iteration, game_index))
    lrng = np.random.default_rng(derive_seed(IMITATE, config.seed, split, "learner", iteration, game_index))
    table = action_table(n)
    start = len(rows)
    rewards: list[float] = []  # reward after each learner step (index = step)
    turns = 0
    truncated = False
    learner_moves = 0
    while not game.game_over:
        if turns >= config.max_turns:  # R17, scored as ScoreTruncation scores it
            if rewards:
                rewards[-1] -= hand_penalty(game.hands[seat]) * config.reward_scale
            truncated = True
            break
        actor = game.current_player
        legal = game.legal_moves()
        results = len(game.deal_results)
        if actor == seat:
            move, used_learner = _learner_decision(game, seat, legal, table, teacher, learner, beta, mix, lrng,
                                                   rows, config, gseed, game_index, len(rewards))
            rewards.extend([0.0] * (len(rows) - start - len(rewards)))
            learner_moves += used_learner
        else:
            move = agents[actor].act(game.view(actor), legal)
        game.apply(move)
        if move.kind is MoveKind.DISCARD:
            turns += 1
        if len(game.deal_results) > results:
            res = game.deal_results[-1]
            turns = 0
            if not res.cancelled and rewards:
                rewards[-1] -= res.scores[seat] * config.reward_scale
    ret = 0.0
    out = [0.0] * len(rewards)
    for t in range(len(rewards) - 1, -1, -1):
        ret = rewards[t] + config.gamma * ret
        out[t] = ret
    rows.ret.extend(out)
    return {"game_seed": gseed, "seat": seat, "rows": len(rows) - start, "truncated": truncated,
            "learner_moves": learner_moves, "totals": list(game.totals)}


def _learner_decision(game: Game, seat: int, legal: list[Move], table: Any, teacher: Any,
                      learner: LearnerPolicy | None, beta: float, mix: random.Random, lrng: np.random.Generator,
                      rows: Rows, config: ImitateConfig, gseed: int, game_index: int, step0: int) -> tuple[Move, bool]:
    """One decision of the learner's seat: rows for each of its action ids; the move played."""
    view = game.view(seat)
    teacher_move = teacher.act(view, legal)
    teacher_ids = table.move_actions(teacher_move, seat)
    use_teacher = learner is None or mix.random() < beta
    pending: list[Meld] = []
    chosen: list[int] = []
    need = view.contract.trios + view.contract.runs
    while True:
        obs = encode_observation(view, pending, config.features)
        mask = table.legal_mask(legal, seat, pending)
        if chosen == teacher_ids[:len(chosen)]:
            label = teacher_ids[len(chosen)]
        else:  # the learner chose other melds: the teacher's best continuation of them
            opens = _consistent_opens(legal, table, seat, chosen)
            label = table.move_actions(teacher.act(view, opens), seat)[len(chosen)]
        action = label if use_teacher else int(learner(obs, mask, lrng))  # type: ignore[misc]
        if not mask[action]:
            raise RuntimeError(f"imitation roll-in chose masked action {action} at seat {seat} "
                               f"({'teacher' if use_teacher else 'learner'}; game seed {gseed})")
        rows.add_state(obs, mask, int(label), seat=seat, game_seed=gseed, game=game_index, step=step0 + len(chosen),
                       deal=game.deal_number)
        rows.played.append(int(action))
        rows.by_learner.append(not use_teacher)
        chosen.append(action)
        decoded = table.to_move(action, seat)
        if isinstance(decoded, Meld):
            pending.append(decoded)
            if len(pending) < need:
                continue
            return Move.open(pending), not use_teacher
        return decoded, not use_teacher
