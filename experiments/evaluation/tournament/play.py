"""Playing one task: deal its deck, seat its agents, play the deal to its end.

Everything a task plays is a function of the config and the task (see the seeds in
:mod:`carioca_experiments.evaluation.tournament`), so a task gives the same result line in any process, on
any machine, on any attempt.  :func:`play_chunk` is what executors send to workers: it
takes and returns plain data (the config, tasks, result dicts, game records) so that it
pickles for spawn processes and Ray.
"""

from __future__ import annotations

import random
import traceback
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from carioca_experiments.common.seeds import TOURNAMENT, derive_seed
from carioca_experiments.evaluation.tournament.config import TournamentConfig, agent_seed
from carioca_experiments.evaluation.tournament.errors import TaskFailed, TournamentError
from carioca_experiments.evaluation.tournament.tasks import Task

#: One played task: its result line and, if asked for, its game record.
Outcome = tuple[dict[str, Any], dict[str, Any] | None]


def deal_deck(config: TournamentConfig, contract: int, deck: int) -> tuple[list[int], int, int]:
    """The dealt deck ``deck`` of ``contract``: ``(cards, dealer, game_seed)``, the same for every lineup."""
    from carioca_env.cards import full_deck

    rng = random.Random(derive_seed(TOURNAMENT, config.seed, "deck", contract, deck))
    cards = full_deck()
    rng.shuffle(cards)
    dealer = rng.randrange(config.players)
    return cards, dealer, derive_seed(TOURNAMENT, config.seed, "game", contract, deck)


def deal_penalties(game: Any) -> list[int]:
    """The penalties of a game of one deal as it stands: the scores of its closed deal, or,
    for a deal cut off at the turn limit (R17), the penalty of the cards each seat holds.
    Cancelled deals (redealt) do not count."""
    from carioca_env.cards import hand_penalty

    closed = [r for r in game.deal_results if not r.cancelled]
    return list(closed[-1].scores) if closed else [hand_penalty(game.hands[s]) for s in range(game.num_players)]


def setup_deal(config: TournamentConfig, task: Task) -> tuple[Any, list[Any], list[int]]:
    """The game and the seated agents of a task, before the first move: ``(game, agents, agent_seeds)``."""
    from carioca_agents.registry import make_agent
    from carioca_env import Game, GameConfig

    cards, dealer, game_seed = deal_deck(config, task.contract, task.deck)
    game = Game.from_deck(cards, dealer, GameConfig(num_players=config.players, deals=(task.contract,)), game_seed)
    specs = config.specs
    # by seat, not by lineup: whoever sits in seat s of deck d gets the same seed, so a
    # pairing plays the same deal in every tournament that holds it, whatever the other
    # agents (a seed by lineup number changed with the lineup list, results format v1)
    seeds = [agent_seed(config.seed, task.contract, task.deck, s) for s in range(config.players)]
    agents = [make_agent(specs[a], seeds[s]) for s, a in enumerate(task.seating)]
    return game, agents, seeds


def play_task(config: TournamentConfig, task: Task, records: tuple[Path, int] | None = None,
              explain: bool = False) -> dict[str, Any]:
    """Play one task and return its result line (a dict; see the package docstring).

    ``records = (folder, every)`` saves the game record (``Game.save``, readable by
    ``carioca replay``) of every ``every``-th task as ``folder/<task id>.json``; with
    ``explain`` a kept record also holds each decision's explanation
    (:mod:`carioca_agents.explain`).  Neither ever changes the results.

    Raises:
        TaskFailed: an agent failed or made an illegal move (the message names the
            task, the agent and the error, with the traceback).
    """
    import json

    keep = records is not None and records[1] > 0 and task.index % records[1] == 0
    result, record = _play_one(config, task, keep, explain)
    if records is not None and record is not None:
        records[0].mkdir(parents=True, exist_ok=True)
        (records[0] / f"{task.id}.json").write_text(json.dumps(record) + "\n", encoding="utf-8")
    return result


def play_chunk(config: TournamentConfig, chunk: Sequence[Task], record_every: int = 0,
               explain: bool = False) -> list[Outcome]:
    """Play consecutive tasks: ``[(result, record or None), ...]`` in the chunk's order.

    The record of a task is kept when ``record_every > 0`` and its index is a multiple of
    it; the driver writes it (a worker may run on another machine).  With ``explain`` a
    kept record holds each decision's explanation beside its move (the deals whose record
    is not kept are played without, at no cost).

    Raises:
        TaskFailed: the first task that failed, by its id.
    """
    return [_play_one(config, t, record_every > 0 and t.index % record_every == 0, explain) for t in chunk]


