"""Joining or starting Ray for the ``--backend ray`` commands (tournament, train-all, sweep).

One rule everywhere: ``address`` (``--address``), else ``RAY_ADDRESS``, else a Ray instance
started here with ``num_cpus`` CPUs.  A Ray already initialized in this process (a
notebook, a test fixture) is used as it is.  Ray is an optional extra:
``pip install 'carioca-env[ray]'``.
"""

from __future__ import annotations

import os
import sys
from typing import Any


class RayUnavailable(Exception):
    """Ray is not installed, or the cluster cannot be started or joined (the message says what to do)."""


def import_ray() -> Any:
    """The ``ray`` module, or :class:`RayUnavailable` saying which extra to install."""
    try:
        import ray
    except ImportError:
        raise RayUnavailable(
            "--backend ray needs Ray: pip install 'carioca-env[ray]' (or pip install 'ray[default,tune]')"
        ) from None
    return ray


def local_runtime_env() -> dict[str, Any]:
    """A runtime env that gives the workers of a local Ray this process's import path.

    So ``py:`` plugin modules that this process can import (the working directory, a
    ``PYTHONPATH`` entry) are importable by the workers too, as with spawn processes.
    """
    paths = [p for p in [os.getcwd(), *sys.path] if p and os.path.isdir(p)]
    return {"env_vars": {"PYTHONPATH": os.pathsep.join(dict.fromkeys(paths))}}


def check_reachable(address: str, timeout: float = 5.0) -> None:
    """Refuse at once a ``HOST:PORT`` (or ``ray://HOST:PORT``) where nothing listens.

    ``ray.init`` would otherwise retry for minutes on a mistyped address.  ``auto`` and
    other forms are left to Ray.

    Raises:
        RayUnavailable: the TCP connection is refused or times out.
    """
    import socket

    hostport = address.removeprefix("ray://")
    host, sep, port = hostport.rpartition(":")
    if not sep or not host or not port.isdigit():
        return
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=timeout):
            pass
    except OSError as exc:
        raise RayUnavailable(
            f"nothing answers at the Ray address {address} ({exc.strerror or type(exc).__name__}); start the "
            f"cluster with 'ray start --head' there, check --address / RAY_ADDRESS, or run with --backend local"
        ) from None


def connect(address: str | None = None, num_cpus: int | None = None) -> tuple[Any, bool]:
    """Join or start Ray: ``(ray, started_here)``; shut it down yourself if ``started_here``.

    Raises:
        RayUnavailable: Ray is missing, or the cluster cannot be reached or started.
    """
    ray = import_ray()
    if ray.is_initialized():
        return ray, False
    address = address or os.environ.get("RAY_ADDRESS") or None
    if address:
        check_reachable(address)
    try:
        if address:
            ray.init(address=address)
        else:
            ray.init(num_cpus=num_cpus, include_dashboard=False, runtime_env=local_runtime_env())
    except Exception as exc:  # ConnectionError, a bad address, a version mismatch ...
        where = f"the Ray cluster at {address}" if address else "a local Ray instance"
        raise RayUnavailable(
            f"cannot start or join {where}: {type(exc).__name__}: {exc}. Check --address / RAY_ADDRESS "
            f"(start a cluster with 'ray start --head'), or run with --backend local"
        ) from None
    return ray, True
