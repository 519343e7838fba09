"""Seeds derived from a run's seed: one function, one namespace per purpose.

Everything random in an experiment takes a seed derived from the run's seed and a path
of parts (``derive_seed(TOURNAMENT, seed, "deck", contract, deck)``), never global random
state, so a task is determined by its config and its id whatever the workers or backend.
Each purpose hashes in its own namespace, so the decks of imitation data, of the luck fit
and of a tournament never coincide, whatever the seeds.
"""

from __future__ import annotations

import hashlib
import json
import random
from typing import Any

#: duplicate tournaments (decks, dealers, game generators, agents, random seatings)
TOURNAMENT = "carioca-tournament"
#: imitation data (``carioca imitate``) and its learner
IMITATE = "carioca-imitate"
#: rollout-advantage data (``carioca improve``)
IMPROVE = "carioca-improve"
#: the games the luck value function is fitted on
LUCK_FIT = "carioca-luck-fit"
#: the deals the learned belief is recorded and fitted on
BELIEF = "carioca-belief"
#: the heuristic rollouts that value search's candidates from the true game (carioca_experiments.studies.departures)
DEPARTURES = "carioca-departures"
#: a bot's decisions at a browser table (``carioca serve``): its seat and the move number
SERVE_BOT = "carioca-web-bot"
#: ``carioca bench``'s measurements: no tag, and the bench's own older scheme (below), kept
#: so that its workloads, and so its figures, stay comparable across commits
BENCH = ""


def derive_seed(namespace: str, seed: int, *parts: Any) -> int:
    """A seed from a run seed and a path of parts, stable across runs, processes and platforms.

    In a tagged namespace: the first 63 bits of a BLAKE2b hash of the JSON list
    ``[namespace, seed, *parts]`` (so the parts must be JSON values).  In :data:`BENCH`
    (the empty tag): 32 bits of ``random.Random`` seeded with ``"seed:part:..."``.

    Args:
        namespace: the purpose, one of the constants of this module.
        seed: the run's seed.
        parts: what the seed is for (``"deck"``, a contract, a deck index ...).
    """
    if namespace == BENCH:
        return random.Random(":".join(str(p) for p in (seed, *parts))).getrandbits(32)
    text = json.dumps([namespace, seed, *parts], separators=(",", ":"))
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big") >> 1
