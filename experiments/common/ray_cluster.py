"""Joining or starting Ray for the ``--backend ray`` commands (tournament, train-all, sweep).

One rule everywhere: ``address`` (``--address``), else ``RAY_ADDRESS``, else a Ray instance
started here with ``num_cpus`` CPUs.  A Ray already initialized in this process (a
notebook, a test fixture) is used as it is.  Ray is an optional extra:
``pip install 'carioca-env[ray]'``.

A Ray started here stops with the command (``ray.shutdown()``), but a command killed with
``kill -9`` leaves Ray's helper processes (GCS server, raylet, agents, workers) running.
So every local start records its helpers' process ids (in ``$TMPDIR/carioca-ray-<uid>/``,
or ``CARIOCA_RAY_RECORDS``), and the next local start stops the helpers of any record
whose command is gone, by process id (checked against the process's start time, so a
reused id is never hit), and says so.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import tempfile
import time
from pathlib import Path
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
            stopped = stop_stale_local_rays()
            if stopped:
                print(f"note: stopped {len(stopped)} Ray processes left running by an earlier command that was "
                      f"killed (process ids {', '.join(map(str, stopped))})", file=sys.stderr)
            ray.init(num_cpus=num_cpus, include_dashboard=False, runtime_env=local_runtime_env())
            _record_local_ray(ray)
    except Exception as exc:  # ConnectionError, a bad address, a version mismatch ...
        where = f"the Ray cluster at {address}" if address else "a local Ray instance"
        raise RayUnavailable(
            f"cannot start or join {where}: {type(exc).__name__}: {exc}. Check --address / RAY_ADDRESS "
            f"(start a cluster with 'ray start --head'), or run with --backend local"
        ) from None
    return ray, True


# --------------------------------------------------------------- helpers left by kill -9


def records_dir() -> Path:
    """Where local starts record their Ray helpers' process ids (see the module docstring)."""
    return Path(os.environ.get("CARIOCA_RAY_RECORDS") or Path(tempfile.gettempdir()) / f"carioca-ray-{os.getuid()}")


def _start_time(pid: int) -> str | None:
    """The start time of process ``pid`` (Linux ``/proc``), or None if there is no such process."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat.rpartition(")")[2].split()
    if not fields or fields[0] == "Z":  # a zombie has already exited
        return None
    return fields[19] if len(fields) > 19 else None


def _children(pids: set[int]) -> set[int]:
    """Every descendant of ``pids`` (from ``/proc``)."""
    parents: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rpartition(")")[2].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            parents.setdefault(ppid, []).append(int(entry.name))
    found, todo = set(), list(pids)
    while todo:
        for child in parents.get(todo.pop(), []):
            if child not in found and child not in pids:
                found.add(child)
                todo.append(child)
    return found


def _record_local_ray(ray: Any) -> None:
    """Record the helpers of the Ray just started here (best effort: Ray's node object is private)."""
    try:
        node = ray._private.worker._global_node
        pids = {info.process.pid for infos in node.all_processes.values() for info in infos
                if getattr(info, "process", None) is not None}
        # with them their children: the raylet's dashboard and runtime-env agents are the
        # ones that outlive a kill -9 (the others share the command's fate)
        pids |= _children(pids)
        me = os.getpid()
        entries = [[pid, _start_time(pid)] for pid in sorted(pids) if _start_time(pid)]
        folder = records_dir()
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"driver-{me}.json").write_text(json.dumps({"driver": [me, _start_time(me)], "helpers": entries}))
    except Exception:  # noqa: BLE001 - without a record only the cleanup after a kill -9 is lost
        return


def stop_stale_local_rays(grace: float = 3.0) -> list[int]:
    """Stop the Ray helpers recorded by local starts whose command has exited; returns their ids.

    Only recorded processes still running with their recorded start time, and their
    descendants (the raylet's workers), are stopped: SIGTERM, then SIGKILL after ``grace``
    seconds.  Records of commands still running are left alone.
    """
    folder = records_dir()
    if not folder.is_dir() or not Path("/proc").is_dir():
        return []
    victims: set[int] = set()
    for record in folder.glob("driver-*.json"):
        try:
            doc = json.loads(record.read_text())
            (driver, started), helpers = doc["driver"], doc["helpers"]
        except (OSError, ValueError, KeyError, TypeError):
            record.unlink(missing_ok=True)
            continue
        if _start_time(int(driver)) == started:
            continue  # that command is still running its Ray
        alive = {int(pid) for pid, t in helpers if _start_time(int(pid)) == t}
        victims |= alive | (_children(alive) if alive else set())
        record.unlink(missing_ok=True)
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for pid in sorted(victims):
            try:
                os.kill(pid, sig)
            except (ProcessLookupError, PermissionError):
                pass
        deadline = time.monotonic() + grace
        while time.monotonic() < deadline and any(_start_time(p) for p in victims):
            time.sleep(0.1)
    return sorted(victims)
