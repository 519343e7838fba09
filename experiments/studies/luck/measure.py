"""Measuring the luck correction: interval widths on the same decks, and its time overhead.

Usage::

    python -m carioca_experiments.studies.luck.measure widths --agents heuristic greedy --players 2 --decks 60 --values 2 3
    python -m carioca_experiments.studies.luck.measure overhead --agents heuristic greedy --players 2 --decks 2

``widths`` plays a duplicate tournament on all seven contracts (or ``--contracts``), once,
correcting every deal with each value function of ``--values``, and prints, per contract,
the raw and each corrected paired difference of the two agents and the ratio of the
corrected to the raw interval half-width (all on the same deals, so the ratio is what the
correction buys: a ratio ``r`` needs ``r**2`` times the decks for the same width).  ``learned`` stands for the shipped learned model of each
contract at that player count.

``ceiling`` (2 players) bounds what any correction of the stock draws can do: it deals
``--decks`` deals per contract (from the fit's seed namespace, never a tournament's), and
plays the duplicate pair of each on two independent shuffles of its stock.  Each
correction has mean 0 given the deal, so no correction can remove the part of the paired
difference's variance that the deal alone decides, which the covariance of the two
shuffles' differences estimates; ``sqrt(that part / the variance)`` is the smallest
reachable ratio of half-widths.

``seeds`` (2 players) plays the duplicate pair of each of ``--decks`` decks (fit namespace)
twice with different agent seeds, the deal and the whole stock order the same: the share
of the paired difference's variance that the agents' own random choices (ties broken at
random) decide, directly and through the cards each seat then draws.  A correction of the
stock draws alone cannot remove the direct part.

``actions`` (2 players) bounds what AIVAT's action terms can do for agents that declare
their random choices (:class:`carioca_agents.base.DeclaredChoice`): it plays the duplicate pair of
each of ``--decks`` decks (fit namespace) and at every declared choice of a kind version 4
values estimates each option's true value to every seat by ``--rollouts`` playouts (the
stock reshuffled: a value function does not see its order; fresh agent seeds), in two
independent halves.  A perfect value function's action terms would remove from the paired
difference per deck its part ``A`` due to the agents' coin flips, of variance ``E[A^2]``;
the product of the two halves' estimates of ``A`` is an unbiased estimate of ``A^2``, so
the mean product over decks estimates that variance without the playouts' own noise.

``playout`` (2 players) measures what a perfect draw correction reaches, with a value
function made of playouts: see :mod:`carioca_experiments.studies.luck.playout`, which has its
own options (``measure playout --help``).

``overhead`` plays the same tasks with and without the correction, each way twice in
alternating order and each time in a fresh process, and reports the ratio of their CPU
times (``time.process_time``: other processes on a shared machine do not count).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from carioca_experiments.cli import run_script
from carioca_experiments.common.argtypes import int_at_least
from carioca_experiments.evaluation.luck.correction import LuckTracker
from carioca_experiments.evaluation.luck.value import DEFAULT_VERSION, AnyValue, shipped_version, shipped_versions
from carioca_experiments.studies.luck.fit import fit_deck, learned_spec
from carioca_experiments.studies.luck.seated import seat_deal


@dataclass(frozen=True)
class MeasureConfig:
    """What to measure.

    Attributes:
        what: ``widths``, ``overhead``, ``ceiling``, ``seeds`` or ``actions``.
        agents: the two agents (``learned``: the shipped model of the contract).
        players: seats per table.
        contracts: contracts played.
        decks: decks per contract.
        seed: tournament seed.
        out: folder of the rows of ``widths`` (one JSON line per contract).
        max_turns: completed turns after which a deal is truncated.
        values: the shipped value functions' versions to correct with (``widths`` corrects
            the same deals with each; ``overhead`` times the first).
        format: ``widths``: the tournament format (``random``: one random lineup per deck,
            for the null test of an agent against itself, which duplicate makes exactly 0).
        rollouts: ``actions``: playouts per option at each declared choice (two halves).
    """

    what: str
    agents: tuple[str, str]
    players: int = 2
    contracts: tuple[int, ...] = (1, 2, 3, 4, 5, 6, 7)
    decks: int = 60
    seed: int = 2026
    out: str = "runs/luck-measure"
    max_turns: int = 2000
    values: tuple[int, ...] = (DEFAULT_VERSION,)
    format: str = "duplicate"
    rollouts: int = 16

    @property
    def luck(self) -> str:
        """The fingerprint of the (first) value function to correct with."""
        return shipped_version(self.values[0]).fingerprint


def _entries(cfg: MeasureConfig, contract: int) -> tuple[str, str]:
    out = []
    for a in cfg.agents:
        if a == "learned":
            spec = learned_spec(cfg.players, contract)
            if spec is None:
                raise SystemExit(f"no shipped learned model for contract {contract} at {cfg.players} players")
            out.append(f"learned={spec}")
        else:
            out.append(a)
    return out[0], out[1]


class DealObserver(Protocol):
    """What :func:`play_deal` tells of each move: a :class:`LuckTracker`, or anything that
    values the same events (``carioca_experiments.studies.luck.playout.PlayoutTracker``)."""

    def before(self, game: Any, move: Any, choice: Any = None) -> None:
        """The move about to be applied, and the choice its agent declared, if any."""

    def after(self, game: Any) -> None:
        """The move has been applied."""


def play_deal(game: Any, agents: Sequence[Any], max_turns: int, trackers: Sequence[DealObserver] = ()) -> list[float]:
    """Play a dealt game to the end of its deal (an R13 redeal plays on; after ``max_turns``
    completed turns every seat scores its hand, as in a tournament), each tracker
    accumulating its corrections; the final penalties."""
    from carioca_agents.base import declared_choice
    from carioca_env.moves import MoveKind
    from carioca_experiments.evaluation.tournament.play import deal_penalties

    turns = 0
    while not game.deal_results or game.deal_results[-1].cancelled:
        if turns >= max_turns:
            break
        agent = agents[game.current]
        move = agent.act(game.view(game.current), game.legal_moves())
        choice = declared_choice(agent)
        for t in trackers:
            t.before(game, move, choice)
        game.apply(move)
        for t in trackers:
            t.after(game)
        turns += move.kind is MoveKind.DISCARD
    return [float(p) for p in deal_penalties(game)]


def corrected_pairs(tc: Any, values: Sequence[AnyValue]) -> tuple[Any, list[Any]]:
    """Play every task of a two-agent tournament once, correcting each deal with every value
    function: ``(raw, [corrected by each])``, the paired differences (x - y, per deck) of
    :func:`carioca_experiments.common.stats.paired_difference` over the same deals.

    The deals are the tournament's own (same decks, seats and agent seeds), and a
    correction only observes a deal, so each corrected difference is the one
    ``run_tournament`` reports with that value function.
    """
    from collections import defaultdict

    from carioca_experiments.common.stats import paired_difference
    from carioca_experiments.evaluation.tournament.play import setup_deal
    from carioca_experiments.evaluation.tournament.tasks import make_tasks

    labels = tc.labels
    # per value function (raw first): (agent, (contract, deck)) -> that agent's penalties on the deck
    units: list[dict[tuple[str, tuple[int, int]], list[float]]] = [defaultdict(list) for _ in range(len(values) + 1)]
    for task in make_tasks(tc):
        game, agents, seeds = setup_deal(tc, task)
        for agent, seed in zip(agents, seeds):
            agent.reset(seed)
        trackers = [LuckTracker(v, tc.players) for v in values]
        penalty = play_deal(game, agents, tc.max_turns, trackers)
        for s, a in enumerate(task.seating):
            key = (labels[a], (task.contract, task.deck))
            units[0][key].append(penalty[s])
            for u, t in zip(units[1:], trackers):
                u[key].append(penalty[s] - float(t.corrections[s]))
    x, y = labels[0], labels[1]
    out = []
    for u in units:
        means = {k: sum(v) / len(v) for k, v in u.items()}
        out.append(paired_difference({d: m for (a, d), m in means.items() if a == x},
                                     {d: m for (a, d), m in means.items() if a == y}))
    return out[0], out[1:]


def widths(cfg: MeasureConfig) -> list[dict[str, Any]]:
    """Per contract, one duplicate tournament played once and corrected by each value function
    of ``cfg.values``: a row with the raw and each corrected difference and their ratios
    (also appended to a JSON-lines file under ``cfg.out``, so a late stop keeps the rows done)."""
    from carioca_experiments.evaluation.tournament import TournamentConfig

    values = [shipped_version(v) for v in cfg.values]
    rows = []
    for k in cfg.contracts:
        tc = TournamentConfig(agents=_entries(cfg, k), players=cfg.players, contracts=(k,), decks=cfg.decks,
                              seed=cfg.seed, max_turns=cfg.max_turns, format=cfg.format)
        t0 = time.process_time()
        raw, corrected = corrected_pairs(tc, values)
        row: dict[str, Any] = {"contract": k, "decks": raw.n, "raw": raw.mean, "raw_half": raw.half,
                               "cpu_seconds": round(time.process_time() - t0, 1)}
        cells = [f"{raw.mean:+.2f} ± {raw.half:.2f}"]
        for v, c in zip(cfg.values, corrected):
            ratio = c.half / raw.half if raw.half else float("nan")
            row[f"v{v}"] = {"corrected": c.mean, "corrected_half": c.half, "ratio": ratio}
            cells += [f"{c.mean:+.2f} ± {c.half:.2f}", f"{ratio:.2f}"]
        rows.append(row)
        print(f"| {k} | {raw.n} | " + " | ".join(cells) + " |", flush=True)
        out = Path(cfg.out)
        out.mkdir(parents=True, exist_ok=True)
        name = f"{'-'.join(cfg.agents)}-p{cfg.players}-s{cfg.seed}-d{cfg.decks}-{cfg.format}.jsonl"
        with open(out / name, "a", encoding="utf-8") as f:
            f.write(json.dumps(row) + "\n")
    return rows


def _duplicate_pair(deck: list[int], dealer: int, contract: int, agents: tuple[str, str], seeds: list[int],
                    max_turns: int) -> float:
    """x's minus y's penalty per deal over the two seatings of one 2-player deck."""

    diff = 0.0
    for seating in ((0, 1), (1, 0)):
        game, players = seat_deal(deck, dealer, contract, [agents[a] for a in seating], seeds, seeds[0])
        pen = play_deal(game, players, max_turns)
        x = seating.index(0)
        diff += (pen[x] - pen[1 - x]) / 2.0
    return diff


def ceiling(cfg: MeasureConfig) -> list[dict[str, float | int]]:
    """Per contract: the paired difference's variance over deals and stock shuffles, the
    part the deal alone decides, and the smallest half-width ratio a draw correction can reach."""
    import random

    import numpy as np

    from carioca_env import Game, GameConfig
    from carioca_env.decks import stack_deck
    from carioca_experiments.common.seeds import LUCK_FIT, derive_seed

    if cfg.players != 2:
        raise SystemExit("ceiling plays 2-player duplicate pairs only")
    rows = []
    for k in cfg.contracts:
        diffs = np.zeros((cfg.decks, 2))
        for d in range(cfg.decks):
            deck, dealer = fit_deck(random.Random(derive_seed(LUCK_FIT, cfg.seed, "ceiling", k, d)), 2)
            dealt = Game.from_deck(deck, dealer, GameConfig(num_players=2, deals=(k,)), 0)
            hands, upcard = [dealt.hand(s) for s in range(2)], dealt.discard[-1]
            seeds = [derive_seed(LUCK_FIT, cfg.seed, "ceiling-agent", k, d, s) for s in range(2)]
            for v in range(2):
                stock = list(reversed(dealt.stock))  # in draw order
                random.Random(derive_seed(LUCK_FIT, cfg.seed, "ceiling-stock", k, d, v)).shuffle(stock)
                diffs[d, v] = _duplicate_pair(stack_deck(hands, upcard, stock, dealer=dealer), dealer, k,
                                              _entries(cfg, k), seeds, cfg.max_turns)
        var = float(diffs.var(axis=0, ddof=1).mean())
        deal_part = float(np.cov(diffs[:, 0], diffs[:, 1])[0, 1])
        row = {"contract": k, "decks": cfg.decks, "variance": var, "deal_part": deal_part,
               "ratio": float(np.sqrt(max(deal_part, 0.0) / var)) if var > 0 else float("nan")}
        rows.append(row)
        share = deal_part / var if var > 0 else float("nan")
        print(f"| {k} | {cfg.decks} | {var:.0f} | {deal_part:.0f} | {share:.2f} | {row['ratio']:.2f} |", flush=True)
    return rows


def seeds_share(cfg: MeasureConfig) -> list[dict[str, float | int]]:
    """Per contract: the paired difference's variance over decks and agent seeds, and the
    part the agents' own seeds decide when the deal and the whole stock order are fixed."""
    import random

    import numpy as np

    from carioca_experiments.common.seeds import LUCK_FIT, derive_seed

    if cfg.players != 2:
        raise SystemExit("seeds plays 2-player duplicate pairs only")
    rows = []
    for k in cfg.contracts:
        diffs = np.zeros((cfg.decks, 2))
        for d in range(cfg.decks):
            deck, dealer = fit_deck(random.Random(derive_seed(LUCK_FIT, cfg.seed, "seeds", k, d)), 2)
            for v in range(2):
                seeds = [derive_seed(LUCK_FIT, cfg.seed, "seeds-agent", k, d, v, s) for s in range(2)]
                diffs[d, v] = _duplicate_pair(deck, dealer, k, _entries(cfg, k), seeds, cfg.max_turns)
        var = float(diffs.var(axis=0, ddof=1).mean())
        deck_part = float(np.cov(diffs[:, 0], diffs[:, 1])[0, 1])
        share = 1.0 - deck_part / var if var > 0 else float("nan")
        rows.append({"contract": k, "decks": cfg.decks, "variance": var, "deck_part": deck_part, "seeds_share": share})
        print(f"| {k} | {cfg.decks} | {var:.0f} | {deck_part:.0f} | {share:.2f} |", flush=True)
    return rows


