"""What a tournament plays: its configuration, the presets, the seeds and the lineups.

Nothing here plays or runs anything: a :class:`TournamentConfig` and its lineups fully
determine the tournament's tasks (:mod:`carioca_experiments.evaluation.tournament.tasks`) and so its results.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import re
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from carioca_env.game_config import MAX_TURNS
from carioca_experiments.common.seeds import TOURNAMENT, derive_seed
from carioca_experiments.evaluation.tournament.errors import TournamentError

ALL_CONTRACTS = (1, 2, 3, 4, 5, 6, 7)
FORMATS = ("duplicate", "random")

#: Agents of the demo preset, in this order, as far as they are registered.
BUILTIN_AGENTS = ("random", "greedy", "heuristic")

#: Named option sets; explicit options override them.
PRESETS: dict[str, dict[str, Any]] = {
    # `make demo`, the README's main command: the built-in agents over all seven contracts, a few
    # minutes on 2 cores.
    "demo": {"agents": None, "players": 3, "contracts": ALL_CONTRACTS, "decks": 40, "max_turns": MAX_TURNS},
    # A smoke test in seconds.
    "quick": {"agents": None, "players": 2, "contracts": (1, 2), "decks": 2, "max_turns": MAX_TURNS},
}

_LABEL_RE = re.compile(r"^[A-Za-z0-9_.+-]+$")


def parse_agent(entry: str) -> tuple[str, str]:
    """``"LABEL=SPEC"`` or ``"SPEC"`` -> ``(label, spec)`` (a bare spec is its own label)."""
    label, sep, spec = entry.partition("=")
    if sep and _LABEL_RE.match(label) and spec:
        return label, spec
    return entry, entry


@dataclass(frozen=True)
class TournamentConfig:
    """Everything that determines a tournament's results (not how fast it runs).

    Attributes:
        agents: agent entries, ``SPEC`` or ``LABEL=SPEC`` (see the module docstring).
        players: seats per table, 2-4.
        contracts: the contracts played, each as one-deal games.
        decks: distinct dealt decks per contract (``--decks``).
        seed: the tournament seed; every other seed derives from it.
        format: ``"duplicate"`` (every lineup on every deck) or ``"random"`` (one random
            lineup per deck).
        max_turns: completed turns after which a deal is truncated (R17).
        luck: the fingerprint of the luck value function whose corrections each deal
            records (``--luck-correction``, :mod:`carioca_experiments.evaluation.luck`), or ``None``.  Left
            out of :meth:`to_dict` when ``None``, so configs without it keep their
            results headers and default folders.
    """

    agents: tuple[str, ...]
    players: int = 2
    contracts: tuple[int, ...] = ALL_CONTRACTS
    decks: int = 10
    seed: int = 0
    format: str = "duplicate"
    max_turns: int = MAX_TURNS
    luck: str | None = None

    def __post_init__(self) -> None:
        if isinstance(self.agents, str):
            object.__setattr__(self, "agents", (self.agents,))
        object.__setattr__(self, "agents", tuple(str(a) for a in self.agents))
        object.__setattr__(self, "contracts", tuple(int(c) for c in self.contracts))
        if not self.agents:
            raise TournamentError("a tournament needs at least one agent (--agents SPEC [SPEC ...])")
        labels = self.labels
        dupes = sorted({x for x in labels if labels.count(x) > 1})
        if dupes:
            raise TournamentError(
                f"agent labels must be distinct, {', '.join(dupes)} appears twice; to play copies "
                f"of one spec as separate agents label them, e.g. --agents a=random b=random"
            )
        if not isinstance(self.players, int) or not 2 <= self.players <= 4:
            raise TournamentError(f"--players must be 2, 3 or 4, got {self.players!r}")
        if not self.contracts or any(c not in ALL_CONTRACTS for c in self.contracts):
            raise TournamentError(f"--contracts must be contract numbers 1..7, got {list(self.contracts)}")
        if len(set(self.contracts)) != len(self.contracts):
            raise TournamentError(f"--contracts lists a contract twice: {list(self.contracts)}")
        if not isinstance(self.decks, int) or self.decks < 1:
            raise TournamentError(f"--decks (decks per contract) must be at least 1, got {self.decks!r}")
        if not isinstance(self.seed, int) or self.seed < 0:
            raise TournamentError(f"--seed must be a non-negative integer, got {self.seed!r}")
        if self.format not in FORMATS:
            raise TournamentError(f"--format must be one of {', '.join(FORMATS)}, got {self.format!r}")
        if not isinstance(self.max_turns, int) or self.max_turns < 1:
            raise TournamentError(f"--max-turns must be at least 1, got {self.max_turns!r}")
        if self.luck is not None and (not isinstance(self.luck, str) or not self.luck):
            raise TournamentError(f"luck must be a value function's fingerprint or None, got {self.luck!r}")

    @property
    def labels(self) -> tuple[str, ...]:
        """The agents' labels (their names in results and summaries)."""
        return tuple(parse_agent(a)[0] for a in self.agents)

    @property
    def specs(self) -> tuple[str, ...]:
        """The agents' specs for :func:`carioca_agents.registry.make_agent`."""
        return tuple(parse_agent(a)[1] for a in self.agents)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (the results header's ``config``)."""
        d = asdict(self)
        d["agents"] = list(self.agents)
        d["contracts"] = list(self.contracts)
        if self.luck is None:
            del d["luck"]
        return d

    @staticmethod
    def from_dict(d: dict[str, Any]) -> TournamentConfig:
        """Inverse of :meth:`to_dict`."""
        return TournamentConfig(
            agents=tuple(d["agents"]),
            players=d["players"],
            contracts=tuple(d["contracts"]),
            decks=d["decks"],
            seed=d["seed"],
            format=d["format"],
            max_turns=d["max_turns"],
            luck=d.get("luck"),
        )

    def default_out_dir(self) -> Path:
        """``results/tournament-<agents>-p<players>-<hash of the config>`` (the same for the same config)."""
        digest = hashlib.sha256(json.dumps(self.to_dict(), sort_keys=True).encode()).hexdigest()[:8]
        slug = "-".join(re.sub(r"[^A-Za-z0-9_.+]+", "_", x) for x in self.labels)[:40].strip("-_")
        return Path("results") / f"tournament-{slug}-p{self.players}-{digest}"


def agent_seed(seed: int, contract: int, deck: int, seat: int) -> int:
    """The seed of the agent in ``seat`` of deck ``deck`` of ``contract``.

    It depends on the seat, not on the lineup: the agent that holds a seat's cards gets
    the same seed in every lineup and every tournament of that seed, so two agents that
    meet on a deck play the same deal whichever other agents the tournament holds.
    """
    return derive_seed(TOURNAMENT, seed, "agent", contract, deck, seat)


def lineups(num_agents: int, players: int) -> list[tuple[int, ...]]:
    """The duplicate lineups: tuples of agent indices, one per seat (see the module docstring)."""
    if num_agents >= players:
        combos = list(itertools.combinations(range(num_agents), players))
    else:
        combos = [tuple(s % num_agents for s in range(players))]
    out: list[tuple[int, ...]] = []
    for base in combos:
        for r in range(players):
            seating = tuple(base[(s + r) % players] for s in range(players))
            if seating not in out:
                out.append(seating)
    return out

