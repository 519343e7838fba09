"""Training and measuring the learned belief of :mod:`carioca_agents.belief`.

- :mod:`.records`: deals between built-in agents in the belief's own seed namespace
  (never a tournament's decks), the positions a belief is asked about, and the true
  hidden hands there;
- :mod:`.fit`: ``python -m carioca_experiments.studies.belief.fit``: record training positions and fit
  the per-contract softmax weights (the shipped ``agents/models/belief-v1.json``);
- :mod:`.calibrate`: ``python -m carioca_experiments.studies.belief.calibrate``: a per-contract
  temperature and uniform mixture fitted on validation deals of other seeds (the shipped
  ``agents/models/belief-v2.json``);
- :mod:`.measure`: ``python -m carioca_experiments.studies.belief.measure``: held-out log-loss and
  calibration of the uniform, rule and learned beliefs (and a baseline learned model),
  with paired intervals and a reliability diagram.
"""
