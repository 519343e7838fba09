"""Agents for the executor tests, entered as ``py:plugin_agents:...`` specs (this folder is on the workers' path)."""

from __future__ import annotations

import os
from pathlib import Path

from carioca_agents.random_agent import RandomAgent


class _Fails(RandomAgent):
    """Raises in contract ``contract``: a task that fails for good, the same way on every attempt."""

    def __init__(self, seed: int, contract: int) -> None:
        super().__init__(seed)
        self.contract = contract

    def act(self, view, legal):  # type: ignore[no-untyped-def]
        if view.deal == self.contract:
            raise RuntimeError(f"boom in contract {self.contract}")
        return super().act(view, legal)


def failing(seed: int = 0, contract: int = 2) -> RandomAgent:
    """A random agent that raises in one contract."""
    return _Fails(seed, contract)


class _DiesOnce(RandomAgent):
    """Kills its worker process the first time it plays contract 2 (a marker file remembers)."""

    def __init__(self, seed: int, marker: str, always: bool) -> None:
        super().__init__(seed)
        self.marker = Path(marker)
        self.always = always

    def act(self, view, legal):  # type: ignore[no-untyped-def]
        if view.deal == 2 and (self.always or not self.marker.exists()):
            self.marker.write_text(str(os.getpid()))
            os._exit(3)  # the worker process dies: nothing is raised, nothing returned
        return super().act(view, legal)


def dies_once(seed: int = 0, marker: str = "", always: bool = False) -> RandomAgent:
    """A random agent whose first contract-2 move kills the process it runs in (every time: ``always``)."""
    return _DiesOnce(seed, marker, always)
