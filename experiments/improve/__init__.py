"""``carioca improve``: policy improvement from rollout advantages (a step of approximate
policy iteration on top of an imitation model).

An imitation model copies its teacher and so, at best, plays level with it.  This stage
adds what the teacher does not know: at the teacher's own draws and discards, each
candidate move is rolled out from the true position with the teacher continuing
(:mod:`~experiments.improve.labels`), and the policy is fitted to the ordering of the
candidates' mean advantages over many states (:mod:`~experiments.improve.learn`), where
one state's estimate alone is far too noisy to act on (the search agent's trouble).
Data format and parallel generation: :mod:`~experiments.improve.data`; the run and its
files: :mod:`~experiments.improve.pipeline`; options: :mod:`~experiments.improve.cli`.
"""

from experiments.improve.config import ImproveConfig, ImproveError
from experiments.improve.pipeline import run_improvement

__all__ = ["ImproveConfig", "ImproveError", "run_improvement"]
