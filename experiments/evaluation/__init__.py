"""Measuring agents and code: who plays better, by how much, and how fast.

- :mod:`.tournament`: ``carioca tournament``, duplicate tournaments between agents;
- :mod:`.ratings`: Bradley-Terry ratings from a tournament's decks;
- :mod:`.luck`: the luck correction of stock draws (``--luck-correction``);
- :mod:`.bench`: ``carioca bench``, the speed of the engine, the environment and training.
"""
