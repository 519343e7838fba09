"""Bounding the draw correction with a playout-valued value function (2 players).

Usage::

    python -m carioca_experiments.studies.luck.measure playout --agents heuristic greedy --contracts 1 2 6 \\
        --decks 60 --centring 4 --rollouts 1 --playout-agents actual --seed 7 --out runs/luck-playout

Each deck (fit namespace, never a tournament's) is played as a duplicate pair (two
seatings) and every deal is corrected three ways on the same moves: not at all (raw), by
the shipped value function of ``--value`` (the package's default by default), and by *playouts*.  At
every stock draw the playout correction of seat ``s`` is ``f_s(drawn) - mean_j f_s(c_j)``:
``c_1..c_M`` are ``--centring`` cards sampled with replacement from the stock's cards (the
draw's true distribution: the next card is uniform over the stock, after a recycle too),
and ``f_s(c)`` is seat ``s``'s mean final deal penalty over ``--rollouts`` playouts of the
deal from the state with ``c`` drawn (the rest of the stock reshuffled, the agents freshly
seeded: a value function sees the whole state but the stock's order).  The playouts of one
draw use the same seeds for every card (common random numbers), drawn from a generator
that does not depend on the card drawn, so each correction has expectation exactly 0
given the past whatever the playouts return.

``--playout-agents actual`` plays the playouts with the seated agents (a policy-aware value,
the best a draw correction can use); ``heuristic`` with the heuristic in every seat (what a
general value function could use).

Every correction is computed in two independent halves (independent card samples and
playout seeds), ``C1`` and ``C2``.  Given the game, each half is the exact correction
``C`` (infinitely many samples and playouts) plus independent noise of mean 0, so the
covariance over decks of ``D - C1`` and ``D - C2`` (``D``: the paired difference) estimates
the variance of ``D - C`` without the playouts' own noise: the variance left by a perfect
value function of this kind.  Each half's own ``D - C1`` is what a shipped correction with
these ``M`` and ``R`` would give.

Rows: one JSON line per deck (``playout-*.jsonl`` under ``--out``, resumed: decks already
there are not played again), each deck's CPU seconds (``playout-*-cpu.jsonl``, apart so that the
rows are the same bytes for the same seed) and one summary line per contract (``playout-*-summary.jsonl``),
with a seeded bootstrap over decks for every ratio.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from carioca_env.moves import Move, MoveKind
from carioca_env.view import Phase
from carioca_experiments.common.seeds import LUCK_FIT, derive_seed
from carioca_experiments.evaluation.luck.value import DEFAULT_VERSION

#: the seed tag of this study's decks, agents and playouts in the fit namespace
TAG = "playout"
PLAYOUT_AGENTS = ("actual", "heuristic")
_DRAW_STOCK = Move.draw_stock()


@dataclass(frozen=True)
class PlayoutConfig:
    """What to measure.

    Attributes:
        agents: the two agents (registry specs; ``learned``: the shipped model of the contract).
        contracts: contracts played.
        decks: decks per contract (fit namespace, seed ``seed``).
        seed: the run's seed: decks, agents, card samples, playouts and bootstrap.
        centring: cards sampled (with replacement) to centre each draw's correction (``M``).
        rollouts: playouts per card valued (``R``), the same seeds for every card of a draw.
        playout_agents: ``actual`` (the seated agents) or ``heuristic`` (every seat).
        value: the shipped value function's version corrected with beside the playouts.
        out: folder of the rows.
        max_turns: completed turns after which a deal (or a playout) is cut off.
        bootstrap: resamples of the decks for each ratio's 95% interval.
    """

    agents: tuple[str, str]
    contracts: tuple[int, ...] = (1, 2, 6)
    decks: int = 60
    seed: int = 2026
    centring: int = 4
    rollouts: int = 1
    playout_agents: str = "actual"
    # the same default as the command's --value, so both name the same rows file
    value: int = DEFAULT_VERSION
    out: str = "runs/luck-playout"
    max_turns: int = 2000
    bootstrap: int = 2000

    #: seats per table (this study plays 2-player duplicate pairs only)
    players = 2

    def __post_init__(self) -> None:
        from carioca_agents.registry import parse_spec
        from carioca_experiments.evaluation.luck.value import shipped_versions

        if len(self.agents) != 2:
            raise ValueError(f"agents: expected two specs, got {len(self.agents)}")
        for a in self.agents:
            if a != "learned":
                parse_spec(a)  # SpecError (a ValueError) names what is wrong
        if not self.contracts or any(k not in range(1, 8) for k in self.contracts):
            raise ValueError(f"contracts: expected contracts 1-7, got {list(self.contracts)}")
        for name, lo in (("decks", 2), ("centring", 1), ("rollouts", 1), ("max_turns", 1), ("bootstrap", 10)):
            if getattr(self, name) < lo:
                raise ValueError(f"{name}: expected at least {lo}, got {getattr(self, name)}")
        if self.playout_agents not in PLAYOUT_AGENTS:
            raise ValueError(f"playout_agents: expected one of {PLAYOUT_AGENTS}, got {self.playout_agents!r}")
        if self.value not in shipped_versions():
            raise ValueError(f"value: expected a shipped version ({', '.join(map(str, shipped_versions()))}), "
                             f"got {self.value}")

    @property
    def name(self) -> str:
        """The rows' file name stem: everything the deck rows depend on."""
        return (f"playout-{'-'.join(self.agents)}-s{self.seed}-m{self.centring}-r{self.rollouts}-"
                f"{self.playout_agents}-v{self.value}-t{self.max_turns}")


