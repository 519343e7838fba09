"""How many threads torch uses where the project builds or loads a network.

The networks here are small (a 2,191-way head on a few hundred inputs): torch's default
of one intra-op thread per core makes each forward pass wait on the others, and on a
shared machine it is several times slower than one thread.  So training (``carioca
train``, ``imitate``, ``improve``) and loading a model for play (``ppo:...`` agents) set
one thread unless told otherwise through the environment variable
``CARIOCA_TORCH_THREADS``: a count, or ``0`` to leave torch's own setting.  Your own
training script sets it itself (``torch.set_num_threads(1)``).
"""

from __future__ import annotations

import os

#: the environment variable that overrides :data:`DEFAULT_THREADS`
ENV_VAR = "CARIOCA_TORCH_THREADS"
#: threads for the project's small networks
DEFAULT_THREADS = 1


def torch_threads() -> int | None:
    """The thread count to give torch, or ``None`` to leave torch's own (``CARIOCA_TORCH_THREADS=0``).

    Raises:
        ValueError: ``CARIOCA_TORCH_THREADS`` is not a whole number >= 0.
    """
    raw = os.environ.get(ENV_VAR, "").strip()
    if not raw:
        return DEFAULT_THREADS
    if not raw.isdigit():
        raise ValueError(f"{ENV_VAR} must be a whole number of threads (0: torch's default), got {raw!r}")
    return int(raw) or None


def limit_torch_threads() -> int:
    """Give torch :func:`torch_threads` threads; returns the count before, to restore it.

    Raises:
        ValueError: ``CARIOCA_TORCH_THREADS`` is malformed (nothing is changed).
    """
    import torch

    wanted = torch_threads()
    previous = torch.get_num_threads()
    if wanted is not None:
        torch.set_num_threads(wanted)
    return previous
