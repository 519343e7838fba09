"""Making agents: learners, the pipelines that chain them, and tuning.

- :mod:`.train`: ``carioca train``, MaskablePPO on one learning seat (with its
  fine-tuning from an imitation model, :mod:`.train.finetune`);
- :mod:`.imitate`: ``carioca imitate``, a policy imitating a teacher (DAgger);
- :mod:`.improve`: ``carioca improve``, policy improvement from rollout advantages;
- :mod:`.train_all`: ``carioca train-all``, a model per contract and for the full game,
  then the final tournament (its ``--pipeline imitate+ppo`` branch: :mod:`.learned_set`;
  on Ray: :mod:`.ray_train`);
- :mod:`.sweep`: ``carioca sweep``, one configuration over seeds and a grid on Ray Tune;
- :mod:`.tune_heuristic`: ``carioca tune-heuristic``, the heuristic's weights by Optuna;
- :mod:`.belief`: recording positions and fitting the learned belief of
  :mod:`carioca_agents.belief` (``python -m carioca_experiments.studies.belief.fit``).
"""
