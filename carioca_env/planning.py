"""The optional ``planning`` observation piece: the hand's plan towards the contract.

``carioca_v0.env(features="planning")`` appends these values to the observation (the
table in :mod:`carioca_env.observation` lists them).  They are computed from the seat's
:class:`~carioca_env.PlayerView` only, with the exact hand analysis of
:mod:`carioca_env.analysis`:

* ``plan_deficiency``: the hand's exact deficiency for the deal's contract (fewest cards
  still missing, jokers included) divided by the contract's card count; 0 once the seat
  has opened;
* ``plan_used``: per card type, 1 when some optimal plan of the hand uses that type
  (discarding any other type changes neither the deficiency nor the outs); before
  opening only;
* ``plan_outs``: per card type, 1 when drawing one more copy lowers the deficiency (the
  hand's outs); before opening only;
* ``plan_fits``: per card type, 1 when a natural of that type can be laid off on a meld
  on the table now (a trio's rank; the card below or above a run).

``features="discards"`` appends, after those four, what each discard would leave
(the inputs of the heuristic's discard choice, so that a learner need not rediscover
the exact hand analysis from the raw cards):

* ``disc_deficiency``: per card type held, the deficiency of the hand left by
  discarding one copy, divided by the contract's card count (0 for types not held, and
  once the seat has opened);
* ``disc_outs``: per card type held, the live outs of that hand (unseen copies of the
  card types that would lower its deficiency) divided by 24, at most 1;
* ``top_gain``: two flags on the top discard: it lowers the hand's deficiency (before
  opening), and it can be laid off on a table meld now (the draw choice of the
  heuristic, which a network trained on a few thousand draws hardly learns from the
  raw one-hots).

``features="advice"`` appends, after all of those, the heuristic's own verdicts, so
that a learner starts from its teacher's choices and learns where to depart from them
(a learner given only the ``discards`` inputs must rediscover the heuristic's choices
from them; measured in ``docs/results/2026-12-01-learned-set.md``):

* ``advice_discard``: per card type held, when the seat is to discard (after its draw,
  and the heuristic would not meld instead), ``1 - (cost - best) / 10`` at least 0,
  where ``cost`` is the heuristic's cost of discarding that type
  (:meth:`agents.heuristic.HeuristicAgent.discard_costs`, the default weights) and
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

Being a function of the view alone, it cannot leak a hidden card; the leak test
reshuffles the hidden cards and checks the whole observation, these pieces included.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from carioca_env.analysis import analyze, counts_minus, sim_table, unseen_counts
from carioca_env.cards import JOKER, NUM_CARD_TYPES
from carioca_env.game import PlayerView
from carioca_env.melds import End, Meld, MeldKind

#: ``(name, size, meaning)`` of the planning piece, in order
PLANNING_PIECES: tuple[tuple[str, int, str], ...] = (
    ("plan_deficiency", 1, "contract cards still missing / contract cards (0 once opened)"),
    ("plan_used", NUM_CARD_TYPES, "card types some optimal plan uses (before opening)"),
    ("plan_outs", NUM_CARD_TYPES, "card types that lower the deficiency when drawn (before opening)"),
    ("plan_fits", NUM_CARD_TYPES, "card types a table meld takes now"),
)
PLANNING_SIZE = sum(size for _, size, _ in PLANNING_PIECES)

#: ``(name, size, meaning)`` of the discard piece (``features="discards"``), in order
DISCARD_PIECES: tuple[tuple[str, int, str], ...] = (
    ("disc_deficiency", NUM_CARD_TYPES, "per card type held: deficiency after discarding it / contract cards"),
    ("disc_outs", NUM_CARD_TYPES, "per card type held: live outs after discarding it / 24 (at most 1)"),
    ("top_gain", 2, "the top discard lowers the deficiency (before opening); it fits a table meld now"),
)
DISCARD_SIZE = sum(size for _, size, _ in DISCARD_PIECES)
#: live outs at which ``disc_outs`` saturates
LIVE_OUTS_SCALE = 24.0

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


def encode_planning(view: PlayerView) -> np.ndarray:
    """The planning piece of ``view``'s seat (``PLANNING_SIZE`` float32 values in [0, 1])."""
    out = np.zeros(PLANNING_SIZE, dtype=np.float32)
    used0 = 1
    outs0 = used0 + NUM_CARD_TYPES
    fits0 = outs0 + NUM_CARD_TYPES
    if not view.opened[view.seat]:
        a = analyze(view.hand_counts, view.contract)
        out[0] = a.deficiency / view.contract.cards
        for c in a.used_types:
            out[used0 + c] = 1.0
        for c in a.outs:
            out[outs0 + c] = 1.0
    for meld in sim_table(view):
        for c in meld.needs():
            out[fits0 + c] = 1.0
    return out


def encode_discards(view: PlayerView) -> np.ndarray:
    """The discard piece of ``view``'s seat (``DISCARD_SIZE`` float32 values in [0, 1])."""
    out = np.zeros(DISCARD_SIZE, dtype=np.float32)
    top = view.top_discard
    gain = 2 * NUM_CARD_TYPES
    if top >= 0 and any(m.fits(top) for m in sim_table(view)):
        out[gain + 1] = 1.0
    if view.opened[view.seat]:
        return out
    counts = view.hand_counts
    whole = analyze(counts, view.contract)
    if top >= 0 and top in whole.outs:
        out[gain] = 1.0
    unseen = unseen_counts(view)
    cards = view.contract.cards
    for c, n in enumerate(counts):
        if not n:
            continue
        # a type no optimal plan uses leaves the deficiency and the outs as they are (the
        # test compares every type with its own analysis), so its analysis is skipped
        a = whole if c not in whole.used_types else analyze(counts_minus(counts, c), view.contract)
        out[c] = a.deficiency / cards
        out[NUM_CARD_TYPES + c] = min(1.0, sum(unseen[x] for x in a.outs) / LIVE_OUTS_SCALE)
    return out


def encode_advice(view: PlayerView, choosing_opening: bool = False) -> np.ndarray:
    """The advice piece of ``view``'s seat (``ADVICE_SIZE`` float32 values in [0, 1]):
    zeros unless the seat is the one to act, to draw (``advice_take``), to meld
    (``advice_meld``) or to discard (``choosing_opening``: melds of an opening are being
    chosen)."""
    from agents.heuristic import HeuristicAgent
    from carioca_env.view import Phase

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
    from agents.heuristic import HeuristicAgent

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
