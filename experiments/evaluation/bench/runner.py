"""Running ``carioca bench``: the units of the chosen sections, round-robin, into one document.

:func:`run_bench` returns the result document whose format the package docstring
describes (:data:`FORMAT`, :data:`VERSION`).
"""

from __future__ import annotations

import datetime as _dt
import os
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from carioca_experiments.evaluation.bench.clone import clone_units
from carioca_experiments.evaluation.bench.config import FULL, PPO_ENV, PPO_TRAIN_CONFIG, SECTIONS, TRAIN_SETTINGS, Sizes
from carioca_experiments.evaluation.bench.engine import engine_units
from carioca_experiments.evaluation.bench.env import env_units
from carioca_experiments.evaluation.bench.machine import machine_info
from carioca_experiments.evaluation.bench.masks import mask_units
from carioca_experiments.evaluation.bench.play import play_units, same_choices
from carioca_experiments.evaluation.bench.ppo import ppo_units
from carioca_experiments.evaluation.bench.profiling import profile_hotspots
from carioca_experiments.evaluation.bench.reference import reference_units
from carioca_experiments.evaluation.bench.summary import compute_ratios, summarize
from carioca_experiments.evaluation.bench.units import Sample, Unit

FORMAT = "carioca-bench"
VERSION = 1


def build_units(sections: Sequence[str], sizes: Sizes, seed: int, messages: list[str],
                baseline: Path | None = None) -> list[Unit]:
    """The units of ``sections`` in order; a section whose imports fail is skipped with a
    message.  ``baseline``: the checkout the ``play`` section compares with."""
    units: list[Unit] = []
    for section in sections:
        try:
            if section == "engine":
                units += engine_units(sizes, seed)
            elif section == "env":
                units += env_units(sizes, seed)
            elif section == "masks":
                units += mask_units(sizes, seed)
            elif section == "reference":
                units += reference_units(sizes, seed, messages)
            elif section == "clone":  # experiments/evaluation/bench/clone.py: what search pays per simulation
                units += clone_units(sizes, seed, messages)
            elif section == "ppo":
                units += ppo_units(sizes, seed)
            elif section == "play":  # experiments/evaluation/bench/play.py: against a baseline checkout
                units += play_units(sizes, seed, baseline, messages)
            else:
                raise ValueError(f"unknown section {section!r} (choose from {', '.join(SECTIONS)})")
        except ImportError as exc:
            messages.append(f"section {section} skipped: {exc}")
    return units


def run_bench(
    sections: Sequence[str] = SECTIONS,
    sizes: Sizes = FULL,
    seed: int = 0,
    repeats: int = 3,
    progress: bool = True,
    profile: bool = False,
    baseline: Path | None = None,
) -> dict[str, Any]:
    """Run the measurements and return the result document (see the module docstring);
    ``baseline`` is the checkout the ``play`` section also times."""
    messages: list[str] = []
    started = time.time()
    machine = machine_info()
    units = build_units(sections, sizes, seed, messages, baseline)
    reps = {u.key: (1 if u.once else min(repeats, u.max_repeats or repeats)) for u in units}
    samples: dict[str, list[Sample]] = {u.key: [] for u in units}
    errors: list[dict[str, str]] = []
    failed: set[str] = set()
    bar = None
    if progress:
        try:
            from carioca_experiments.common.progress import progress_bar

            bar = progress_bar(total=sum(reps.values()), unit="run", file=sys.stderr)
        except ImportError:  # tqdm missing: no bar
            bar = None

    def measure(u: Unit, rep: int) -> None:
        if bar is not None:
            bar.set_description(f"{u.section} rep {rep + 1}/{reps[u.key]} {u.key}")
        if u.key not in failed:
            try:
                samples[u.key].append(u.fn(rep))
            except Exception as exc:  # noqa: BLE001 - one failing measurement must not stop the run
                failed.add(u.key)
                errors.append({"key": u.key, "error": f"{type(exc).__name__}: {exc}"})
        if bar is not None:
            bar.update(1)

    # round-robin: repetition r of every measurement before repetition r+1 of any
    for rep in range(max(reps.values(), default=0)):
        for u in units:
            if not u.once and rep < reps[u.key]:
                measure(u, rep)
    for u in units:
        if u.once:
            measure(u, 0)
    if bar is not None:
        bar.close()
    for u in units:
        if u.cleanup is not None:
            try:
                u.cleanup()
            except Exception as exc:  # noqa: BLE001
                errors.append({"key": u.key, "error": f"cleanup: {type(exc).__name__}: {exc}"})

    metrics: dict[str, dict[str, Any]] = {}
    for u in units:
        ss = samples[u.key]
        metrics[u.key] = {
            "section": u.section,
            "label": u.label,
            "unit": u.unit,
            "higher_is_better": u.higher_is_better,
            "note": u.note,
            **summarize([s.value for s in ss]),
            "extra": [s.extra for s in ss],
        }
    doc: dict[str, Any] = {
        "format": FORMAT,
        "version": VERSION,
        "created": _dt.datetime.fromtimestamp(started).isoformat(timespec="seconds"),
        "elapsed_s": None,
        "seed": seed,
        "repeats": repeats,
        "sections": list(sections),
        "sizes": asdict(sizes),
        "train_settings": TRAIN_SETTINGS,
        "ppo_env": {**PPO_ENV, "deals": list(PPO_ENV["deals"])},
        "ppo_train_config": {**PPO_TRAIN_CONFIG, "opponents": list(PPO_TRAIN_CONFIG["opponents"])},
        "machine": machine,
        "metrics": metrics,
        "ratios": compute_ratios(metrics, sizes),
        "baseline": None if baseline is None else str(baseline),
        "same_choices": same_choices(metrics),
        "messages": messages,
        "errors": errors,
    }
    if profile:
        doc["profile"] = profile_hotspots(seed)
    doc["elapsed_s"] = time.time() - started
    doc["machine"]["loadavg_end"] = list(os.getloadavg()) if hasattr(os, "getloadavg") else None
    return doc
