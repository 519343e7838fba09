"""Training runs as Ray tasks (``carioca train-all --backend ray``).

Each run (one model's training with its learning-curve evaluations,
:func:`carioca_experiments.training.train.train`) is one Ray task that asks for ``cpus_per_run`` CPUs;
Ray runs as many at once as the cluster has room for and sets each worker's thread
count to its request.  Runs are independent and resumable: a run folder that already
holds its steps is skipped by the caller, and a run whose worker died is retried by Ray
from its last checkpoint (``train`` resumes from the folder).

The folders are written by the workers: on a cluster of several machines ``--out`` must
be on a filesystem every node mounts at the same path (NFS, a cloud bucket mounted with
FUSE); on one machine nothing is needed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from carioca_experiments.common.ray_cluster import RayUnavailable, connect
from carioca_experiments.training.train import TrainConfig, TrainError

#: One run: a name (for messages), its configuration, its folder.
Job = tuple[str, TrainConfig, Path]


def _train_one(config: TrainConfig, out: str) -> dict[str, Any]:
    """What a Ray worker runs: one training run into ``out``; a short report back."""
    import time

    from carioca_experiments.training.train import train

    start = time.monotonic()
    lines: list[str] = []
    result = train(config, out, progress=False, log=lines.append)
    return {"steps": result.num_timesteps, "wall_s": time.monotonic() - start, "log": lines,
            "last_eval": [r for r in result.eval_rows if r["steps"] == result.num_timesteps]}


def train_on_ray(jobs: Sequence[Job], *, address: str | None = None, cpus_per_run: float = 1.0,
                 num_cpus: int | None = None, retries: int = 1,
                 log: Callable[[str], None] = print) -> dict[str, dict[str, Any]]:
    """Run every job as a Ray task; returns each run's report by name, as they finish.

    Raises:
        TrainError: Ray unavailable, or a run failed (the message names the run and gives
            the worker's error; the other runs' folders are complete or resumable).
    """
    if not jobs:
        return {}
    try:
        ray, owns = connect(address, num_cpus)
    except RayUnavailable as exc:
        raise TrainError(str(exc)) from None
    try:
        remote = ray.remote(num_cpus=cpus_per_run, max_retries=retries)(_train_one)
        refs = {remote.remote(cfg, str(out)): name for name, cfg, out in jobs}
        log(f"[train-all] {len(refs)} training runs on Ray ({cpus_per_run:g} CPU each; "
            f"cluster: {int(ray.cluster_resources().get('CPU', 0))} CPUs)")
        reports: dict[str, dict[str, Any]] = {}
        pending = list(refs)
        while pending:
            ready, pending = ray.wait(pending, num_returns=1)
            name = refs[ready[0]]
            try:
                rep = ray.get(ready[0])
            except ray.exceptions.RayTaskError as exc:
                for ref in pending:
                    ray.cancel(ref)
                raise TrainError(f"training run {name} failed on Ray: {type(exc.cause).__name__}: {exc.cause}\n"
                                 f"{exc.traceback_str}") from None
            except ray.exceptions.RayError as exc:
                raise TrainError(f"training run {name} failed on Ray: {type(exc).__name__}: {exc}") from None
            reports[name] = rep
            log(f"[train-all] {name} done on Ray: {rep['steps']} steps in {rep['wall_s'] / 60:.1f} min")
        return reports
    finally:
        if owns:
            ray.shutdown()
