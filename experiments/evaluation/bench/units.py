"""What one measurement of ``carioca bench`` is: a :class:`Unit` and the :class:`Sample` it returns.

Every section module builds a list of units; :mod:`carioca_experiments.evaluation.bench.runner` runs them.
Each measurement's seed is derived from the run seed (:func:`carioca_experiments.common.seeds.derive_seed`
in the :data:`~carioca_experiments.common.seeds.BENCH` namespace; no global random state).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Sample:
    """One repetition of a measurement: the headline value and what else was counted."""

    value: float | None
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class Unit:
    """One measurement: a function of the repetition index returning a :class:`Sample`."""

    section: str
    key: str
    label: str
    unit: str  # "/s", "us", "s"
    fn: Callable[[int], Sample]
    higher_is_better: bool = True
    once: bool = False  # measured once, not per repetition
    max_repeats: int | None = None
    note: str = ""
    cleanup: Callable[[], None] | None = None  # called once after its last repetition