def draw_plan(stock: Sequence[int], rng: random.Random, centring: int, rollouts: int) -> tuple[list[int], list[int]]:
    """One half's card samples and playout seeds at a draw: ``centring`` cards drawn with
    replacement from the stock's cards (by copies; from the sorted stock, so its hidden
    order does not matter), then ``rollouts`` seeds, all from ``rng``."""
    cards = sorted(stock)
    return [rng.choice(cards) for _ in range(centring)], [rng.getrandbits(63) for _ in range(rollouts)]


def playout_start(game: Any, card: int, seed: int, specs: Sequence[str]) -> tuple[Any, list[Any]]:
    """A copy of ``game`` (at a stock draw) with ``card`` drawn and the rest of the stock in a
    uniformly random order, and fresh agents of ``specs``: all from ``seed``.

    The stock's sorted cards are shuffled, then a copy of ``card`` chosen at random is
    swapped to the top (the rest stays uniform, and the hidden order does not matter); the
    game's own generator (recycles) and the agents are seeded before that choice, so with
    one seed every card gets the same shuffle, generator and agents, and two cards' stocks
    differ in two places only (common random numbers)."""
    from carioca_agents.registry import make_agent

    rng = random.Random(seed)
    stock = sorted(game.stock)
    rng.shuffle(stock)
    g = game.clone()
    g.rng.seed(rng.getrandbits(63))
    agents = [make_agent(sp, rng.getrandbits(31)) for sp in specs]
    i = rng.choice([j for j, c in enumerate(stock) if c == card])
    stock[i], stock[-1] = stock[-1], stock[i]  # the top of the stock is the list's end
    g.stock = stock
    g.apply(_DRAW_STOCK)
    return g, agents


def card_value(game: Any, card: int, seeds: Sequence[int], specs: Sequence[str], max_turns: int) -> np.ndarray:
    """Each seat's mean final deal penalty over one playout per seed of ``game`` (at a stock
    draw) with ``card`` drawn (:func:`playout_start`), each played to the deal's end (or
    ``max_turns`` completed turns) by the agents of ``specs``."""
    from carioca_experiments.studies.luck.measure import play_deal

    out = np.zeros(game.num_players)
    for seed in seeds:
        out += play_deal(*playout_start(game, card, seed, specs), max_turns)
    return out / len(seeds)


