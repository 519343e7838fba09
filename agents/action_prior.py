"""The advice prior: the heuristic's advice scored against every action id, added to the logits.

With ``features="advice_play"`` the observation says what the heuristic would do: take
the top discard or not (``advice_take``), which discards it ranks best
(``advice_best``, ``advice_discard``), the cards of its next opening meld, or the card,
table meld and slot of its next lay-off or swap (``advice_play``, ``advice_target``,
``advice_slot``; :mod:`carioca_agents.advice`).  A plain action layer must learn, for
each of its 2,191 ids (2 players), that the advice of that id's cards points at it: the
558 opening-meld ids and the lay-off ids are each chosen in a few states of the data.

:class:`AdvicePriorHead` adds, to the action layer's logits, one learned weight per
kind of advice times a fixed score of each action id against that advice (residual
policy learning over the heuristic):

=============  ==============================================================================
weight         score of an action id
=============  ==============================================================================
take           draw_discard: ``advice_take``; draw_stock: ``1 - advice_take``
best           discard ``c``: ``advice_best[c]``
discard        discard ``c``: ``advice_discard[c]``
open           open_meld ``m``: 1 when every card of ``m`` is among the advised cards
               (``2 * advice_play[c]`` copies of each type ``c``)
open_slot      open_meld ``m``: the ``open`` score times the match of ``m``'s kind (a trio, a
               run with its joker at the low or high end, any other run) with
               ``advice_slot``
lay_off        lay_off ``(c, t, s)``: ``advice_play[c] * advice_target[t] * advice_slot[s]``
swap           swap ``(c, t, e)``: ``advice_play[c] * advice_target[t] * advice_slot[1 + e]``
=============  ==============================================================================

The weights start at :data:`INITIAL_WEIGHT` (2: an advised action is about 7 times as
likely as another before any training); imitation learns how far to trust each kind,
and fine-tuning can lower a weight where the heuristic is wrong.  Starting the weights at
0 instead would leave the prior almost unused in a short run: Adam moves a weight
about one learning rate per step.
The advice pieces reach the action layer through the actor's latent
(:class:`AdvicePassThrough` appends them), so every path sb3 uses to compute logits
(``forward``, ``evaluate_actions``, ``get_distribution``) and the fast
``carioca_agents.ppo_agent.masked_logits`` see the same prior.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from torch import nn

from carioca_env.cards import NUM_CARD_TYPES

#: The observation pieces the prior reads, in the order the latent carries them.
PRIOR_PIECES = ("advice_take", "advice_best", "advice_discard", "advice_play", "advice_target", "advice_slot")
#: The learned weights, one per kind of advice (see the module docstring's table).
PRIOR_WEIGHTS = ("take", "best", "discard", "open", "open_slot", "lay_off", "swap")
#: Copies of one card type an opening meld can hold at most (two packs; a trio of two
#: naturals of one suit has 2).
_MAX_COPIES = 3
#: Every prior weight at the start: e**2, about 7 to 1 for an advised action over another
#: before any training (from 0, Adam moves a weight about one learning rate per step, and
#: a tiny imitation run left them near 0.03).
INITIAL_WEIGHT = 2.0


def action_prior_spec(num_players: int, features: str) -> dict[str, Any]:
    """The prior's constructor data for a layout (plain lists, saved with the model): the
    ``[start, stop)`` of each piece of :data:`PRIOR_PIECES` and the player count.

    Raises:
        ValueError: the feature set has no ``advice_play`` pieces.
    """
    from carioca_env.observation import has_pieces_of, obs_layout

    if not has_pieces_of(features, "advice_play"):
        raise ValueError(f"the advice prior reads the advice_play pieces; features={features!r} has none "
                         f"(use features='advice_play')")
    slices = obs_layout(num_players, features).slices
    return {"players": num_players, "pieces": [[slices[n].start, slices[n].stop] for n in PRIOR_PIECES],
            "base_reads_advice": False}


def prior_width(spec: dict[str, Any]) -> int:
    """Values the pass-through appends to the actor's latent."""
    return sum(b - a for a, b in spec["pieces"])


class AdvicePassThrough(nn.Module):
    """The actor's MLP, with the advice pieces of the observation appended to its output."""

    def __init__(self, base: nn.Module, spec: dict[str, Any]) -> None:
        super().__init__()
        self.base = base
        self.pieces = [slice(a, b) for a, b in spec["pieces"]]

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """``[MLP(x), x[advice pieces]]`` for a batch of flat observations."""
        return torch.cat([self.base(x), *(x[:, s] for s in self.pieces)], dim=-1)


