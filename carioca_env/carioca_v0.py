"""``from carioca_env import carioca_v0; env = carioca_v0.env()``: PettingZoo entry points.

See :mod:`carioca_env.env` for the observation, action and reward documentation.
"""

from __future__ import annotations

from typing import Any

from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger

from carioca_env.env import ActionTypeError, CariocaState, EnvConfig, IllegalActionError, raw_env

__all__ = ["env", "raw_env", "EnvConfig", "IllegalActionError", "ActionTypeError", "CariocaState",
           "CariocaOrderEnforcingWrapper"]


class CariocaOrderEnforcingWrapper(wrappers.OrderEnforcingWrapper):
    """PettingZoo's order enforcing wrapper with ``last()`` and ``step()`` answered by the
    environment itself.

    The inherited ``last()`` reads five attributes through the wrapper's ``__getattr__``
    chain at every call, and ``step()`` reads ``agents`` through it and passes through
    the base wrapper: a measurable share of a step.  The checks and warnings are the same.
    """

    def step(self, action: Any) -> None:
        """Play ``action`` (see :meth:`carioca_env.env.raw_env.step`), with PettingZoo's
        errors and warnings for a step before ``reset()`` or after every agent is done."""
        if not self._has_reset:
            EnvLogger.error_step_before_reset()
        elif not self.env.agents:
            self._has_updated = True
            EnvLogger.warn_step_after_terminated_truncated()
        else:
            self._has_updated = True
            self.env.step(action)

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
