"""A ``ppo:`` model's probabilities over the legal moves of a decision.

Computed exactly as the agent decides (:mod:`carioca_agents.ppo_agent`): the seat's
``PlayerView`` encoded by ``encode_observation``, the legal moves as a mask of the
action table, the policy's logits over that mask, then a softmax.  An opening is chosen
one meld per step; for an opening that was played, every step along its melds is shown
(the first step is the decision among all legal moves).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from carioca_env import Game, Move, MoveKind
from carioca_env.actions import action_table
from carioca_env.melds import Meld
from carioca_env.observation import encode_observation

#: moves listed per step at most (the rest are summed as "others")
TOP = 12


def step_probabilities(model: Any, game: Game, pending: Sequence[Meld], features: str = "base") -> list[tuple[int, float]]:
    """``(action id, probability)`` of every legal action at this step, most likely first
    (``features``: the observation variant the model was trained on, from its card)."""
    from carioca_agents.ppo_agent import masked_logits

    seat = game.current_player
    view = game.view(seat)
    table = action_table(game.num_players)
    mask = table.legal_mask(game.legal_moves(), seat, pending)
    legal = np.flatnonzero(mask)
    if not len(legal):
        return []
    logits = masked_logits(model, encode_observation(view, pending, features))[legal].astype(np.float64)
    p = np.exp(logits - logits.max())
    p /= p.sum()
    order = np.argsort(-p, kind="stable")
    return [(int(legal[i]), float(p[i])) for i in order]


def _label(game: Game, action: int) -> str:
    decoded = action_table(game.num_players).to_move(action, game.current_player)
    return f"meld {decoded}" if isinstance(decoded, Meld) else str(decoded)


def decision_probabilities(model_path: Path, game: Game, played: str | None) -> dict[str, Any]:
    """The model's probabilities at ``game``'s decision; ``played`` marks the move made there.

    Raises:
        ModelLoadError / ModelMismatchError: the model cannot be loaded, or was made for
            another number of players or layout.
    """
    from carioca_agents.ppo_agent import card_features, load_model

    model, card = load_model(model_path, game.num_players)
    features = card_features(card)
    if game.game_over:
        return {"seat": None, "steps": []}
    table = action_table(game.num_players)
    seat = game.current_player
    chosen: list[int] = []
    if played is not None:
        move = Move.parse(played)
        chosen = table.move_actions(move, seat)
        is_open = move.kind is MoveKind.OPEN
    else:
        is_open = False
    steps = []
    pending: list[Meld] = []
    for k in range(len(chosen) if is_open else 1):
        probs = step_probabilities(model, game, pending, features)
        mark = chosen[k] if k < len(chosen) else None
        rows = [{"move": _label(game, a), "p": p, "played": a == mark} for a, p in probs[:TOP]]
        rest = sum(p for _a, p in probs[TOP:])
        if mark is not None and all(not r["played"] for r in rows):
            rows += [{"move": _label(game, a), "p": p, "played": True} for a, p in probs if a == mark]
        steps.append({"pending": [str(m) for m in pending], "legal": len(probs), "rows": rows, "others": rest})
        if is_open:
            pending.append(move.melds[k])
    return {"seat": seat, "steps": steps}
