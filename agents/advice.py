"""The heuristic's advice as observation pieces: the ``advice`` and ``advice_play`` feature sets.

The core observation (:mod:`carioca_env.observation`) knows nothing of agents; this
module's :func:`register_advice` registers two feature sets with it
(:func:`~carioca_env.observation.register_feature_set`).  The package offers them through
the entry-point group ``carioca_env.feature_sets``, so ``carioca_v0.env(features="advice")``
works in any process where the package is installed, and loading a model that reads them
registers them first.  Their values are the
verdicts of :class:`~carioca_agents.heuristic.HeuristicAgent` with its default weights, the
*advisor*; a model card records which advisor (:data:`ADVISOR`: name, version and a
fingerprint of its weights) produced them, and loading a model whose advisor changed
warns or refuses (:func:`carioca_agents.ppo_agent.check_advisor`), because a changed heuristic
changes the inputs of a network while the layout (names, offsets, sizes) still matches.

The tables continue those of :mod:`carioca_env.observation` (``n`` players):

With ``features="advice"`` the discard pieces and then four more follow: the
heuristic's own verdicts (:func:`encode_advice`), for a learner that
starts from its teacher's choices:

===============  ===============  ==========================================================
piece            size             meaning
===============  ===============  ==========================================================
advice_discard   53               per card type held, when the seat is to discard:
                                  1 - (the heuristic's cost of discarding it - the lowest
                                  cost) / 10, at least 0
advice_best      53               per card type, when the seat is to discard: the
                                  heuristic's lowest cost (its choice, ties at random)
advice_take      1                when the seat is to draw: the heuristic takes the top
                                  discard
advice_meld      1                after the draw: the heuristic opens, lays off or swaps
                                  rather than discards (the discard advice is then 0)
===============  ===============  ==========================================================

Sizes with advice: 2 players 1,117, 3 players 1,374, 4 players 1,631.

With ``features="advice_play"`` the advice pieces and then three more follow: the
heuristic's next opening meld, lay-off or swap
(:func:`encode_advice_play`), zeros where it would discard:

===============  ===============  ==========================================================
piece            size             meaning
===============  ===============  ==========================================================
advice_play      53               per card type: the copies in the heuristic's next
                                  opening meld / 2 (the most over its tied openings that
                                  begin with the melds chosen so far), or 1 for the card
                                  it lays off or swaps next
advice_target    n x 3            per table meld (seat relative to the actor x the meld's
                                  index): where that lay-off or swap goes
advice_slot      3                trio, low end, high end: the lay-off's slot (a swap:
                                  where the joker goes); at an opening step, a trio or a
                                  run with its joker at the low or high end
===============  ===============  ==========================================================

Sizes with advice_play: 2 players 1,179, 3 players 1,439, 4 players 1,699.

``features="advice"`` appends, after all of those, the heuristic's own verdicts, so
that a learner starts from its teacher's choices and learns where to depart from them
(a learner given only the ``discards`` inputs must rediscover the heuristic's choices
from them; measured in ``docs/results/2026-12-01-learned-set.md``):

* ``advice_discard``: per card type held, when the seat is to discard (after its draw,
  and the heuristic would not meld instead), ``1 - (cost - best) / 10`` at least 0,
  where ``cost`` is the heuristic's cost of discarding that type
  (:meth:`carioca_agents.heuristic.HeuristicAgent.discard_costs`, the default weights) and
  ``best`` the lowest of them: 1 for the heuristic's choice, and one deficiency (10)
  worse is 0; 0 for types not held and outside that phase;
* ``advice_best``: per card type, 1 for the types of the lowest cost (the heuristic
  plays one of them, ties broken at random);
* ``advice_take``: 1 when the seat is to draw and the heuristic would take the top
  discard;
* ``advice_meld``: 1 when the seat has drawn and the heuristic would open (it opens as
  soon as it can, so also while an opening is being chosen), lay off or swap a joker
  rather than discard; the discard advice is then 0, so a learner trusting the
  discard advice does not discard where the heuristic would open.

``features="advice_play"`` appends, after all of those, the heuristic's next opening
meld, lay-off or swap, the choices ``advice_meld`` only flags (with ``advice`` alone a
learner must still pick the meld, the card and the target itself):

* ``advice_play``: per card type, at an opening step, the copies of that type in the
  next meld of the heuristic's best openings that begin with the melds chosen so far,
  divided by 2 (the most over its tied openings); after opening, 1 for the card it
  lays off or swaps next;
* ``advice_target``: per table meld (seat relative to the actor x the meld's index),
  1 for the meld that lay-off or swap goes to;
* ``advice_slot``: 3 flags, the lay-off's slot (a trio; a run's low or high end; for a
  swap, the end the joker moves to); at an opening step, a trio, or a run with its joker
  at the low or high end (the one thing the cards of a run do not say).

All are 0 when the heuristic would discard, and for seats not to act.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence

import numpy as np

from carioca_agents.heuristic import DEFAULT_PARAMS, HeuristicAgent
from carioca_env.cards import JOKER, NUM_CARD_TYPES
from carioca_env.melds import End, Meld, MeldKind
from carioca_env.observation import ExtraPieces, register_feature_set
from carioca_env.view import Phase, PlayerView

#: ``(name, size, meaning)`` of the advice piece (``features="advice"``), in order
ADVICE_PIECES: tuple[tuple[str, int, str], ...] = (
    ("advice_discard", NUM_CARD_TYPES, "per card type held, to discard: 1 - (heuristic cost - best) / 10, at least 0"),
    ("advice_best", NUM_CARD_TYPES, "per card type, to discard: the heuristic's lowest cost"),
    ("advice_take", 1, "to draw: the heuristic takes the top discard"),
    ("advice_meld", 1, "after the draw: the heuristic opens, lays off or swaps rather than discards"),
)
ADVICE_SIZE = sum(size for _, size, _ in ADVICE_PIECES)
#: meld targets per seat (no contract has more than 3 melds)
PLAY_TARGETS_PER_SEAT = 3


def advice_play_pieces(num_players: int) -> tuple[tuple[str, int, str], ...]:
    """``(name, size, meaning)`` of the ``advice_play`` piece for ``num_players`` seats, in order."""
    return (
        ("advice_play", NUM_CARD_TYPES, "per card type: the heuristic's next opening meld (copies / 2) or the card it lays off or swaps"),
        ("advice_target", num_players * PLAY_TARGETS_PER_SEAT, "per table meld (relative seat x index): where that lay-off or swap goes"),
        ("advice_slot", 3, "trio, low end, high end: the lay-off's slot, or the kind of opening meld (a run's joker end)"),
    )


def advice_play_size(num_players: int) -> int:
    """Values in the ``advice_play`` piece for ``num_players`` seats."""
    return sum(size for _, size, _ in advice_play_pieces(num_players))


#: heuristic cost difference at which ``advice_discard`` reaches 0 (one deficiency)
ADVICE_SCALE = 10.0


def encode_advice(view: PlayerView, choosing_opening: bool = False) -> np.ndarray:
    """The advice piece of ``view``'s seat (``ADVICE_SIZE`` float32 values in [0, 1]):
    zeros unless the seat is the one to act, to draw (``advice_take``), to meld
    (``advice_meld``) or to discard (``choosing_opening``: melds of an opening are being
    chosen)."""
    out = np.zeros(ADVICE_SIZE, dtype=np.float32)
    if view.current_player != view.seat or view.game_over:
        return out
    heuristic = HeuristicAgent()  # a fresh one: its verdicts read the view and nothing else
    if view.phase is Phase.DRAW:
        out[-2] = bool(view.discard_pile) and heuristic.takes_discard(view)
        return out
    if heuristic.melds_now(view, choosing_opening):
        out[-1] = 1.0
        return out
    costs = heuristic.discard_costs(view)
    best = min(costs.values())
    for c, cost in costs.items():
        out[c] = max(0.0, 1.0 - (cost - best) / ADVICE_SCALE)
        out[NUM_CARD_TYPES + c] = cost <= best + 1e-9
    return out


def opening_slot(meld: Meld) -> int | None:
    """The ``advice_slot`` flag of an opening meld: 0 a trio, 1 or 2 a run with its joker
    at the low or high end, ``None`` any other run (its cards say where each card goes)."""
    if meld.kind is MeldKind.TRIO:
        return 0
    if meld.cards[0] == JOKER:
        return 1
    if meld.cards[-1] == JOKER:
        return 2
    return None


def encode_advice_play(view: PlayerView, pending: Sequence[Meld] = ()) -> np.ndarray:
    """The ``advice_play`` piece of ``view``'s seat (:func:`advice_play_size` float32 values
    in [0, 1]; ``pending``: the opening melds chosen so far): zeros unless the seat is to
    act and the heuristic would open, lay off or swap."""
    n = view.num_players
    out = np.zeros(advice_play_size(n), dtype=np.float32)
    if view.current_player != view.seat or view.game_over:
        return out
    target0 = NUM_CARD_TYPES
    slot0 = target0 + n * PLAY_TARGETS_PER_SEAT
    for choice in HeuristicAgent().next_melds(view, pending):
        if isinstance(choice, Meld):
            for c in set(choice.cards):
                out[c] = max(out[c], choice.cards.count(c) / 2.0)
            slot = opening_slot(choice)
            if slot is not None:
                out[slot0 + slot] = 1.0
            continue
        out[choice.card] = 1.0
        rel = (choice.owner - view.seat) % n
        out[target0 + rel * PLAY_TARGETS_PER_SEAT + choice.index] = 1.0
        out[slot0 + (0 if choice.end is None else 1 if choice.end is End.LOW else 2)] = 1.0
    return out


# --------------------------------------------------------------------------- the advisor

#: Bump when the heuristic's verdicts change for a reason its weights do not show (a new
#: rule in its code); a change of :data:`~carioca_agents.heuristic.DEFAULT_PARAMS` or of
#: :data:`ADVICE_SCALE` changes the fingerprint by itself.
ADVISOR_VERSION = "1"


def advisor_fingerprint() -> str:
    """A short hash of what the advice values are computed from: the heuristic's default
    weights and the advice's scale."""
    payload = {"params": DEFAULT_PARAMS, "advice_scale": ADVICE_SCALE}
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()[:16]


