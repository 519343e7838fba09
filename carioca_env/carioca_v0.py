"""``from carioca_env import carioca_v0; env = carioca_v0.env()``: PettingZoo entry points.

See :mod:`carioca_env.env` for the observation, action and reward documentation.
"""

from __future__ import annotations

from typing import Any

from pettingzoo.utils import wrappers

from carioca_env.env import CariocaState, EnvConfig, IllegalActionError, raw_env

__all__ = ["env", "raw_env", "EnvConfig", "IllegalActionError", "CariocaState"]


def env(render_mode: str | None = None, **options: Any) -> wrappers.OrderEnforcingWrapper:
    """The environment wrapped in PettingZoo's order enforcing wrapper.

    Keyword options are :class:`EnvConfig` fields (``num_players``, ``deals``,
    ``reward``, ``max_turns`` ...) or ``config=EnvConfig(...)``.
    """
    return wrappers.OrderEnforcingWrapper(raw_env(render_mode=render_mode, **options))
