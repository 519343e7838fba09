"""How tasks run: executors with one small protocol, :class:`Executor`.

An executor maps a function over items (chunks of tasks) and yields the results in the
order they finish.  The runner does not care where the work runs: this process
(:class:`SerialExecutor`), local spawn processes (:class:`ProcessExecutor`) or a Ray
cluster (:class:`carioca_experiments.evaluation.tournament.ray_executor.RayExecutor`, imported only when
asked for, so the core install needs no Ray).

Failures: when ``fn`` raises, the executor raises :class:`TaskFailed` with the task id
(the one the exception names if it is a :class:`TaskFailed` itself, else ``task_id(item)``)
and the worker's error text.  A worker *process* that dies (killed, out of memory, a
crashing extension) is replaced and its items are run again, up to ``retries`` times;
an exception raised by the task is not retried, because tasks are deterministic and
would fail the same way again.
"""

from __future__ import annotations

import multiprocessing
import os
import time
import traceback
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Protocol, TypeVar

from carioca_experiments.evaluation.tournament.errors import TaskFailed, TournamentError

T = TypeVar("T")
R = TypeVar("R")

#: The backends ``carioca tournament --backend`` knows.
BACKENDS = ("local", "ray")


class Executor(Protocol):
    """What the runner needs from a backend."""

    #: how many items run at the same time (used to size chunks)
    parallelism: int

    def map_unordered(self, fn: Callable[[T], R], items: Sequence[T], task_id: Callable[[T], str]) -> Iterator[R]:
        """``fn(item)`` for every item, yielded as each finishes.

        Raises:
            TaskFailed: an item failed for good (after the retries the backend makes).
        """
        ...

    def close(self) -> None:
        """Release the workers (idempotent)."""
        ...


def worker_error(exc: BaseException) -> str:
    """The text of an exception with its traceback (what a failed task reports)."""
    return "".join(traceback.format_exception(type(exc), exc, exc.__traceback__)).rstrip()


def as_task_failed(exc: BaseException, task_id: str) -> TaskFailed:
    """``exc`` as a :class:`TaskFailed` of ``task_id`` (kept as it is if it already is one)."""
    if isinstance(exc, TaskFailed):
        return exc
    return TaskFailed(task_id, f"{type(exc).__name__}: {exc}\n{worker_error(exc)}")


class SerialExecutor:
    """Runs every item in this process, in order (``--workers 1``; also the simplest reference)."""

    parallelism = 1

    def map_unordered(self, fn: Callable[[T], R], items: Sequence[T], task_id: Callable[[T], str]) -> Iterator[R]:
        """``fn(item)`` in item order."""
        for item in items:
            try:
                result = fn(item)
            except (KeyboardInterrupt, SystemExit):
                raise
            except Exception as exc:
                raise as_task_failed(exc, task_id(item)) from None
            yield result

    def close(self) -> None:
        """Nothing to release."""


def _worker_init(preload: tuple[str, ...] = ()) -> None:
    """Worker setup: leave Ctrl-C to the parent, exit if the parent dies (e.g. SIGKILL), and
    import ``preload``, the modules that added luck value versions in the parent (a study's,
    from a checkout), so that a spawned worker reads the same table."""
    import importlib
    import signal

    for module in preload:
        importlib.import_module(module)
    import threading

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    parent = os.getppid()

    def watch() -> None:
        while True:
            time.sleep(0.5)
            if os.getppid() != parent:  # re-parented: the tournament process is gone
                os._exit(1)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


