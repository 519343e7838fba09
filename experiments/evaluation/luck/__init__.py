"""Luck-corrected duplicate evaluation (AIVAT-style) for tournaments.

Duplicate decks with rotated seats remove the luck of the deal but not the luck of the
stock draws, which diverge as soon as two agents play differently.  This package values
each stock draw with a frozen value function ``V(state) -> expected final deal penalty of
each seat`` (:mod:`.value`, read from the full state: every hand, the table, the pile, not
the stock's order) and subtracts its luck, ``V(after the draw) - E[V]`` over the cards
still in the stock (:mod:`.correction`).  With a version-4 value function it also values
the agents' own declared coin flips (AIVAT's action terms: ``V(after the option played) -
E[V]`` over the options an agent declared it drew its move from, :mod:`.features4`).
Each correction has expectation 0 whatever ``V`` is, so corrected penalties are unbiased;
a good ``V`` removes much of the variance.

- :class:`LuckTracker` accumulates a deal's corrections while it is played
  (``carioca tournament --luck-correction`` records them per deal).
- :func:`shipped_value` is the default value function shipped with the package
  (``value-v6.json``: networks fitted by :mod:`.fit6` to what each drawn card is worth by
  playouts, on version 3's inputs, where it has them; version 3, ``value-v3.json``, for
  every other model: what the drawn card is worth to each seat, :mod:`.features3`, fitted
  by :mod:`.fit3` so that the corrections explain the penalties, or a multiple of version
  2 where that validated narrower); :func:`value_by_fingerprint` finds any shipped
  version (``value-v1.json``, linear, and ``value-v2.json``, a small network, too:
  :func:`shipped_versions` lists what ships).
- :mod:`.replayed` tabulates corrected tournaments: an agent against its table-mates, or
  one seat replaced by the agent against the all-baseline table of the same decks.
"""

from carioca_experiments.evaluation.luck.correction import LuckTracker
from carioca_experiments.evaluation.luck.value import (
    DEFAULT_VERSION,
    SHIPPED_BY_VERSION,
    SHIPPED_FILE,
    ActionValue,
    AnyValue,
    DrawNetValue,
    DrawValue,
    MlpValue,
    ValueFileError,
    ValueFunction,
    load_value,
    model_key,
    shipped_value,
    shipped_version,
    shipped_versions,
    value_by_fingerprint,
)

__all__ = ["DEFAULT_VERSION", "SHIPPED_BY_VERSION", "SHIPPED_FILE", "ActionValue", "AnyValue", "DrawNetValue",
           "DrawValue", "LuckTracker", "MlpValue", "ValueFileError", "ValueFunction", "load_value", "model_key",
           "shipped_value", "shipped_version", "shipped_versions", "value_by_fingerprint"]
