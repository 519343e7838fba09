"""The ``carioca`` command and the experiments built on :mod:`carioca_env` and :mod:`agents`.

Grouped by purpose: :mod:`experiments.evaluation` (tournaments, ratings, the luck
correction, benchmarks), :mod:`experiments.training` (the learners and the pipelines that
chain them), :mod:`experiments.apps` (demo, terminal play, replay, the browser app) and
:mod:`experiments.common` (helpers all of them share).  :mod:`experiments.cli` is the
``carioca`` entry point; ``carioca X`` lives in the module named ``X``.
"""
