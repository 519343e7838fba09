"""Where ``carioca bench`` took its figures: Python, CPUs, load, package versions, git commit."""

from __future__ import annotations

import importlib.metadata
import os
import platform
import subprocess
import sys
from pathlib import Path
from typing import Any


def _git(*args: str) -> str | None:
    try:
        res = subprocess.run(["git", *args], check=False, capture_output=True, text=True, timeout=10,
                             cwd=Path(__file__).resolve().parents[3])
    except (OSError, subprocess.SubprocessError):
        return None
    return res.stdout.strip() if res.returncode == 0 else None


def machine_info() -> dict[str, Any]:
    """Where the figures were taken: Python, CPUs, load, package versions, git commit."""
    versions: dict[str, str | None] = {}
    for pkg in ("numpy", "torch", "gymnasium", "pettingzoo", "stable-baselines3", "sb3-contrib", "open_spiel",
                "rlcard", "tqdm", "carioca-env"):
        try:
            versions[pkg] = importlib.metadata.version(pkg)
        except importlib.metadata.PackageNotFoundError:
            versions[pkg] = None
    try:
        affinity = len(os.sched_getaffinity(0))
    except AttributeError:
        affinity = None
    try:
        import torch

        torch_threads = torch.get_num_threads()
    except ImportError:
        torch_threads = None
    status = _git("status", "--porcelain")
    return {
        "python": sys.version.split()[0],
        "implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "cpu_count": os.cpu_count(),
        "cpus_available": affinity,
        "torch_threads": torch_threads,
        "loadavg": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
        "packages": versions,
        "git_commit": _git("rev-parse", "HEAD"),
        "git_dirty": bool(status) if status is not None else None,
    }
