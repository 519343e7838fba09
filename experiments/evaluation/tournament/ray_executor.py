"""Tasks on a Ray cluster (``carioca tournament --backend ray``); needs ``pip install carioca-env[ray]``.

Each item (a chunk of tasks) becomes one Ray task asking for one CPU.  The driver keeps
at most ``workers`` of them in flight when ``workers`` is below the cluster's CPUs, else
twice the cluster's CPUs (``ray.wait`` as they finish), so a huge
tournament neither floods the cluster's scheduler nor holds every result in the object
store; it yields results as they arrive, and the runner appends them to the results file.

Which cluster: ``address`` (``--address``), else the ``RAY_ADDRESS`` environment variable,
else a Ray instance started here with ``workers`` CPUs (stopped again by :meth:`close`).
If Ray is already initialized in this process (a notebook, a test fixture) it is used as
it is and left running.

Failures: a task whose worker process or node dies is retried by Ray itself
(``max_retries``); an exception raised by the task is not retried (the task is
deterministic), it comes back as :class:`TaskFailed` with the task id and the worker's
traceback.

Workers import this project and any ``py:`` plugin module: on a local cluster they get
this process's ``sys.path`` through ``PYTHONPATH``; on a real cluster install the
package on every node (or pass a Ray ``runtime_env``, see ``docs/ray.md``).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

from carioca_experiments.common.ray_cluster import RayUnavailable, connect
from carioca_experiments.evaluation.tournament.errors import TaskFailed, TournamentError
from carioca_experiments.evaluation.tournament.executors import as_task_failed

T = TypeVar("T")
R = TypeVar("R")


def _call(fn: Callable[[Any], Any], item: Any, preload: tuple[str, ...] = ()) -> Any:
    """What a Ray worker runs: ``fn(item)`` (module level, so it is found by reference),
    after importing ``preload``, the modules that added luck value versions in the driver
    (a study's, from a checkout), so that the worker reads the same table."""
    for module in preload:
        importlib.import_module(module)
    return fn(item)


class RayExecutor:
    """Runs items as Ray tasks (see the module docstring).

    Args:
        address: the cluster (``"auto"``, ``"ray://host:10001"``, ``"host:6379"``);
            default ``RAY_ADDRESS``, else a local Ray started here.
        workers: tasks running at once (fewer than the cluster's CPUs: exactly this many
            in flight); also the CPUs of a Ray started here.  ``None``: the whole cluster,
            with twice its CPUs in flight.
        retries: Ray's ``max_retries`` for tasks whose worker died.
        cpus_per_task: the CPU request of each task.
    """

    def __init__(self, address: str | None = None, workers: int | None = None, retries: int = 2,
                 cpus_per_task: float = 1.0) -> None:
        if workers is not None and (not isinstance(workers, int) or workers < 1):
            raise TournamentError(f"--workers must be at least 1, got {workers!r}")
        try:
            ray, self._owns = connect(address, workers)
        except RayUnavailable as exc:
            raise TournamentError(str(exc)) from None
        self._ray = ray
        cluster_cpus = int(ray.cluster_resources().get("CPU", 1)) or 1
        self.parallelism = min(workers, cluster_cpus) if workers else cluster_cpus
        # Fewer workers than the cluster's CPUs: exactly that many tasks at once. The whole
        # cluster: twice as many in flight, so a CPU that frees up finds its next task
        # already queued on its node instead of waiting for a round trip to the driver.
        self.in_flight = self.parallelism if self.parallelism < cluster_cpus else 2 * self.parallelism
        self._remote = ray.remote(num_cpus=cpus_per_task, max_retries=retries, retry_exceptions=False)(_call)

    def map_unordered(self, fn: Callable[[T], R], items: Sequence[T], task_id: Callable[[T], str]) -> Iterator[R]:
        """``fn(item)`` as Ray tasks, yielded as each finishes."""
        ray = self._ray
        from carioca_experiments.evaluation.luck.value import registered_modules

        fn_ref = ray.put(fn)  # the config travels once, not with every chunk
        preload = registered_modules()
        queue = list(range(len(items)))[::-1]
        running: dict[Any, int] = {}
        try:
            while queue or running:
                while queue and len(running) < self.in_flight:
                    i = queue.pop()
                    running[self._remote.remote(fn_ref, items[i], preload)] = i
                ready, _ = ray.wait(list(running), num_returns=1)
                for ref in ready:
                    i = running.pop(ref)
                    try:
                        result = ray.get(ref)
                    except ray.exceptions.RayTaskError as exc:
                        cause = exc.cause if isinstance(exc.cause, BaseException) else exc
                        if isinstance(cause, TaskFailed):
                            raise cause from None
                        raise TaskFailed(task_id(items[i]), f"{type(cause).__name__}: {cause}\n{exc.traceback_str}") from None
                    except ray.exceptions.RayError as exc:  # the worker or its node died for good
                        raise TaskFailed(task_id(items[i]), f"{type(exc).__name__}: {exc}") from None
                    except Exception as exc:
                        raise as_task_failed(exc, task_id(items[i])) from None
                    yield result
        finally:
            for ref in running:
                ray.cancel(ref, force=True)

    def close(self) -> None:
        """Shut down a Ray instance this executor started (a joined cluster stays up)."""
        if self._owns and self._ray.is_initialized():
            self._ray.shutdown()
        self._owns = False
