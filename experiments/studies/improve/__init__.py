"""``carioca improve``: policy improvement from rollout advantages (a step of approximate
policy iteration on top of an imitation model).

An imitation model copies its teacher and so, at best, plays level with it.  This stage
adds what the teacher does not know: at the teacher's own draws and discards, each
candidate move is rolled out from the true position with the teacher continuing
(:mod:`~carioca_experiments.studies.improve.labels`), and the policy is fitted to the ordering of the
candidates' mean advantages over many states (:mod:`~carioca_experiments.studies.improve.learn`), where
one state's estimate alone is far too noisy to act on (the search agent's trouble).
Data format and parallel generation: :mod:`~carioca_experiments.studies.improve.data`; the run and its
files: :mod:`~carioca_experiments.studies.improve.pipeline`; options: :mod:`~carioca_experiments.studies.improve.cli`.
"""

from carioca_experiments.studies.improve.cli import INTERRUPTED, add_arguments, run
from carioca_experiments.studies.improve.config import ImproveConfig, ImproveError
from carioca_experiments.studies.improve.pipeline import run_improvement

__all__ = ["INTERRUPTED", "ImproveConfig", "ImproveError", "add_arguments", "run", "run_improvement"]
