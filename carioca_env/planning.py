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

Being a function of the view alone, it cannot leak a hidden card; the leak test
reshuffles the hidden cards and checks the whole observation, these pieces included.
"""

from __future__ import annotations

import numpy as np

from carioca_env.analysis import analyze, counts_minus, sim_table, unseen_counts
from carioca_env.cards import NUM_CARD_TYPES
from carioca_env.view import PlayerView

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
