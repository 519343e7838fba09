"""``from carioca_env import carioca_v0; env = carioca_v0.env()``: PettingZoo entry points.

See :mod:`carioca_env.env` for the observation, action and reward documentation.
"""

from __future__ import annotations

from typing import Any

from pettingzoo.utils import wrappers

from carioca_env.env import ActionTypeError, CariocaState, EnvConfig, IllegalActionError, raw_env

__all__ = ["env", "raw_env", "EnvConfig", "IllegalActionError", "ActionTypeError", "CariocaState",
           "CariocaOrderEnforcingWrapper"]


class CariocaOrderEnforcingWrapper(wrappers.OrderEnforcingWrapper):
    """PettingZoo's order enforcing wrapper with ``last()`` answered by the environment itself.

    The inherited ``last()`` reads five attributes through the wrapper's ``__getattr__``
    chain at every call, a measurable share of a step; the checks are the same.
    """

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """Observation, cumulative reward, termination, truncation and info of the agent to act."""
        if not self._has_reset:
            raise AttributeError("agent_selection cannot be accessed before reset")
        return self.env.last(observe)


def env(render_mode: str | None = None, **options: Any) -> wrappers.OrderEnforcingWrapper:
    """The environment wrapped in PettingZoo's order enforcing wrapper.

    Keyword options are :class:`EnvConfig` fields (``num_players``, ``deals``,
    ``reward``, ``max_turns`` ...) or ``config=EnvConfig(...)``.
    """
    return CariocaOrderEnforcingWrapper(raw_env(render_mode=render_mode, **options))


from carioca_env.registration import register_envs  # noqa: E402 - after env(), which it names

register_envs()