#: Who computes the ``advice`` and ``advice_play`` pieces (recorded on model cards).
ADVISOR: dict[str, str] = {"advisor": "heuristic", "version": ADVISOR_VERSION, "fingerprint": advisor_fingerprint()}


def _advice_values(view: PlayerView, pending: Sequence[Meld]) -> np.ndarray:
    return encode_advice(view, bool(pending))


def _advice_pieces(num_players: int) -> tuple[tuple[str, int, str], ...]:
    return ADVICE_PIECES


def register_advice() -> None:
    """Register the feature sets ``advice`` and ``advice_play`` with the core.

    Called where they are needed: when a model card that reads them loads
    (:mod:`carioca_agents.ppo_agent`), by the training commands that offer them, and by the
    core itself through the entry points ``advice`` and ``advice_play`` of the group
    ``carioca_env.feature_sets`` when an env is asked for them.  Nothing registers them on
    import, so no other package's files can undo it.  Calling it again changes nothing.
    """
    for extra in _ADVICE_SETS:
        register_feature_set(extra)


#: The two feature sets, built once: registering them again is then a no-op for the core.
_ADVICE_SETS = (ExtraPieces("advice", "discards", _advice_pieces, _advice_values, ADVISOR),
                ExtraPieces("advice_play", "advice", advice_play_pieces, encode_advice_play, ADVISOR))
