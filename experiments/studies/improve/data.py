"""The rollout-advantage data on disk, and its generation in parallel shards.

A data folder (``OUT/data``) holds ``manifest.json`` (``"format":
"carioca-advantage-data"``, version 1: the run's data options, the layout of
:func:`carioca_agents.ppo_agent.env_layout`, and per shard its file, split, games, rows, valued
decisions and SHA-256) and one ``numpy.savez_compressed`` shard per block of games,
``<split>-<k>.npz`` (``split`` is ``train`` or ``heldout``; held-out games are dealt
from another seed path), with one row per decision of any seat
(:mod:`carioca_experiments.studies.improve.labels`):

================  ========  ==========================================================
array             dtype     meaning
================  ========  ==========================================================
obs               float32   the seat's observation (``encode_observation``), N x obs
mask              uint8     the legal-action mask, ``numpy.packbits`` per row
action            int32     the teacher's action id (an opening: one row per meld)
cand              int32     N x top: the valued candidates' action ids, the teacher's
                            first, -1 padded; a row with one candidate is not valued
adv               float32   N x top: each candidate's mean rollout advantage over the
                            teacher's move, in penalty points (0 for the teacher's)
seat              int8      the deciding seat
game_seed         int64     the game's seed (``Game(config, seed)`` deals it)
game              int32     the game's index in its split
step              int32     the row's position in its game
deal              int8      the contract
================  ========  ==========================================================

Every game's randomness comes from :func:`carioca_experiments.studies.improve.config.derive_seed` of the
run seed, the split and the game index, so a shard holds the same rows whatever the
number of workers and however often the run was interrupted.
"""

from __future__ import annotations

import random
import sys
from concurrent.futures import ProcessPoolExecutor
from typing import TYPE_CHECKING

from carioca_experiments.common.progress import progress_bar
from carioca_experiments.common.seeds import IMPROVE, derive_seed
from carioca_experiments.studies.improve.config import ImproveConfig
from carioca_experiments.studies.improve.labels import COLUMNS, AdvantageRows, label_game
from carioca_experiments.training.imitate.dataset import DataFolder

if TYPE_CHECKING:  # the agents are built in the worker processes
    from carioca_agents.base import Agent

#: The manifest's format name and version.
ADVANTAGE_FORMAT = "carioca-advantage-data"
ADVANTAGE_VERSION = 1


class AdvantageFolder(DataFolder):
    """A folder of rollout-advantage shards (see the module docstring); shards are listed
    in split and index order whatever order they were finished in."""

    FORMAT = ADVANTAGE_FORMAT
    VERSION = ADVANTAGE_VERSION
    COLUMNS = COLUMNS

    def _save(self) -> None:
        """Write the manifest with its shards in (split, index) order."""
        self.shards.sort(key=lambda s: (s["split"], s["index"]))
        super()._save()


def shard_name(split: str, index: int) -> str:
    """The file of shard ``index`` of ``split``."""
    return f"{split}-{index}.npz"


def seat_specs(config: ImproveConfig, players: int, split: str, game: int) -> list[str]:
    """The agent spec of each seat in one game: the teacher everywhere, or with
    ``opponents`` the teacher at seat ``game % players`` and each other seat an opponent
    drawn from the game's own generator."""
    if not config.opponents:
        return [config.teacher] * players
    pick = random.Random(derive_seed(IMPROVE, config.seed, split, "seats", game))
    teacher_seat = game % players
    return [config.teacher if s == teacher_seat else config.opponents[pick.randrange(len(config.opponents))]
            for s in range(players)]


def label_shard(config: ImproveConfig, features: str, players: int, split: str, index: int) -> AdvantageRows:
    """The rows of one shard's games (runs in a worker process)."""
    from carioca_agents.registry import make_agent

    rows = AdvantageRows(top=config.top)
    built: dict[tuple[str, int, str], Agent] = {}  # (role, seat, spec) -> agent, built once per shard

    def agent(role: str, seat: int, spec: str) -> Agent:
        key = (role, seat, spec)
        if key not in built:
            built[key] = make_agent(spec, 0)
        return built[key]

    total = config.games if split == "train" else config.heldout_games
    for g in range(index * config.shard_games, min((index + 1) * config.shard_games, total)):
        game_seed = derive_seed(IMPROVE, config.seed, split, "game", g)
        specs = seat_specs(config, players, split, g)
        actors = [agent("play", s, spec) for s, spec in enumerate(specs)]
        for s, a in enumerate(actors):
            a.reset(derive_seed(IMPROVE, config.seed, split, "teacher", g, s))
        policies = [agent("rollout", s, spec) for s, spec in enumerate(specs)]
        labelled = [g % players] if config.opponents else range(players)
        label_game(players, config.contract, game_seed, g, features, actors, policies, labelled, config.reshuffles,
                   config.top, config.max_turns, random.Random(derive_seed(IMPROVE, config.seed, split, "rollouts", g)), rows)
    return rows


def generate(config: ImproveConfig, folder: AdvantageFolder, split: str, features: str, players: int,
             workers: int = 1, progress: bool = False) -> None:
    """Label the unfinished shards of ``split`` into ``folder`` on ``workers`` processes."""
    total = config.games if split == "train" else config.heldout_games
    count = -(-total // config.shard_games)
    todo = [k for k in range(count) if not folder.has(shard_name(split, k))]
    if not todo:
        return
    bar = progress_bar(total=len(todo), unit="shard", desc=f"label {split}", enabled=progress, file=sys.stderr)

    def done(k: int, rows: AdvantageRows) -> None:
        games = [k * config.shard_games, min((k + 1) * config.shard_games, total)]
        valued = int(((rows.arrays()["cand"] >= 0).sum(1) > 1).sum()) if len(rows) else 0
        folder.write(shard_name(split, k), rows, split=split, index=k, games=games, valued=valued)
        bar.update(1)

    if workers <= 1:
        for k in todo:
            done(k, label_shard(config, features, players, split, k))
    else:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            futures = {k: pool.submit(label_shard, config, features, players, split, k) for k in todo}
            for k in todo:
                done(k, futures[k].result())
    bar.close()
