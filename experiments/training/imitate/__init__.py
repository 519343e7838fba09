"""``carioca imitate``: a MaskablePPO policy trained by supervised learning from a teacher agent.

The pieces (each its own module):

* :mod:`carioca_experiments.training.imitate.config`: :class:`ImitateConfig`, every option checked once;
* :mod:`carioca_experiments.training.imitate.rollout`: DAgger roll-ins that play games with a mix of the
  learner's and the teacher's moves and label every learner-seat state with the
  teacher's choice (the teacher acts on its own :class:`~carioca_env.PlayerView`);
* :mod:`carioca_experiments.training.imitate.dataset`: the on-disk format (``.npz`` shards and a JSON
  manifest), written atomically, readable with numpy alone;
* :mod:`carioca_experiments.training.imitate.learn`: masked cross-entropy for the policy and regression to
  the observed returns for the value, into sb3-contrib's policy
  (:class:`~carioca_agents.ppo_policy.CariocaMaskablePolicy`), so ``ppo:PATH`` plays the result
  and ``carioca train --init PATH`` fine-tunes it;
* :mod:`carioca_experiments.training.imitate.pipeline`: the resumable run (data, training, evaluation,
  model card);
* :mod:`carioca_experiments.training.imitate.cli`: the command line.
"""

from carioca_experiments.training.imitate.cli import INTERRUPTED, add_arguments, run

__all__ = ["INTERRUPTED", "add_arguments", "run"]
