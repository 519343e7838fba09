"""The error of a training run that cannot start or resume, and the bounded excerpt of bad input its messages quote."""

from __future__ import annotations

from typing import Any


class TrainError(ValueError):
    """A training run that cannot start or resume: a bad option or setting (the message
    names it, what it got and what is allowed) or a folder that holds another run."""


def _excerpt(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "...'"