def _option_values(game: Any, options: Sequence[Any], specs: Sequence[str], rng: Any, rollouts: int,
                   max_turns: int) -> Any:
    """``[2, len(options), seats]``: each option's mean final penalty per seat over
    ``rollouts // 2`` playouts in each of two independent halves (the stock reshuffled,
    the agents of ``specs`` freshly seeded from ``rng``)."""
    import numpy as np

    from carioca_agents.registry import make_agent

    half = max(1, rollouts // 2)
    out = np.zeros((2, len(options), game.num_players))
    for h in range(2):
        for i, option in enumerate(options):
            for _ in range(half):
                g = game.clone()
                rng.shuffle(g.stock)
                g.rng.seed(rng.getrandbits(63))
                g.apply(option)
                agents = [make_agent(sp, rng.getrandbits(31)) for sp in specs]
                out[h, i] += play_deal(g, agents, max_turns)
    return out / half


def action_ceiling(cfg: MeasureConfig) -> list[dict[str, float | int]]:
    """Per contract: the paired difference's variance over decks and the part of it a
    perfect value function's action terms would remove (see the module docstring)."""
    import random

    import numpy as np

    from carioca_agents.base import declared_choice
    from carioca_env.moves import MoveKind
    from carioca_experiments.common.seeds import LUCK_FIT, derive_seed
    from carioca_experiments.studies.luck import action_features as features4

    if cfg.players != 2:
        raise SystemExit("actions plays 2-player duplicate pairs only")
    rows: list[dict[str, float | int]] = []
    out = Path(cfg.out)
    out.mkdir(parents=True, exist_ok=True)
    for k in cfg.contracts:
        entries = _entries(cfg, k)
        diffs, products, choices = [], [], 0
        for d in range(cfg.decks):
            deck, dealer = fit_deck(random.Random(derive_seed(LUCK_FIT, cfg.seed, "actions", k, d)), 2)
            seeds = [derive_seed(LUCK_FIT, cfg.seed, "actions-agent", k, d, s) for s in range(2)]
            rng = random.Random(derive_seed(LUCK_FIT, cfg.seed, "actions-playouts", k, d))
            diff, terms = 0.0, np.zeros(2)  # terms: each half's x-minus-y action terms, over the pair
            for seating in ((0, 1), (1, 0)):
                specs = [entries[a] for a in seating]
                game, agents = seat_deal(deck, dealer, k, specs, seeds, seeds[0])
                x = seating.index(0)
                turns = 0
                while not game.deal_results or game.deal_results[-1].cancelled:
                    if turns >= cfg.max_turns:
                        break
                    agent = agents[game.current]
                    move = agent.act(game.view(game.current), game.legal_moves())
                    choice = declared_choice(agent)
                    if choice is not None and features4.valued(choice.options):
                        q = _option_values(game, choice.options, specs, rng, cfg.rollouts, cfg.max_turns)
                        w = np.asarray(choice.weights())
                        term = q[:, choice.chosen] - np.einsum("a,has->hs", w, q)  # [half, seat]
                        terms += (term[:, x] - term[:, 1 - x]) / 2.0
                        choices += 1
                    game.apply(move)
                    turns += move.kind is MoveKind.DISCARD
                pen = play_deal(game, agents, 0)  # the scores, or each hand's penalty if cut
                diff += (pen[x] - pen[1 - x]) / 2.0
            diffs.append(diff)
            products.append(float(terms[0] * terms[1]))
        var = float(np.var(diffs, ddof=1))
        a2 = float(np.mean(products))
        a2_half = float(1.96 * np.std(products, ddof=1) / np.sqrt(len(products)))
        row = {"contract": k, "decks": cfg.decks, "variance": var, "action_part": a2, "action_part_half": a2_half,
               "share": a2 / var if var > 0 else float("nan"), "choices_per_deck": choices / cfg.decks,
               "rollouts": cfg.rollouts,
               "smallest_ratio_actions_alone": float(np.sqrt(max(var - a2, 0.0) / var)) if var > 0 else float("nan")}
        rows.append(row)
        print(f"| {k} | {cfg.decks} | {choices / cfg.decks:.1f} | {var:.0f} | {a2:.1f} ± {a2_half:.1f} | "
              f"{row['share']:.3f} | {row['smallest_ratio_actions_alone']:.3f} |", flush=True)
        with open(out / f"actions-{'-'.join(cfg.agents)}-s{cfg.seed}-d{cfg.decks}-r{cfg.rollouts}.jsonl", "a",
                  encoding="utf-8") as f:
            f.write(json.dumps(row) + "\n")
    return rows


def _cpu_seconds(args: tuple[MeasureConfig, bool]) -> float:
    """CPU seconds of playing every task of ``cfg`` in this (fresh) process, with or without the correction."""
    from carioca_experiments.evaluation.tournament import TournamentConfig, make_tasks, play_chunk

    cfg, corrected = args
    spent = 0.0
    for k in cfg.contracts:
        tc = TournamentConfig(agents=_entries(cfg, k), players=cfg.players, contracts=(k,), decks=cfg.decks,
                              seed=cfg.seed, max_turns=cfg.max_turns,
                              luck=cfg.luck if corrected else None)
        t0 = time.process_time()
        play_chunk(tc, make_tasks(tc))
        spent += time.process_time() - t0
    return spent


def overhead(cfg: MeasureConfig, rounds: int = 2) -> float:
    """CPU seconds of the corrected tournament over the raw one: each played ``rounds``
    times, alternately, each time in a fresh process (so neither finds the other's warm
    caches, and both pay their own)."""
    import multiprocessing as mp

    totals = {False: 0.0, True: 0.0}
    ctx = mp.get_context("spawn")
    for r in range(rounds):
        for corrected in ((False, True) if r % 2 == 0 else (True, False)):
            with ctx.Pool(1) as pool:
                spent = pool.map(_cpu_seconds, [(cfg, corrected)])[0]
            totals[corrected] += spent
            print(f"round {r + 1}, {'corrected' if corrected else 'raw'}: {spent:.1f} s CPU", flush=True)
    ratio = totals[True] / totals[False]
    print(f"corrected / raw CPU time: {ratio:.2f}")
    return ratio


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m carioca_experiments.studies.luck.measure``: see the module docstring."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "playout":  # its own options
        from carioca_experiments.studies.luck import playout

        return playout.main(argv[1:])
    p = argparse.ArgumentParser(prog="python -m carioca_experiments.studies.luck.measure", description=__doc__.split("\n\n")[0])
    p.add_argument("what", choices=("widths", "overhead", "ceiling", "seeds", "actions", "playout"))
    p.add_argument("--agents", nargs=2, required=True, metavar="SPEC")
    p.add_argument("--players", type=int, choices=(2, 3, 4), default=2)
    p.add_argument("--contracts", type=int, nargs="+", choices=range(1, 8), default=list(range(1, 8)))
    p.add_argument("--decks", type=int_at_least(2), default=60)
    p.add_argument("--seed", type=int_at_least(0), default=2026)
    p.add_argument("--out", default="runs/luck-measure")
    p.add_argument("--max-turns", type=int_at_least(1), default=2000)
    p.add_argument("--values", "--value", type=int, nargs="+", choices=shipped_versions(),
                   default=[DEFAULT_VERSION],
                   help="the shipped value functions' versions (default: the default of --luck-correction); widths "
                        "corrects the same deals with each")
    p.add_argument("--format", choices=("duplicate", "random"), default="duplicate",
                   help="widths: the tournament format (random: for the null test of an agent against itself)")
    p.add_argument("--rollouts", type=int_at_least(2), default=16,
                   help="actions: playouts per option at each declared choice (two halves)")
    a = p.parse_args(argv)
    cfg = MeasureConfig(a.what, tuple(a.agents), a.players, tuple(a.contracts), a.decks, a.seed,
                        a.out, a.max_turns, tuple(a.values), a.format, a.rollouts)

    def work() -> None:
        if cfg.what == "widths":
            head = "".join(f" corrected (v{v}) ± half | ratio v{v} |" for v in cfg.values)
            print(f"| contract | decks | raw diff ± half |{head}\n|---|---|---|" + "---|---|" * len(cfg.values))
            widths(cfg)
        elif cfg.what == "seeds":
            print("| contract | decks | variance | deck's part | agents' seeds' share |\n|---|---|---|---|---|")
            seeds_share(cfg)
        elif cfg.what == "actions":
            print("| contract | decks | declared choices per deck | variance | coin flips' part (95%) | share | "
                  "smallest ratio |\n|---|---|---|---|---|---|---|")
            action_ceiling(cfg)
        elif cfg.what == "ceiling":
            print("| contract | decks | variance | deal's part | share | smallest ratio |\n|---|---|---|---|---|---|")
            ceiling(cfg)
        else:
            overhead(cfg)

    return run_script(work)


if __name__ == "__main__":
    sys.exit(main())
