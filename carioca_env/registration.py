"""Registration with the Gymnasium and PettingZoo registries.

- ``gymnasium.make("Carioca-v0", ...)`` builds the single-agent wrapper
  (:class:`~carioca_env.wrappers.CariocaSingleAgentEnv`); keyword arguments are the
  wrapper's and :class:`~carioca_env.env.EnvConfig`'s.
- ``pettingzoo.make("aec", "carioca/carioca-v0", ...)`` builds the AEC environment
  (:func:`carioca_env.carioca_v0.env`).

Neither Gymnasium 1.x nor PettingZoo 1.27 loads installed plugins (Gymnasium 1.0 dropped
its ``gymnasium.envs`` entry-point group, and PettingZoo's registry never had one), so
registration happens when this package is imported, as with ``ale_py``:

- ``gymnasium.make("carioca_env:Carioca-v0")`` imports the package itself, so it works
  right after installing, with no import of ours;
- ``import carioca_env`` registers with each framework that is already imported, and
  importing :mod:`carioca_env.carioca_v0` or :mod:`carioca_env.wrappers` registers with
  both; :func:`register_envs` does it explicitly.

The engine stays free of RL imports: ``import carioca_env`` alone imports neither
framework.
"""

from __future__ import annotations

#: the Gymnasium id of the single-agent wrapper
GYMNASIUM_ID = "Carioca-v0"
#: the PettingZoo id of the AEC environment (namespace ``carioca``)
PETTINGZOO_ID = "carioca/carioca-v0"


def register_gymnasium() -> None:
    """Register ``Carioca-v0`` with Gymnasium (once; a second call changes nothing)."""
    import gymnasium

    if GYMNASIUM_ID in gymnasium.registry:
        return
    gymnasium.register(
        id=GYMNASIUM_ID,
        entry_point="carioca_env.wrappers:CariocaSingleAgentEnv",
        # No max_episode_steps: the env truncates deals itself (EnvConfig.max_turns,
        # R17), and a TimeLimit on top would cut games at an unrelated step count.
        disable_env_checker=False,
    )


def register_pettingzoo() -> None:
    """Register ``carioca/carioca-v0`` with PettingZoo's AEC registry (once)."""
    import pettingzoo

    if not hasattr(pettingzoo, "aec_registry"):
        return  # PettingZoo before 1.27 has no registry: carioca_v0.env() is the way in
    if PETTINGZOO_ID in pettingzoo.aec_registry:
        return
    pettingzoo.register("aec", PETTINGZOO_ID, entry_point="carioca_env.carioca_v0:env")


def register_envs() -> None:
    """Register the environments with Gymnasium and PettingZoo."""
    register_gymnasium()
    register_pettingzoo()