class PlayoutTracker:
    """A :class:`~carioca_experiments.evaluation.luck.correction.LuckTracker`-like observer whose
    value function is playouts: at every stock draw, each half ``h`` adds to
    ``corrections[h]`` the draw's correction ``f(drawn) - mean_j f(c_j)`` (module docstring).

    The samples and seeds of draw ``i``'s half ``h`` come from a generator seeded by
    ``(parts, i, h)`` alone, never by the card drawn.
    """

    def __init__(self, specs: Sequence[str], parts: Sequence[Any], centring: int, rollouts: int,
                 max_turns: int, num_players: int = 2) -> None:
        self.specs = list(specs)
        self.parts = tuple(parts)
        self.centring = centring
        self.rollouts = rollouts
        self.max_turns = max_turns
        self.corrections = np.zeros((2, num_players))
        self.draws = 0
        self.playouts = 0
        self._before: Any = None

    def before(self, game: Any, move: Move, choice: Any = None) -> None:
        """Keep a copy of the game if ``move`` is a stock draw (``choice`` is ignored)."""
        draw = move.kind is MoveKind.DRAW_STOCK and game.phase is Phase.DRAW and game.stock
        self._before = game.clone() if draw else None

    def after(self, game: Any) -> None:
        """Add both halves' corrections of the stock draw just applied (``game.drawn_card``)."""
        if self._before is None:
            return
        before, self._before = self._before, None
        for h in range(2):
            rng = random.Random(derive_seed(LUCK_FIT, *self.parts, self.draws, h))
            samples, seeds = draw_plan(before.stock, rng, self.centring, self.rollouts)
            # common random numbers: one card's value is the same wherever it appears
            values = {c: card_value(before, c, seeds, self.specs, self.max_turns)
                      for c in sorted({*samples, game.drawn_card})}
            self.playouts += len(values) * len(seeds)
            self.corrections[h] += values[game.drawn_card] - np.mean([values[c] for c in samples], axis=0)
        self.draws += 1


def play_deck(cfg: PlayoutConfig, contract: int, deck: int) -> tuple[dict[str, Any], float, float]:
    """One deck's duplicate pair, raw and corrected: its row (x - y per deal, raw, by the
    value function and by each half's playouts), and the CPU seconds of playing it
    corrected and of playing it raw."""
    from carioca_experiments.evaluation.luck.correction import LuckTracker
    from carioca_experiments.evaluation.luck.value import shipped_version
    from carioca_experiments.studies.luck.fit import fit_deck
    from carioca_experiments.studies.luck.measure import _duplicate_pair, _entries, play_deal
    from carioca_experiments.studies.luck.seated import seat_deal

    entries = _entries(cfg, contract)  # type: ignore[arg-type]  # it reads .agents and .players only
    deck_cards, dealer = fit_deck(random.Random(derive_seed(LUCK_FIT, cfg.seed, TAG, contract, deck)), 2)
    seeds = [derive_seed(LUCK_FIT, cfg.seed, f"{TAG}-agent", contract, deck, s) for s in range(2)]
    value = shipped_version(cfg.value)
    raw, by_value, halves, draws, playouts = 0.0, 0.0, np.zeros(2), 0, 0
    t0 = time.process_time()
    for seating in ((0, 1), (1, 0)):
        specs = [entries[a] for a in seating]
        game, agents = seat_deal(deck_cards, dealer, contract, specs, seeds, seeds[0])
        tracker = LuckTracker(value, 2)
        played = PlayoutTracker(specs if cfg.playout_agents == "actual" else ["heuristic"] * 2,
                                (cfg.seed, f"{TAG}-draw", cfg.playout_agents, contract, deck, seating[0]),
                                cfg.centring, cfg.rollouts, cfg.max_turns)
        pen = np.asarray(play_deal(game, agents, cfg.max_turns, [tracker, played]), dtype=np.float64)
        x = seating.index(0)

        def pair(v: np.ndarray) -> float:
            return float(v[x] - v[1 - x]) / 2.0

        raw += pair(pen)
        by_value += pair(pen - tracker.corrections)
        halves += [pair(pen - played.corrections[h]) for h in range(2)]
        draws += played.draws
        playouts += played.playouts
    spent = time.process_time() - t0
    t0 = time.process_time()
    _duplicate_pair(deck_cards, dealer, contract, entries, seeds, cfg.max_turns)
    raw_spent = time.process_time() - t0
    row = {"contract": contract, "deck": deck, "raw": raw, f"v{cfg.value}": by_value,
           "half1": float(halves[0]), "half2": float(halves[1]), "draws": draws, "playouts": playouts}
    return row, spent, raw_spent


def _ratios(raw: np.ndarray, by_value: np.ndarray, h1: np.ndarray, h2: np.ndarray) -> dict[str, float]:
    """Standard deviations over decks of the paired difference, raw and corrected (each
    argument holds one column of corrected differences), and their ratios to raw."""
    perfect = float(np.cov(h1, h2)[0, 1])  # the halves' noises are independent given the game
    sd = {"raw": float(np.std(raw, ddof=1)), "value": float(np.std(by_value, ddof=1)),
          "perfect": max(perfect, 0.0) ** 0.5,
          "half": float((np.std(h1, ddof=1) + np.std(h2, ddof=1)) / 2.0)}
    ratios = {f"{k}_ratio": (v / sd["raw"] if sd["raw"] > 0 else float("nan")) for k, v in sd.items() if k != "raw"}
    # how far the value function is from the perfect correction, on the same decks
    ratios["gap_ratio"] = ratios["value_ratio"] - ratios["perfect_ratio"]
    return {**{f"{k}_sd": v for k, v in sd.items()}, **ratios, "perfect_variance": perfect}


