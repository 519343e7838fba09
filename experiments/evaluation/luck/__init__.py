"""Luck-corrected duplicate evaluation (AIVAT-style) for tournaments.

Duplicate decks with rotated seats remove the luck of the deal but not the luck of the
stock draws, which diverge as soon as two agents play differently.  This package values
each stock draw with a frozen value function ``V(state) -> expected final deal penalty of
each seat`` (:mod:`.value`, read from the full state: every hand, the table, the pile, not
the stock's order) and subtracts its luck, ``V(after the draw) - E[V]`` over the cards
still in the stock (:mod:`.correction`).  Each correction has expectation 0 whatever ``V``
is, so corrected penalties are unbiased; a good ``V`` removes much of the variance.

- :class:`LuckTracker` accumulates a deal's corrections while it is played
  (``carioca tournament --luck-correction`` records them per deal).
- :func:`shipped_value` is the default value function, version :data:`DEFAULT_VERSION`
  (named there only); :data:`SHIPPED_BY_VERSION` maps each live version to its file and
  :func:`value_by_fingerprint` finds any of them, so a tournament corrected by an older one
  can still be resumed.  The inputs are :mod:`.draw_features` (versions 3, 6, 7) and
  :mod:`.race_features` (version 2).

How each version was fitted, and the versions that only reproduce past studies, live in
``experiments/studies/luck/`` (run from a checkout; ``docs/results/luck.md`` says where the
luck correction stands).
"""

from carioca_experiments.evaluation.luck.correction import LuckTracker
from carioca_experiments.evaluation.luck.value import (
    DEFAULT_VERSION,
    LIVE_VERSIONS,
    SHIPPED_BY_VERSION,
    SHIPPED_FILE,
    STUDY_VERSIONS,
    AnyValue,
    DrawNetValue,
    DrawValue,
    LuckValue,
    MlpValue,
    ValueFileError,
    load_value,
    model_key,
    register_version,
    shipped_value,
    shipped_version,
    shipped_versions,
    value_by_fingerprint,
)

__all__ = ["DEFAULT_VERSION", "LIVE_VERSIONS", "SHIPPED_BY_VERSION", "SHIPPED_FILE", "STUDY_VERSIONS", "AnyValue", "DrawNetValue",
           "DrawValue", "LuckTracker", "LuckValue", "MlpValue", "ValueFileError", "load_value", "model_key",
           "register_version", "shipped_value", "shipped_version", "shipped_versions", "value_by_fingerprint"]
