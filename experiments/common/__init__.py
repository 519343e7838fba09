"""Helpers shared by every group of :mod:`experiments`, with no game-specific policy.

- :mod:`.argtypes`: argparse types and the checks every command runs before it acts;
- :mod:`.stats`: means, paired differences and their intervals;
- :mod:`.tables`: text and Markdown tables;
- :mod:`.plots`: learning-curve figures and their styles;
- :mod:`.progress`: progress bars that stay quiet off a terminal;
- :mod:`.ray_cluster`: joining or starting a Ray cluster, and cleaning up after one.

Nothing here imports :mod:`carioca_experiments.evaluation`, :mod:`carioca_experiments.training` or
:mod:`carioca_experiments.apps`.
"""