class ProcessExecutor:
    """Local worker processes started with ``spawn`` (safe with threads, the same on every OS).

    ``fn`` and the items must pickle (module-level functions, plain data).  At most
    ``2 * workers`` items are in flight, so a huge tournament does not queue everything
    at once.  A worker that dies breaks the pool: a new pool is started and the items
    that had not finished are submitted again, each at most ``retries`` more times.
    """

    def __init__(self, workers: int, retries: int = 2) -> None:
        """``workers`` processes (at least 1); ``retries``: new attempts after a worker died."""
        if workers < 1:
            raise TournamentError(f"--workers must be at least 1, got {workers}")
        if retries < 0:
            raise TournamentError(f"retries must be at least 0, got {retries}")
        self.parallelism = workers
        self.retries = retries
        self._pool: ProcessPoolExecutor | None = None
        #: the futures of the last map_unordered: any left running (Ctrl-C, a failed task,
        #: an abandoned iteration) makes close() terminate the workers instead of waiting
        self._running: dict[Future, int] = {}

    def _new_pool(self) -> ProcessPoolExecutor:
        if self._pool is not None:
            _stop_pool(self._pool)
        from carioca_experiments.evaluation.luck.value import registered_modules

        ctx = multiprocessing.get_context("spawn")
        self._pool = ProcessPoolExecutor(max_workers=self.parallelism, mp_context=ctx, initializer=_worker_init,
                                         initargs=(registered_modules(),))
        return self._pool

    def map_unordered(self, fn: Callable[[T], R], items: Sequence[T], task_id: Callable[[T], str]) -> Iterator[R]:
        """``fn(item)`` in the worker processes, yielded as each finishes."""
        pool = self._pool or self._new_pool()
        queue = list(range(len(items)))[::-1]  # item numbers still to submit (pop from the end)
        attempts = [0] * len(items)
        running: dict[Future[R], int] = {}
        self._running = running  # close() terminates the workers if any is still in flight
        try:
            while queue or running:
                while queue and len(running) < 2 * self.parallelism:
                    i = queue.pop()
                    attempts[i] += 1
                    running[pool.submit(fn, items[i])] = i
                done, _ = wait(running, return_when=FIRST_COMPLETED)
                broken: list[int] = []
                for fut in done:
                    i = running.pop(fut)
                    try:
                        result = fut.result()
                    except BrokenProcessPool:
                        broken.append(i)
                        continue
                    except Exception as exc:
                        raise as_task_failed(exc, task_id(items[i])) from None
                    yield result
                if broken:
                    # Every item still running died with the pool: run them all again.
                    broken += list(running.values())
                    running.clear()
                    for i in sorted(broken, reverse=True):
                        if attempts[i] > self.retries:
                            raise TaskFailed(task_id(items[i]), (
                                f"a worker process died while playing it, {attempts[i]} times (killed, out of "
                                "memory, or a crash in native code; nothing in Python was raised). From a "
                                "script, also check that it starts the tournament under "
                                "if __name__ == '__main__': (spawn workers import the main module)"))
                        queue.append(i)
                    queue.sort(reverse=True)
                    pool = self._new_pool()
        finally:
            for fut in running:  # left early (Ctrl-C, a failed task): nobody wants these any more
                fut.cancel()

    def close(self) -> None:
        """Stop the worker processes: at once if items were abandoned (Ctrl-C), since a
        worker inside a slow ``act()`` would otherwise keep the command waiting."""
        if self._pool is not None:
            pool, self._pool = self._pool, None
            _stop_pool(pool, terminate=any(not fut.done() for fut in self._running))
        self._running = {}


def _stop_pool(pool: ProcessPoolExecutor, terminate: bool = False) -> None:
    """Shut ``pool`` down; with ``terminate`` its workers are stopped rather than waited for.

    ``shutdown(wait=True)`` waits for every running item, and the interpreter's exit waits
    again, so one worker stuck in a slow agent made Ctrl-C (even a second one) do nothing.
    """
    if not terminate:
        pool.shutdown(wait=True, cancel_futures=True)
        return
    # the pool's own processes, by id (a private attribute: Python 3.14 has terminate_workers())
    processes = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for proc in processes:
        proc.terminate()
    deadline = time.monotonic() + 5.0
    for proc in processes:
        proc.join(max(0.0, deadline - time.monotonic()))
        if proc.is_alive():
            proc.kill()
            proc.join(1.0)


def make_executor(backend: str = "local", workers: int | None = 2, *, address: str | None = None,
                  retries: int = 2) -> Executor:
    """The executor of a backend: ``local`` (``workers`` processes; 1 plays in this process) or ``ray``.

    Raises:
        TournamentError: unknown backend, bad ``workers``, or Ray not installed / not reachable.
    """
    if backend == "local":
        if not isinstance(workers, int) or workers < 1:
            raise TournamentError(f"--workers must be at least 1, got {workers!r}")
        return SerialExecutor() if workers == 1 else ProcessExecutor(workers, retries)
    if backend == "ray":
        from carioca_experiments.evaluation.tournament.ray_executor import RayExecutor

        return RayExecutor(address=address, workers=workers, retries=retries)
    raise TournamentError(f"--backend must be one of {', '.join(BACKENDS)}, got {backend!r}")
