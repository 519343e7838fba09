"""The ``carioca`` command and the experiments built on :mod:`carioca_env` and :mod:`agents`.

Grouped by purpose: :mod:`carioca_experiments.evaluation` (tournaments, ratings, the luck
correction, benchmarks), :mod:`carioca_experiments.training` (the learners and the pipelines that
chain them), :mod:`carioca_experiments.apps` (demo, terminal play, replay, the browser app) and
:mod:`carioca_experiments.common` (helpers all of them share).  :mod:`carioca_experiments.cli` is the
``carioca`` entry point; ``carioca X`` lives in the module named ``X``.
"""
