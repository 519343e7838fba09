"""The statistics of ``carioca bench``: median, min and max over repetitions, and the ratios.

A ratio compares our figure with a reference's taken in the same run (engine with
engine, environment with environment): the ratio of the medians and the paired
per-repetition ratios.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from typing import Any

from carioca_experiments.evaluation.bench.clone import CLONE_RATIOS
from carioca_experiments.evaluation.bench.config import Sizes
from carioca_experiments.evaluation.bench.play import PLAY_WORKLOADS


def summarize(values: Sequence[float | None]) -> dict[str, Any]:
    """Median, min and max of the defined values (``None`` where there are none)."""
    vals = [v for v in values if v is not None and math.isfinite(v)]
    if not vals:
        return {"median": None, "min": None, "max": None, "n": 0, "values": list(values)}
    return {
        "median": statistics.median(vals),
        "min": min(vals),
        "max": max(vals),
        "n": len(vals),
        "values": list(values),
    }


#: (ratio key, our metric, reference metric, what the ratio column says)
def _ratio_specs(sizes: Sizes) -> list[tuple[str, str, str, str]]:
    specs = []
    if 2 in sizes.engine_players:
        for k in sizes.engine_contracts:
            specs.append((f"engine.p2.c{k}/openspiel", f"engine.decisions.p2.c{k}", "ref.openspiel.decisions",
                          "OpenSpiel legal+apply"))
    if 2 in sizes.env_players:
        specs += [
            ("env.p2/rlcard", "env.aec.p2", "ref.rlcard.steps", "RLCard env.step"),
            ("env.p2/openspiel_obs", "env.aec.p2", "ref.openspiel.decisions_obs", "OpenSpiel +obs tensor"),
            ("env.p2/floor", "env.aec.p2", "env.floor.p2", "floor env (no game work)"),
        ]
    specs += CLONE_RATIOS
    specs += [(f"{key.removeprefix('play.')}/baseline", key, f"{key}.baseline", "baseline checkout")
              for _, key, _, _ in PLAY_WORKLOADS]
    specs += [
        ("ppo.settings/defaults", "ppo.real.settings", "ppo.real.defaults", "defaults"),
        ("ppo.settings/defaults_1thread", "ppo.real.settings", "ppo.real.defaults_1thread", "defaults+1 thread"),
        ("ppo.defaults_1thread/defaults", "ppo.real.defaults_1thread", "ppo.real.defaults", "defaults"),
        ("ppo.real/synthetic", "ppo.real.settings", "ppo.synthetic.settings", "synthetic env"),
        ("ppo.defaults_1thread.real/synthetic", "ppo.real.defaults_1thread", "ppo.synthetic.defaults_1thread",
         "synthetic env"),
        ("ppo.settings/1env", "ppo.real.settings", "ppo.real.settings.1env", "1 env"),
        ("ppo.dummy2/1env", "ppo.real.settings.dummy2", "ppo.real.settings.1env", "1 env"),
        ("ppo.subproc2/1env", "ppo.real.settings.subproc2", "ppo.real.settings.1env", "1 env"),
    ]
    return specs


def compute_ratios(metrics: dict[str, dict[str, Any]], sizes: Sizes) -> list[dict[str, Any]]:
    """Ratio of our median to the reference's, and the per-repetition (paired) ratios."""
    out = []
    for key, ours, ref, against in _ratio_specs(sizes):
        a, b = metrics.get(ours), metrics.get(ref)
        if not a or not b or not a["median"] or not b["median"]:
            continue
        paired = [
            x / y for x, y in zip(a["values"], b["values"])
            if x is not None and y is not None and y > 0
        ]
        out.append(
            {
                "key": key,
                "ours": ours,
                "reference": ref,
                "against": against,
                "ratio": a["median"] / b["median"],
                "paired_median": statistics.median(paired) if paired else None,
                "paired_min": min(paired) if paired else None,
                "paired_max": max(paired) if paired else None,
            }
        )
    return out