def _index_tables(num_players: int) -> dict[str, np.ndarray]:
    """The fixed tables that score every action id of ``num_players`` seats (see the
    module docstring): id ranges, each opening meld's copies per card type and kind, and
    each lay-off's and swap's (card, target, slot)."""
    from carioca_agents.advice import PLAY_TARGETS_PER_SEAT, opening_slot
    from carioca_env.actions import LAYOFF_SLOTS, SWAP_SLOTS, ActionKind, action_table

    table = action_table(num_players)
    melds = table.open_melds
    levels = np.zeros((NUM_CARD_TYPES * _MAX_COPIES, len(melds)), dtype=np.float32)
    kinds = np.zeros((len(melds), 4), dtype=np.float32)  # trio, run joker low, run joker high, other run
    for m, meld in enumerate(melds):
        for c in set(meld.cards):
            for k in range(meld.cards.count(c)):
                levels[k * NUM_CARD_TYPES + c, m] = 1.0
        slot = opening_slot(meld)
        kinds[m, 3 if slot is None else slot] = 1.0
    out: dict[str, np.ndarray] = {"levels": levels, "kinds": kinds}
    for name, kind, slots, offset in (("lay", ActionKind.LAY_OFF, LAYOFF_SLOTS, 0),
                                      ("swap", ActionKind.SWAP, SWAP_SLOTS, 1)):
        rows = []
        for a in table.ranges[kind]:
            d = table.decode(a)
            # the target's index in advice_target, laid out as the encoder lays it out
            rows.append((d.card, d.rel_seat * PLAY_TARGETS_PER_SEAT + d.index, offset + slots.index(d.end)))
        out[name] = np.array(rows, dtype=np.int64)
    out["ranges"] = np.array([[table.ranges[k].start, table.ranges[k].stop] for k in ActionKind], dtype=np.int64)
    return out


class AdvicePriorHead(nn.Module):
    """The action layer plus the advice prior: ``base(latent) + sum_k w_k * score_k(advice)``.

    ``base`` is a linear action layer over the actor's latent without the advice pieces at
    its end (the prior is what reads them); with ``base_reads_advice`` (the spec of the
    first prior models, which lack the key) it is sb3's layer over the whole latent, a
    weight per action id and advice value: about 370,000 more weights at 2 players,
    which the prior makes redundant and which nearly double a shipped file.  The fixed
    tables are buffers rebuilt from the spec, not saved.
    """

    #: the fixed index tables, registered as buffers in __init__ (declared for the type checker)
    levels: torch.Tensor
    kinds: torch.Tensor
    lay: torch.Tensor
    swap: torch.Tensor

    def __init__(self, base: nn.Linear, spec: dict[str, Any]) -> None:
        super().__init__()
        from carioca_env.actions import ActionKind

        sizes = [b - a for a, b in spec["pieces"]]
        self.width = sum(sizes)
        self.reads_advice = bool(spec.get("base_reads_advice", True))
        if not self.reads_advice:
            # the same layer and initialization as sb3's (orthogonal, gain 0.01), narrower
            base = nn.Linear(base.in_features - self.width, base.out_features)
            nn.init.orthogonal_(base.weight, gain=0.01)
            nn.init.zeros_(base.bias)
        self.base = base
        self.weights = nn.Parameter(torch.full((len(PRIOR_WEIGHTS),), INITIAL_WEIGHT))
        self.splits = sizes
        t = _index_tables(int(spec["players"]))
        for name in ("levels", "kinds", "lay", "swap"):
            self.register_buffer(name, torch.as_tensor(t[name]), persistent=False)
        self.ranges = {k: (int(t["ranges"][k][0]), int(t["ranges"][k][1])) for k in ActionKind}
        self.num_actions = int(t["ranges"][-1][1])

    def scores(self, advice: torch.Tensor) -> torch.Tensor:
        """``B x len(PRIOR_WEIGHTS) x actions``: each kind's score of every action id."""
        from carioca_env.actions import ActionKind as K

        take, best, disc, play, target, slot = torch.split(advice, self.splits, dim=-1)
        b = advice.shape[0]
        out = advice.new_zeros((b, len(PRIOR_WEIGHTS), self.num_actions))
        out[:, 0, self.ranges[K.DRAW_STOCK][0]] = 1.0 - take[:, 0]
        out[:, 0, self.ranges[K.DRAW_DISCARD][0]] = take[:, 0]
        d0, d1 = self.ranges[K.DISCARD]
        out[:, 1, d0:d1] = best
        out[:, 2, d0:d1] = disc
        # an opening meld is covered when each of its copies of a type is advised:
        # copies held at level k (k+1 or more) against the meld's k-th copy of that type
        copies = 2.0 * play
        have = torch.cat([(copies > k + 0.5).to(advice.dtype) for k in range(_MAX_COPIES)], dim=-1)
        missing = (1.0 - have) @ self.levels                                    # B x melds
        cover = (missing < 0.5).to(advice.dtype) * (play.sum(-1, keepdim=True) > 0)
        code = torch.cat([slot, (1.0 - slot.max(-1, keepdim=True).values)], dim=-1)  # B x 4
        o0, o1 = self.ranges[K.OPEN_MELD]
        out[:, 3, o0:o1] = cover
        out[:, 4, o0:o1] = cover * (code @ self.kinds.T)
        for row, name, kind in ((5, "lay", K.LAY_OFF), (6, "swap", K.SWAP)):
            idx = getattr(self, name)
            a0, a1 = self.ranges[kind]
            out[:, row, a0:a1] = play[:, idx[:, 0]] * target[:, idx[:, 1]] * slot[:, idx[:, 2]]
        return out

    def forward(self, latent: torch.Tensor) -> torch.Tensor:
        """The logits of a batch of actor latents (the advice pieces last)."""
        prior = torch.einsum("k,bka->ba", self.weights, self.scores(latent[:, -self.width:]))
        return self.base(latent if self.reads_advice else latent[:, :-self.width]) + prior