def summarize(cfg: PlayoutConfig, rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """One contract's summary of its deck rows: means, standard deviations and ratios to raw
    (``perfect``: from the two halves' covariance; ``half``: one half's own, the mean of
    the two; ``gap``: the value function's ratio minus the perfect one), each with a 95%
    percentile interval from a seeded bootstrap over decks."""
    k = rows[0]["contract"]
    cols = {c: np.array([r[c] for r in rows], dtype=np.float64) for c in ("raw", f"v{cfg.value}", "half1", "half2")}
    args = (cols["raw"], cols[f"v{cfg.value}"], cols["half1"], cols["half2"])
    out: dict[str, Any] = {"contract": k, "decks": len(rows), "centring": cfg.centring, "rollouts": cfg.rollouts,
                           "playout_agents": cfg.playout_agents, "value": cfg.value,
                           "means": {c: float(v.mean()) for c, v in cols.items()}, **_ratios(*args)}
    rng = np.random.default_rng(derive_seed(LUCK_FIT, cfg.seed, f"{TAG}-bootstrap", k))
    names = ("value_ratio", "perfect_ratio", "half_ratio", "gap_ratio")
    boot = {n: [] for n in names}  # type: dict[str, list[float]]
    for _ in range(cfg.bootstrap):
        idx = rng.integers(0, len(rows), len(rows))
        r = _ratios(*(a[idx] for a in args))
        for n in names:
            boot[n].append(r[n])
    for n in names:
        out[f"{n}_low"], out[f"{n}_high"] = (float(q) for q in np.nanpercentile(boot[n], [2.5, 97.5]))
    out["draws_per_game"] = float(np.mean([r["draws"] for r in rows])) / 2.0
    out["playouts_per_game"] = float(np.mean([r["playouts"] for r in rows])) / 2.0
    return out


#: The fields every deck row of this study has (:func:`read_rows`' default check).
ROW_FIELDS = frozenset({"contract", "deck", "raw", "half1", "half2"})


def read_rows(path: Path, required: frozenset[str] = ROW_FIELDS) -> dict[tuple[int, int], dict[str, Any]]:
    """The deck rows already written, by (contract, deck) (a resumed run plays only the
    others); a line cut off by a stop is dropped, anything else unreadable, or a row
    without every field of ``required``, is an error."""
    done: dict[tuple[int, int], dict[str, Any]] = {}
    if not path.exists():
        return done
    lines = path.read_text(encoding="utf-8").splitlines()
    for i, line in enumerate(lines):
        try:
            row = json.loads(line)
        except json.JSONDecodeError:
            if i == len(lines) - 1:
                break  # the last line, cut off
            raise ValueError(f"{path}: line {i + 1} is not JSON") from None
        if not isinstance(row, dict) or not required <= set(row):
            raise ValueError(f"{path}: line {i + 1} is not a deck row of this study")
        done[(row["contract"], row["deck"])] = row
    return done


def drop_cut_line(path: Path) -> None:
    """Drop a last line cut off by a stop (no final newline), so the next row appended
    starts on its own line."""
    data = path.read_bytes() if path.exists() else b""
    if data and not data.endswith(b"\n"):  # read once: the rows files run to tens of MB
        path.write_bytes(data[: data.rfind(b"\n") + 1])


def _timings(path: Path, contract: int, decks: int) -> list[dict[str, Any]]:
    """The CPU timings of ``contract``'s first ``decks`` decks (the last per deck; a
    damaged line, from a stop, is skipped: timings are not results)."""
    got: dict[int, dict[str, Any]] = {}
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                t = json.loads(line)
                if t["contract"] == contract and t["deck"] < decks:
                    got[t["deck"]] = t
            except (json.JSONDecodeError, KeyError, TypeError):
                continue
    return list(got.values())


def run(cfg: PlayoutConfig) -> list[dict[str, Any]]:
    """Play every contract's decks not yet in the rows file, appending one row per deck, then
    append each contract's summary and print its table row; the summaries."""
    out = Path(cfg.out)
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{cfg.name}.jsonl"
    done = read_rows(path)
    drop_cut_line(path)
    timing = out / f"{cfg.name}-cpu.jsonl"  # CPU seconds per deck, apart: the rows stay byte for byte
    summaries = []
    for k in cfg.contracts:
        for d in range(cfg.decks):
            if (k, d) in done:
                continue
            row, cpu_played, cpu_raw = play_deck(cfg, k, d)
            with open(path, "a", encoding="utf-8") as f:
                f.write(json.dumps(row) + "\n")
            with open(timing, "a", encoding="utf-8") as f:
                f.write(json.dumps({"contract": k, "deck": d, "cpu": cpu_played, "raw_cpu": cpu_raw}) + "\n")
            done[(k, d)] = row
        summary = summarize(cfg, [done[(k, d)] for d in range(cfg.decks)])
        timed = _timings(timing, k, cfg.decks)
        summary["games_timed"] = 2 * len(timed)
        for key, name in (("cpu", "cpu_seconds_per_game"), ("raw_cpu", "raw_cpu_seconds_per_game")):
            summary[name] = sum(t[key] for t in timed) / (2 * len(timed)) if timed else None
        summaries.append(summary)
        with open(out / f"{cfg.name}-summary.jsonl", "a", encoding="utf-8") as f:
            f.write(json.dumps(summary) + "\n")
        s: dict[str, Any] = summary
        cpu = f"{summary['cpu_seconds_per_game']:.1f}" if timed else "-"
        print(f"| {k} | {s['decks']} | {s['raw_sd']:.1f} | {s['value_sd']:.1f} ({s['value_ratio']:.2f}) | "
              f"{s['perfect_sd']:.1f} ({s['perfect_ratio']:.2f} [{s['perfect_ratio_low']:.2f}, "
              f"{s['perfect_ratio_high']:.2f}]) | {s['half_sd']:.1f} ({s['half_ratio']:.2f} "
              f"[{s['half_ratio_low']:.2f}, {s['half_ratio_high']:.2f}]) | {cpu} |", flush=True)
    return summaries


HEADER = ("| contract | decks | raw SD | v3-corrected SD (ratio) | playout, perfect SD (ratio [95%]) | "
          "playout, one half SD (ratio [95%]) | CPU s per game |\n|---|---|---|---|---|---|---|")


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The ``measure playout`` options."""
    from carioca_experiments.common.argtypes import int_at_least
    from carioca_experiments.evaluation.luck.value import shipped_versions

    p.add_argument("--agents", nargs=2, required=True, metavar="SPEC")
    p.add_argument("--contracts", type=int, nargs="+", choices=range(1, 8), default=[1, 2, 6])
    p.add_argument("--decks", type=int_at_least(2), default=60)
    p.add_argument("--seed", type=int_at_least(0), default=2026)
    p.add_argument("--centring", type=int_at_least(1), default=4, metavar="M",
                   help="cards sampled from the stock to centre each draw's correction")
    p.add_argument("--rollouts", type=int_at_least(1), default=1, metavar="R",
                   help="playouts per card valued (the same seeds for every card of a draw)")
    p.add_argument("--playout-agents", choices=PLAYOUT_AGENTS, default="actual")
    p.add_argument("--value", type=int, choices=shipped_versions(), default=DEFAULT_VERSION,
                   help="the shipped value function corrected with beside the playouts")
    p.add_argument("--out", default="runs/luck-playout")
    p.add_argument("--max-turns", type=int_at_least(1), default=2000)
    p.add_argument("--bootstrap", type=int_at_least(10), default=2000)


def main(argv: Sequence[str]) -> int:
    """``python -m carioca_experiments.studies.luck.measure playout ...``: see the module docstring."""
    from carioca_experiments.cli import run_script

    p = argparse.ArgumentParser(prog="python -m carioca_experiments.studies.luck.measure playout",
                                description=__doc__.split("\n\n")[0])
    add_arguments(p)
    a = p.parse_args(argv)
    try:
        cfg = PlayoutConfig(tuple(a.agents), tuple(a.contracts), a.decks, a.seed, a.centring, a.rollouts,
                            a.playout_agents, a.value, a.out, a.max_turns, a.bootstrap)
        read_rows(Path(cfg.out) / f"{cfg.name}.jsonl")  # a damaged rows file is refused before anything runs
    except (ValueError, OSError) as exc:
        p.error(str(exc).splitlines()[0])

    def work() -> None:
        print(HEADER)
        run(cfg)

    return run_script(work)
