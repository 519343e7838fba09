"""The tournament's errors: one for anything the user must fix, one for a task that failed."""

from __future__ import annotations


class TournamentError(Exception):
    """A tournament that cannot run, or a results folder it cannot use (the message says what to do)."""


class TaskFailed(TournamentError):
    """A task that failed for good (after any retries), named by its id.

    Attributes:
        task_id: the task's id (``c1-d0-l0``), or a chunk's ``first..last`` when the
            worker died before it could say which task of the chunk it was playing.
        error: the worker's error: the exception, with its traceback where there is one.
    """

    def __init__(self, task_id: str, error: str) -> None:
        # both in args, so that the exception pickles back from a worker process
        super().__init__(task_id, error)
        self.task_id = task_id
        self.error = error

    def __str__(self) -> str:
        if self.error.startswith(f"task {self.task_id}"):
            return self.error
        return f"task {self.task_id} failed: {self.error}"
