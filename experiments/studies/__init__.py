"""Studies that answered their question, kept runnable from a checkout.

Each study keeps its results page under ``docs/results/`` and the commands that page
gives; none of this package is in the wheel (``pyproject.toml`` lists the installed
packages), and nothing installed imports it (``tests/test_layout.py``).

- :mod:`.luck`: how the luck value functions were fitted and measured (``fit`` to
  ``fit6``, ``playout``, ``measure``, ``replayed``), and the two versions that only
  reproduce those studies (1 and 4, :mod:`.luck.values`);
- :mod:`.belief`: the learned belief's fit, calibration and held-out measure, and the
  particle-filter belief that did not beat it (:mod:`.belief.filtered`);
- :mod:`.improve`: policy improvement from rollout advantages (``carioca improve`` in a
  checkout), a negative result that no shipped model uses;
- :mod:`.departures`: where search departs from the heuristic, deal by deal.
"""
