"""Driving a tournament: the tasks still to play go through an executor into the results file.

The driver (this process) owns the results file: workers only play and return plain
data, the driver appends each result line as soon as its turn in the task order has
come (so the file is byte for byte the same for every backend and number of workers),
and a killed driver resumes from the file.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from carioca_experiments.common.progress import progress_bar
from carioca_experiments.evaluation.tournament.config import TournamentConfig
from carioca_experiments.evaluation.tournament.errors import TaskFailed, TournamentError
from carioca_experiments.evaluation.tournament.executors import Executor, SerialExecutor, make_executor
from carioca_experiments.evaluation.tournament.play import play_chunk
from carioca_experiments.evaluation.tournament.results import (
    RECORDS_DIR,
    ResultsWriter,
    open_results,
    prepare_out_dir,
    read_results,
)
from carioca_experiments.evaluation.tournament.summary import Summary, summarize
from carioca_experiments.evaluation.tournament.tasks import Task, chunk_id, chunk_tasks, make_tasks

#: The most tasks in one chunk (a chunk is the unit an executor sends to a worker).
MAX_CHUNK = 8


def run_tournament(
    config: TournamentConfig,
    out_dir: str | Path | None = None,
    workers: int | None = 2,
    progress: bool = True,
    *,
    overwrite: bool = False,
    write_summary: bool = True,
    log: Callable[[str], None] | None = None,
    record_every: int = 0,
    explain: bool = False,
    backend: str = "local",
    address: str | None = None,
    executor: Executor | None = None,
    retries: int = 2,
) -> Summary:
    """Play the tournament's remaining deals into ``out_dir`` and summarize the folder.

    Args:
        config: the tournament.
        out_dir: results folder (default :meth:`TournamentConfig.default_out_dir`).
            An existing ``results.jsonl`` of the same tournament is resumed.
        workers: parallel workers (local: processes, 1 plays in this process; Ray: tasks
            in flight at once, and the CPUs of a Ray instance started here).
        progress: show a tqdm progress bar with ETA on stderr (never when stderr is not
            a terminal).
        overwrite: delete an existing results file first instead of resuming it.
        write_summary: write summary.md/.csv/.json, pairs.csv and the plots.
        log: where notes go (default: stderr).
        record_every: keep the game record of every n-th deal in ``out_dir/records``
            (0, the default: none; 1: all).
        explain: the kept records also hold each decision's explanation
            (:mod:`carioca_agents.explain`); it never changes a move or a result.
        backend: ``"local"`` (processes on this machine) or ``"ray"``.
        address: the Ray cluster to join (default: ``RAY_ADDRESS``, else a Ray started here).
        executor: an executor to use instead of ``backend``/``workers`` (left open).
        retries: new attempts of a task whose worker died.

    Returns:
        The :class:`Summary` of every result in the file.

    Raises:
        TournamentError: bad agents or options, a foreign or corrupt results file, a config
            mismatch, or a task that failed (:class:`TaskFailed`; results so far are kept).
    """
    say = log or (lambda m: print(m, file=sys.stderr))
    out = Path(out_dir) if out_dir is not None else config.default_out_dir()
    if not isinstance(record_every, int) or isinstance(record_every, bool) or record_every < 0:
        raise TournamentError(f"--records must be 0 (none) or a positive N (every N-th deal), got {record_every!r}")
    if explain and record_every == 0:
        raise TournamentError("--explain stores explanations in the kept game records: give --records N too")
    if backend == "local" and (not isinstance(workers, int) or workers < 1):
        raise TournamentError(f"--workers must be at least 1, got {workers!r}")
    # agents built in other processes (any executor but this process's) must be rebuildable there
    parallel = (not isinstance(executor, SerialExecutor) if executor is not None
                else backend != "local" or (workers or 1) > 1)
    check_agents(config, in_workers=parallel)
    path = prepare_out_dir(out, create=False)  # a bad --out is refused before any worker starts
    tasks = make_tasks(config)
    own = executor is None
    runs: Executor
    if executor is not None:
        runs = executor
    else:
        # Made before anything is written, so that a cluster that cannot be reached leaves
        # no file behind. Nothing left to play (no Ray to start), one task, or one local
        # worker: no pool.
        left = len(tasks) - (0 if overwrite else _played(path))
        if left == 0 or backend == "local" and (workers == 1 or left <= 1):
            runs = SerialExecutor()
        else:
            runs = make_executor(backend, workers, address=address, retries=retries)
    try:
        prepare_out_dir(out)
        with open_results(path, config, overwrite=overwrite, say=say) as (fh, existing):
            todo = [t for t in tasks if t.id not in existing.records]
            if existing.records:
                say(f"resuming {path}: {len(existing.records)} of {len(tasks)} deals already played, "
                    f"{len(todo)} to play")
            try:
                records = out / RECORDS_DIR if record_every > 0 else None
                play_into(config, todo, ResultsWriter(fh, todo, records), runs, progress=progress,
                          total=len(tasks), done=len(existing.records), record_every=record_every,
                          explain=explain)
            except TournamentError as exc:
                fh.flush()
                kept = len(read_results(path).records)
                message = (f"{exc}\nThe {kept} deals played so far are kept in {path}; fix the problem and "
                           f"rerun the same command to resume.")
                if isinstance(exc, TaskFailed):
                    raise TaskFailed(exc.task_id, message) from None
                raise TournamentError(message) from None
    finally:
        if own:
            runs.close()
    summary = summarize(out)
    if write_summary:
        summary.write(out, log=say)
    return summary


def _played(path: Path) -> int:
    """How many tasks a results file already holds (0 if there is none or it cannot be read yet)."""
    if not path.is_file():
        return 0
    try:
        return len(read_results(path).records)
    except TournamentError:
        return 0  # open_results reports what is wrong with it


def check_luck(config: TournamentConfig) -> None:
    """Refuse a luck-corrected tournament this version cannot correct, before any deal
    (a tournament without the correction passes).

    Raises:
        TournamentError: the config names a value function that no version shipped with
            this package has, or it has no model for a contract at this number of players.
    """
    from carioca_experiments.evaluation.luck import ValueFileError, value_by_fingerprint

    if config.luck is None:
        return
    try:
        value = value_by_fingerprint(config.luck)
    except ValueFileError as exc:
        raise TournamentError(
            f"this tournament's deals were corrected with the luck value function {config.luck}: {exc}; "
            "summarize it with --report, or start afresh in another --out"
        ) from None
    try:
        for contract in config.contracts:
            value.model(config.players, contract)
    except ValueFileError as exc:
        raise TournamentError(f"--luck-correction: {exc}") from None


def check_agents(config: TournamentConfig, in_workers: bool = False) -> None:
    """Build every agent once here, before any worker starts, so a bad spec fails early and clearly.

    ``in_workers``: the agents will be built in other processes, so a spec that exists
    only in this one (registered at run time) is refused too.  A ``ppo:`` model made
    for another number of players is refused here as well.

    Raises:
        TournamentError: an agent that cannot be built (the message names it and says why).
    """
    from carioca_agents.registry import make_agent, worker_problem

    check_luck(config)
    for label, spec in zip(config.labels, config.specs):
        problem = worker_problem(spec) if in_workers else None
        if problem:
            raise TournamentError(f"agent {label!r} ({spec}): {problem}")
        try:
            agent = make_agent(spec, 0)
        except Exception as exc:
            raise TournamentError(f"agent {label!r}: cannot build {spec!r}: {_one_paragraph(exc)}") from None
        players = getattr(agent, "num_players", None)
        if isinstance(players, int) and players != config.players:
            raise TournamentError(
                f"agent {label!r} ({spec}) was trained for {players} players, but this tournament has "
                f"{config.players} seats; pass --players {players}, or use a model trained for {config.players} players"
            )


def _one_paragraph(exc: BaseException) -> str:
    """An exception's message without any traceback it carries (first paragraph, bounded)."""
    text = f"{exc}".split("\nTraceback (most recent call last)")[0].strip()
    return text if len(text) <= 2000 else text[:2000] + " ..."


