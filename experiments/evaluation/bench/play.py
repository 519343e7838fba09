"""The ``play`` section of ``carioca bench``: where users wait on the agents, against a baseline checkout.

Four workloads (:mod:`carioca_experiments.evaluation.bench.workloads`): heuristic decisions per
second, tournament deals per second (one worker), single-agent wrapper steps per second
with a heuristic opponent, and search decisions per second at a fixed budget.  Each
repetition runs in a fresh process (caches start empty), so the figures are those of a
cold start, as a tournament or a training run sees them.

With ``--baseline PATH`` (a checkout of another commit, for example ``git worktree add
/tmp/base dbb015d``), each workload is also run with that checkout's code on
``PYTHONPATH``, interleaved with this one's (repetition r of both before r + 1 of
either), and the ratio ``play.<w>/baseline`` is this checkout's figure over the
baseline's.  The workloads print a digest of their moves: ``same_choices`` in the
result says whether both checkouts made the same moves for the same seed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from carioca_experiments.evaluation.bench.config import Sizes
from carioca_experiments.evaluation.bench.units import Sample, Unit

#: the script every repetition runs (by path: the baseline's code must not import it)
WORKLOAD_SCRIPT = Path(__file__).with_name("workloads.py")

#: (workload, metric key, label, unit)
PLAY_WORKLOADS = (
    ("heuristic", "play.heuristic.p2", "heuristic decisions/s, 2p, contracts 1-7", "/s"),
    ("tournament", "play.tournament.p2", "tournament heuristic v greedy, deals/s, 1 worker", "/s"),
    ("wrapper", "play.wrapper.heuristic.p2", "gym wrapper steps/s, heuristic opponent, full game", "/s"),
    ("search", "play.search.p2", "search decisions/s at a fixed budget, 2p", "/s"),
)


def check_baseline(path: Path) -> Path:
    """``path`` resolved, if it looks like a checkout of this project.

    Raises:
        ValueError: no ``carioca_env`` package and ``agents`` folder in it.
    """
    root = path.expanduser().resolve()
    if not (root / "carioca_env" / "__init__.py").is_file() or not (root / "agents").is_dir():
        raise ValueError(f"--baseline {path} is not a checkout of carioca-env (no carioca_env/ and agents/ in it)")
    return root


def _sizes(sizes: Sizes) -> dict[str, int]:
    return {"heuristic": sizes.play_heuristic_decisions, "tournament": sizes.play_tournament_decks,
            "wrapper": sizes.play_wrapper_steps, "search": sizes.play_search_states}


def import_path(root: Path, scratch: Path) -> tuple[Path, str]:
    """Where a process imports the checkout ``root`` from, and its names (``new`` or ``old``).

    A checkout from before the rename is imported from its root (``agents``,
    ``experiments``); a later one installs its folders under the ``carioca`` names, which
    a plain path cannot give, so ``scratch`` gets links named for them.
    """
    renamed = "carioca_agents" in (root / "pyproject.toml").read_text(encoding="utf-8")
    if not renamed:
        return root, "old"
    scratch.mkdir(parents=True, exist_ok=True)
    for name, folder in (("carioca_env", "carioca_env"), ("carioca_agents", "agents"),
                         ("carioca_experiments", "experiments")):
        link = scratch / name
        if not link.is_symlink():
            link.symlink_to(root / folder, target_is_directory=True)
    return scratch, "new"


def run_workload(root: Path | None, workload: str, size: int, seed: int, sims: int) -> dict:
    """Run one workload in a fresh process: of the checkout ``root`` (first on the path),
    or of this process's own install when ``root`` is ``None``.

    Raises:
        RuntimeError: the process failed (its last lines of stderr in the message).
    """
    env = dict(os.environ)
    names = "new"
    with tempfile.TemporaryDirectory(prefix="carioca-bench-") as scratch:
        if root is not None:
            path, names = import_path(root, Path(scratch))
            env["PYTHONPATH"] = str(path)
        cmd = [sys.executable, str(WORKLOAD_SCRIPT), workload, "--size", str(size), "--seed", str(seed),
               "--sims", str(sims), "--names", names]
        proc = subprocess.run(cmd, cwd=scratch, env=env, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        tail = " | ".join(proc.stderr.strip().splitlines()[-3:])
        raise RuntimeError(f"{workload} under {root} failed ({proc.returncode}): {tail}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _unit(key: str, label: str, unit: str, run: Callable[[], dict], note: str) -> Unit:
    def fn(rep: int) -> Sample:
        out = run()
        return Sample(out.pop("value"), out)

    return Unit("play", key, label, unit, fn, note=note)


def play_units(sizes: Sizes, seed: int, baseline: Path | None, messages: list[str]) -> list[Unit]:
    """This checkout's workloads, each followed by the baseline's when there is one."""
    amounts = _sizes(sizes)
    sims = sizes.play_search_sims
    if baseline is None:
        messages.append("play: no --baseline checkout given, so these figures have no reference "
                        "(e.g. git worktree add /tmp/base dbb015d, then --baseline /tmp/base)")
    units = []
    for workload, key, label, unit in PLAY_WORKLOADS:
        size = amounts[workload]
        note = f"size {size}" + (f", sims {sims}" if workload == "search" else "") + "; a fresh process per repetition"

        def ours_run(w: str = workload, n: int = size) -> dict:
            return run_workload(None, w, n, seed, sims)  # this process's install

        units.append(_unit(key, label, unit, ours_run, note))
        if baseline is not None:
            def base_run(w: str = workload, n: int = size, root: Path = baseline) -> dict:
                return run_workload(root, w, n, seed, sims)

            units.append(_unit(f"{key}.baseline", f"{label} [baseline]", unit, base_run,
                               f"{note}; the checkout {baseline}"))
    return units


def same_choices(metrics: dict[str, dict]) -> dict[str, bool]:
    """Per workload measured in both checkouts, whether every repetition's digest of
    moves matched (the same seed gave the same choices)."""
    out = {}
    for _, key, _, _ in PLAY_WORKLOADS:
        a, b = metrics.get(key), metrics.get(f"{key}.baseline")
        if a and b and a["extra"] and b["extra"]:
            out[key] = {e.get("digest") for e in a["extra"]} == {e.get("digest") for e in b["extra"]}
    return out