def _play_one(config: TournamentConfig, task: Task, keep_record: bool, explain: bool = False) -> Outcome:
    from carioca_agents.base import declared_choice
    from carioca_agents.cheat import show_true_game
    from carioca_agents.explain import act_and_explain
    from carioca_env import MoveKind, cards_str
    from carioca_env.cards import hand_penalty
    from carioca_env.explanations import Explanation, attach_explanations

    labels = config.labels
    seats = [labels[a] for a in task.seating]
    n = config.players
    try:
        game, agents, seeds = setup_deal(config, task)
        for agent, seed in zip(agents, seeds):
            agent.reset(seed)
    except Exception as exc:
        raise TaskFailed(task.id,
            f"task {task.id}: cannot set up the deal with agents {seats}: {type(exc).__name__}: {exc}"
        ) from None
    hands = [cards_str(game.hand(s)) for s in range(n)]
    dealer = game.dealer
    tracker = _luck_tracker(config)
    turns = cancelled = 0
    own_turns = [0] * n
    open_turn: list[int | None] = [None] * n
    closer: int | None = None
    penalty: list[int] = []
    # explanations only for a kept record: act_explained plays the move act would
    explaining = keep_record and explain
    explanations: list[Explanation | None] = []
    while True:
        if turns >= config.max_turns:  # R17, always at a turn boundary
            penalty = [hand_penalty(game.hands[s]) for s in range(n)]
            break
        seat = game.current_player
        legal = game.legal_moves()
        was_open = game.opened[seat]
        results_before = len(game.deal_results)
        try:
            show_true_game(agents[seat], game)  # a labelled reference cheat only (carioca_agents.cheat)
            if explaining:
                move, why = act_and_explain(agents[seat], game.view(seat), legal)
                explanations.append(None if why is None or why.kind == "forced" else why)
            else:
                move = agents[seat].act(game.view(seat), legal)
            if tracker is not None:
                tracker.before(game, move, declared_choice(agents[seat]))
            game.apply(move)
        except Exception as exc:
            raise TaskFailed(
                task.id,
                f"task {task.id} (contract {task.contract}, deck {task.deck}, seats {seats}): "
                f"agent {seats[seat]!r} in seat {seat} failed at turn {turns}: {type(exc).__name__}: {exc}\n"
                + traceback.format_exc()
            ) from None
        if tracker is not None:
            tracker.after(game)
        if move.kind is MoveKind.OPEN and not was_open:
            open_turn[seat] = own_turns[seat] + 1
        if move.kind is MoveKind.DISCARD:
            turns += 1
            own_turns[seat] += 1
        if len(game.deal_results) > results_before:
            result = game.deal_results[-1]
            if result.cancelled:  # R13: the engine deals the same contract again
                cancelled += 1
                own_turns = [0] * n
                open_turn = [None] * n
                continue
            closer = result.closer
            penalty = list(result.scores)
            break
    record = None
    if keep_record:
        record = game.to_record(agents=[f"{label} ({config.specs[a]})" for label, a in zip(seats, task.seating)])
        if explaining:
            attach_explanations(record, explanations)
    result = {
        "task": task.id,
        "index": task.index,
        "contract": task.contract,
        "deck": task.deck,
        "lineup": task.lineup,
        "rotation": task.lineup % n,
        "seats": seats,
        "dealer": dealer,
        "closer": closer,
        "penalty": penalty,
        "turns": turns,
        "truncated": closer is None,
        "cancelled": cancelled,
        "opened": [t is not None for t in open_turn],
        "open_turn": open_turn,
        "hands": hands,
    }
    if tracker is not None:
        # the sum of each seat's stock-draw corrections (carioca_experiments.evaluation.luck.correction);
        # the corrected penalty is penalty - luck
        result["luck"] = [float(c) for c in tracker.corrections]
        result["luck_draws"] = tracker.draws
        if hasattr(tracker.value, "action_values"):  # version 4 on: its declared choices valued
            result["luck_actions"] = tracker.actions
    return result, record


def _luck_tracker(config: TournamentConfig) -> Any:
    """The luck tracker of a deal when the config asks for corrections, else ``None``.

    Raises:
        TournamentError: the config names a value function no version shipped with this
            package has (its corrections could not be reproduced).
    """
    if config.luck is None:
        return None
    from carioca_experiments.evaluation.luck import LuckTracker, ValueFileError, value_by_fingerprint

    try:
        value = value_by_fingerprint(config.luck)
    except ValueFileError as exc:
        raise TournamentError(
            f"this tournament's deals were corrected with the luck value function {config.luck}: {exc}; "
            "summarize it with --report, or start afresh"
        ) from None
    return LuckTracker(value, config.players)