def play_into(
    config: TournamentConfig,
    todo: Sequence[Task],
    writer: ResultsWriter,
    executor: Executor,
    *,
    progress: bool = True,
    total: int | None = None,
    done: int = 0,
    record_every: int = 0,
    explain: bool = False,
) -> None:
    """Play ``todo`` through ``executor`` in chunks, handing each outcome to ``writer``.

    Raises:
        TaskFailed: a task failed for good (the results before it are written).
    """
    bar = progress_bar(total=len(todo) + done if total is None else total, initial=done, unit="deal",
                       desc="tournament", enabled=progress, smoothing=0.05, file=sys.stderr)
    truncated = 0
    # small chunks keep the workers evenly busy and a resume cheap; large ones save calls
    size = max(1, min(MAX_CHUNK, len(todo) // (max(1, executor.parallelism) * 16)))
    chunks = chunk_tasks(todo, size)
    fn = functools.partial(play_chunk, config, record_every=record_every, explain=explain)
    try:
        for outcomes in executor.map_unordered(fn, chunks, chunk_id):
            for result, record in outcomes:
                writer.add(result, record)
                bar.update(1)
                truncated += bool(result["truncated"])
                if truncated:
                    bar.set_postfix(truncated=truncated, refresh=False)
    finally:
        bar.close()

