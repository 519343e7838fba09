"""Fitting the version-3 draw features to *playout values* (version 6 candidate), 2 players.

Usage::

    python -m carioca_experiments.studies.luck.fit6 targets --contracts 1 --decks 600 --out runs/luck-v6
    python -m carioca_experiments.studies.luck.fit5 record --players 2 --contracts 1 --decks 1200 --seed 62 \\
        --out runs/luck-v6-heldout
    python -m carioca_experiments.studies.luck.fit6 fit --contracts 1 --out runs/luck-v6 --heldout runs/luck-v6-heldout
    python -m carioca_experiments.studies.luck.fit6 export --networks runs/v6-c1 runs/v6-c2 --out value-v6.json
    python -m carioca_experiments.studies.luck.fit6 export --version 7 --networks runs/v6-c1 ... runs/v6-c7 --out value-v7.json

Versions 3 and 5 regress the draw corrections on *final deal penalties*, targets in which
every later draw and choice adds noise.  Version 6 keeps version 3's model (a draw's value
to a seat is ``basis(context, card attributes) @ w``,
:mod:`carioca_experiments.evaluation.luck.draw_features`) but fits it to what each card is worth:

``targets`` plays, on decks dealt from the fit's seed namespace (``carioca-luck-fit``, fit
seed 6, deck label ``v6-deck``: never a tournament's decks, nor any other version's), the
two duplicate lineups of heuristic against greedy
(:func:`carioca_experiments.studies.luck.fit3.fit_games`).  A share ``--rate`` of the stock
draws, chosen by a generator seeded by the deck, game and draw alone, is *valued*: for
every card type in the stock, each seat's mean final deal penalty over ``--rollouts``
playouts of the deal from the state with that card drawn
(:func:`carioca_experiments.studies.luck.playout.card_value`: the rest of the stock
reshuffled, the same seeds for every card of a draw, so differences between cards carry
little of the playouts' noise), by the seated agents (``--playout-agents actual``) or by
the heuristic in every seat.  One JSON line per deck (resumable; a stop loses at most the
deck being played): per valued draw the mover, the card types and their copies, the
version-3 context and attributes, the card values and a snapshot of the state
(:func:`snapshot`: hands, openings, layable types, pile top, turn) for fits with other
inputs; each deck's CPU seconds in a side
file, so the rows are the same bytes for the same seed.

``fit`` regresses, per contract, each card value centred on its draw's expectation (the
mean over the stock's cards, by copies) on the version-3 basis row centred the same way,
every row weighted by the card's chance of being drawn (so the fit minimises the
corrections' own error, draw by draw).  Ridge on unit-variance columns; the penalty is
chosen by the weighted error on the validation decks of
:func:`carioca_experiments.studies.luck.fit3.split` (every fifth deck held out, reported only).
With ``--heldout`` (a :mod:`carioca_experiments.studies.luck.fit5` recording on other
fit-namespace decks, none of which the targets used) it reports the issue's measure beside
the shipped version 3 on the same games: the ratio of corrected to raw standard deviation
of heuristic's minus greedy's paired difference per deck, with seeded bootstrap intervals
over decks, and the difference of the two ratios.  It writes the candidate as a version-3
value file (``value.json``: the same features and evaluation code, only the weights
differ) and ``report.json``; with ``--network`` also the network (``network-p2-c{k}.npz``).

``export`` gathers the ``network-p{n}-c{k}.npz`` files of one or more ``fit --network``
folders into one version-6 value file
(:class:`~carioca_experiments.evaluation.luck.value.DrawNetValue`; the shipped version 3 for every
model without a network).  It refuses a model found in two folders, a malformed network,
a ``report.json`` or ``value.json`` beside one that is not JSON, and an existing output
without ``--force``, all before writing; the file is written atomically.  Its meta records
per model the folder, the file's SHA-256, the fit seed and settings (``value.json``'s
meta), the target decks and the fit's report (``report.json``), and the largest change
that rounding the parameters makes in the network's outputs (:func:`rounding_deviation`).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
import sys
import time
import zipfile
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from carioca_env.moves import Move, MoveKind
from carioca_env.view import Phase
from carioca_experiments.common.seeds import LUCK_FIT, derive_seed
from carioca_experiments.evaluation.luck import draw_features as features3
from carioca_experiments.studies.luck.fit3 import (
    HELDOUT_EVERY,
    RIDGES,
    duplicate_lineups,
    fit_games,
    pair_diffs,
    split,
)
from carioca_experiments.studies.luck.playout import PLAYOUT_AGENTS, card_value, drop_cut_line, read_rows
from carioca_experiments.studies.luck.seat_features import layable_types

#: The fields of every deck row of ``targets``.
TARGET_FIELDS = frozenset({"contract", "deck", "penalty", "events"})
#: The ridge penalties tried: fit3's, and a smaller one (many more rows here).
FIT_RIDGES = (0.1,) + tuple(RIDGES)
#: The per-game arrays of a fit5 recording that the paired ratios need.
GAME_ARRAYS = ("penalty", "v3", "sums", "deck", "game", "agent", "seatings")
#: Decimals kept of a feature in the rows (they are sums of small fractions).
_DECIMALS = 6


@dataclass(frozen=True)
class Fit6Config:
    """What ``targets`` plays and ``fit`` fits.

    Attributes:
        what: ``targets`` or ``fit``.
        contracts: contracts.
        decks: decks per contract (``first_deck`` to ``first_deck + decks - 1``).
        first_deck: the first deck's index.
        seed: the fit seed (in the ``carioca-luck-fit`` namespace).
        rollouts: playouts per card valued (the same seeds for every card of a draw).
        rate: the share of stock draws valued.
        playout_agents: ``actual`` (the seated agents) or ``heuristic`` (every seat).
        max_turns: completed turns after which a deal or a playout is cut (each seat scores its hand).
        out: folder of the rows, ``value.json`` and ``report.json``.
        heldout: a folder of fit5 recordings (``events-p2-c{k}.npz``) to measure on, or ``""``.
        bootstrap: resamples of the held-out decks for each ratio's 95% interval.
        network: also fit a network on the same targets (beside the linear model: measured,
            and saved apart as ``network-p2-c{k}.npz``, not in ``value.json``).
        ridges: the ridge penalties validation chooses from.
    """

    what: str
    contracts: tuple[int, ...] = (1,)
    decks: int = 600
    first_deck: int = 0
    seed: int = 6
    rollouts: int = 2
    rate: float = 0.15
    playout_agents: str = "actual"
    max_turns: int = 600
    out: str = "runs/luck-v6"
    heldout: str = ""
    bootstrap: int = 2000
    network: bool = False
    ridges: tuple[float, ...] = field(default=FIT_RIDGES)

    #: seats per table (the targets are 2-player duplicate pairs)
    players = 2

    def __post_init__(self) -> None:
        if self.what not in ("targets", "fit"):
            raise ValueError(f"what: expected targets or fit, got {self.what!r}")
        if not self.contracts or any(k not in range(1, 8) for k in self.contracts):
            raise ValueError(f"contracts: expected contracts 1-7, got {list(self.contracts)}")
        for name, lo in (("decks", HELDOUT_EVERY), ("first_deck", 0), ("seed", 0), ("rollouts", 1),
                         ("max_turns", 1), ("bootstrap", 10)):
            if getattr(self, name) < lo:
                raise ValueError(f"{name}: expected at least {lo}, got {getattr(self, name)}")
        if not 0.0 < self.rate <= 1.0:
            raise ValueError(f"rate: expected a share in (0, 1], got {self.rate}")
        if self.playout_agents not in PLAYOUT_AGENTS:
            raise ValueError(f"playout_agents: expected one of {PLAYOUT_AGENTS}, got {self.playout_agents!r}")
        if not self.ridges or any(r <= 0 for r in self.ridges):
            raise ValueError(f"ridges: expected positive penalties, got {list(self.ridges)}")

    @property
    def name(self) -> str:
        """The rows' file name stem: everything the deck rows depend on but the contract and deck."""
        return f"targets-s{self.seed}-r{self.rollouts}-q{self.rate:g}-{self.playout_agents}-t{self.max_turns}"


def _rounded(a: np.ndarray) -> list[Any]:
    return np.round(np.asarray(a, dtype=np.float64), _DECIMALS).tolist()


def snapshot(game: Any) -> dict[str, Any]:
    """What a later fit may want beyond version 3's features, from the state before a stock
    draw: every seat's hand (card types, with repeats), which seats have opened, the types
    that can be laid off on the table, the pile's top card (-1 when empty) and the turn.
    Every part is public or the seat's own, as the value function's full-state input is."""
    return {"hands": [[int(t) for t in game.hand(s)] for s in range(game.num_players)], "opened": [int(bool(o)) for o in game.opened],
            "lay": [int(t) for t in np.flatnonzero(layable_types(game))],
            "top": int(game.top_discard), "turn": int(game.turn)}


class TargetObserver:
    """A deal observer (:func:`carioca_experiments.studies.luck.measure.play_deal`) that values a
    share of the stock draws by playouts: ``events`` gets, per valued draw, the draw's
    features and every card type's value to each seat (module docstring).

    Whether draw ``i`` is valued, and its playout seeds, come from a generator seeded by
    ``(parts, i)`` alone, never by the game's cards.
    """

    def __init__(self, specs: Sequence[str], parts: Sequence[Any], rate: float, rollouts: int,
                 max_turns: int) -> None:
        self.specs = list(specs)
        self.parts = tuple(parts)
        self.rate = rate
        self.rollouts = rollouts
        self.max_turns = max_turns
        self.draws = 0
        self.playouts = 0
        self.events: list[dict[str, Any]] = []

    def before(self, game: Any, move: Move, choice: Any = None) -> None:
        """Value the stock draw ``move`` is, if it is one and its generator says so (``choice`` is ignored)."""
        if not (move.kind is MoveKind.DRAW_STOCK and game.phase is Phase.DRAW and game.stock):
            return
        rng = random.Random(derive_seed(LUCK_FIT, *self.parts, self.draws))
        self.draws += 1
        if rng.random() >= self.rate:
            return
        seeds = [rng.getrandbits(63) for _ in range(self.rollouts)]
        cards, counts, ctx, attrs = features3.draw_features(game)
        values = np.stack([card_value(game, int(c), seeds, self.specs, self.max_turns) for c in cards])
        self.playouts += len(cards) * len(seeds)
        self.events.append({"draw": self.draws - 1, "mover": int(game.current), "cards": cards.tolist(),
                            "counts": [int(c) for c in counts], "ctx": _rounded(ctx), "attrs": _rounded(attrs),
                            "values": values.tolist(), **snapshot(game)})

    def after(self, game: Any) -> None:
        """Nothing: the values are taken before the draw."""


def play_deck(cfg: Fit6Config, contract: int, deck: int) -> tuple[dict[str, Any], int]:
    """One deck's duplicate lineups of heuristic against greedy, with a share of their
    stock draws valued: ``(row, playouts played)``."""
    from carioca_agents.registry import make_agent
    from carioca_env import Game, GameConfig
    from carioca_experiments.studies.luck.measure import play_deal

    penalties, events, playouts = [], [], 0
    for fg in fit_games(cfg.seed, "v6", cfg.players, contract, [deck]):
        if not 0 < fg.specs.count("heuristic") < cfg.players:
            continue  # heuristic alone or greedy alone: not a duplicate lineup
        game = Game.from_deck(fg.deck, fg.dealer, GameConfig(num_players=cfg.players, deals=(contract,)), fg.game_seed)
        agents = [make_agent(sp, sd) for sp, sd in zip(fg.specs, fg.seeds)]
        for agent, sd in zip(agents, fg.seeds):
            agent.reset(sd)
        specs = fg.specs if cfg.playout_agents == "actual" else ("heuristic",) * cfg.players
        obs = TargetObserver(specs, (cfg.seed, "v6-draw", cfg.playout_agents, contract, deck, fg.game),
                             cfg.rate, cfg.rollouts, cfg.max_turns)
        penalties.append(play_deal(game, agents, cfg.max_turns, [obs]))
        events += [dict(e, game=fg.game, agents=fg.agents) for e in obs.events]
        playouts += obs.playouts
    return {"contract": contract, "deck": deck, "penalty": penalties, "events": events}, playouts


def targets_path(cfg: Fit6Config) -> Path:
    """The rows file of ``cfg``'s targets (every contract's decks)."""
    return Path(cfg.out) / f"{cfg.name}.jsonl"


def _log(message: str) -> None:
    print(message, flush=True)


def targets(cfg: Fit6Config, log: Any = _log) -> int:
    """Play every deck of ``cfg`` not yet in the rows file, appending one row per deck (and
    its CPU seconds and playouts to the side file); the number of decks played."""
    out = Path(cfg.out)
    out.mkdir(parents=True, exist_ok=True)
    path = targets_path(cfg)
    done = read_rows(path, TARGET_FIELDS)
    drop_cut_line(path)
    played = 0
    for k in cfg.contracts:
        t_contract = time.process_time()
        for d in range(cfg.first_deck, cfg.first_deck + cfg.decks):
            if (k, d) in done:
                continue
            t0 = time.process_time()
            row, playouts = play_deck(cfg, k, d)
            with open(path, "a", encoding="utf-8") as f:
                f.write(json.dumps(row) + "\n")
            with open(out / f"{cfg.name}-cpu.jsonl", "a", encoding="utf-8") as f:
                f.write(json.dumps({"contract": k, "deck": d, "cpu": time.process_time() - t0,
                                    "events": len(row["events"]), "playouts": playouts}) + "\n")
            played += 1
            if played % 20 == 0:
                log(f"[luck-fit6] c{k}: deck {d} ({played} played, {time.process_time() - t_contract:.0f} s CPU)")
    return played


class NormalEquations:
    """The weighted least-squares sums of centred card values on centred basis rows:
    ``gram = sum p x x'``, ``cross = sum p x y``, ``yy = sum p y^2``, ``weight = sum p``
    (one unit of weight per valued draw and seat)."""

    def __init__(self, width: int) -> None:
        self.gram = np.zeros((width, width))
        self.cross = np.zeros(width)
        self.yy = 0.0
        self.weight = 0.0
        self.events = 0

    def add(self, event: dict[str, Any]) -> None:
        """Add one valued draw (a row's event)."""
        x, y, p = centred_event(event)
        xw = x * p[:, None, None]
        self.gram += np.einsum("ksi,ksj->ij", xw, x)
        self.cross += np.einsum("ksi,ks->i", xw, y)
        self.yy += float(np.einsum("k,ks->", p, y * y))
        self.weight += float(p.sum()) * y.shape[1]
        self.events += 1

    def error(self, w: np.ndarray) -> float:
        """The weighted mean squared error of ``x @ w`` as a prediction of ``y``."""
        return (self.yy - 2.0 * float(w @ self.cross) + float(w @ self.gram @ w)) / self.weight

    def r2(self, w: np.ndarray) -> float:
        """The share of the centred card values' weighted variance that ``x @ w`` explains."""
        return 1.0 - self.error(w) / (self.yy / self.weight)

    def solve(self, lam: float) -> np.ndarray:
        """Ridge weights, penalty ``lam`` on unit-variance columns (a column that never
        varies gets weight 0)."""
        sd = np.sqrt(np.maximum(np.diag(self.gram), 0.0) / self.weight)
        live = sd > 1e-9
        g = self.gram[np.ix_(live, live)] / np.outer(sd[live], sd[live])
        b = np.linalg.solve(g + lam * np.eye(int(live.sum())), self.cross[live] / sd[live])
        w = np.zeros(len(sd))
        w[live] = b / sd[live]
        return w


def centred_event(event: dict[str, Any]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(x [K, n, W], y [K, n], p [K])`` of one valued draw: each card's basis row and value
    per seat minus their expectation over the draw (``p``: each card's chance, its copies
    over the stock's size)."""
    ctx = np.asarray(event["ctx"], dtype=np.float64)
    attrs = np.asarray(event["attrs"], dtype=np.float64)
    p = np.asarray(event["counts"], dtype=np.float64)
    p /= p.sum()
    x = features3.basis(int(event["mover"]), ctx, attrs)
    y = np.asarray(event["values"], dtype=np.float64)
    return x - np.tensordot(p, x, axes=1), y - p @ y, p


def normal_equations(rows: Sequence[dict[str, Any]]) -> dict[str, NormalEquations]:
    """The sums of every split of :func:`carioca_experiments.studies.luck.fit3.split` (by deck)."""
    width = 2 * len(features3.CONTEXT) * len(features3.ATTRS)
    decks = np.array(sorted({r["deck"] for r in rows}))
    which = {int(d): name for name, ds in split(decks).items() for d in ds}
    sums = {name: NormalEquations(width) for name in ("train", "validation", "heldout")}
    for r in rows:
        for e in r["events"]:
            sums[which[r["deck"]]].add(e)
    return sums


#: The network candidate: fit5's hidden widths; training's most epochs, patience (epochs
#: without a lower validation error), draws per step, learning rate, weight decay, seed.
NET_EPOCHS, NET_PATIENCE, NET_BATCH, NET_RATE, NET_DECAY, NET_SEED = 80, 8, 256, 2e-3, 1e-4, 6


def network_rows(rows: Sequence[dict[str, Any]]) -> dict[str, np.ndarray]:
    """The valued draws as a network's inputs, card rows of each draw contiguous: ``x [R,
    n, C + n + A]`` (a seat's context, its position after the mover one-hot, the card's
    attributes for it: :func:`carioca_experiments.studies.luck.fit5.inputs`' layout), the
    centred values ``y [R, n]``, each card's chance ``p [R]``, its draw ``event [R]`` and
    each draw's deck ``deck [E]``."""
    xs: list[np.ndarray] = []
    ys: list[np.ndarray] = []
    ps: list[np.ndarray] = []
    evs: list[np.ndarray] = []
    decks: list[int] = []
    for r in rows:
        for e in r["events"]:
            ctx = np.asarray(e["ctx"], dtype=np.float32)
            attrs = np.asarray(e["attrs"], dtype=np.float32)
            n, k = ctx.shape[0], attrs.shape[0]
            onehot = np.eye(n, dtype=np.float32)[(np.arange(n) - int(e["mover"])) % n]
            seat = np.concatenate([ctx, onehot], axis=-1)
            xs.append(np.concatenate([np.broadcast_to(seat, (k,) + seat.shape), attrs], axis=-1))
            _, y, p = centred_event(e)
            ys.append(y.astype(np.float32))
            ps.append(p.astype(np.float32))
            evs.append(np.full(k, len(decks)))
            decks.append(r["deck"])
    return {"x": np.concatenate(xs), "y": np.concatenate(ys), "p": np.concatenate(ps), "event": np.concatenate(evs),
            "deck": np.array(decks)}


def train_network(arr: dict[str, np.ndarray], log: Any = print) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """A network ``g(x) -> a card's value to a seat`` (fit5's shape, read by
    :func:`carioca_experiments.evaluation.luck.value.mlp_forward`) fitted like the linear model:
    each draw's ``g`` centred on its expectation, the chance-weighted squared error to the
    centred values, on the training decks; the epoch kept is the one with the lowest
    weighted error on the validation decks.  ``(parameters, report)``."""
    import torch

    from carioca_experiments.studies.luck.fit5 import HIDDEN

    torch.set_num_threads(1)
    gen = torch.Generator().manual_seed(NET_SEED)
    sp = split(np.unique(arr["deck"]))
    x, y, p, event = arr["x"], arr["y"], arr["p"], arr["event"]
    n = y.shape[1]
    c = x.shape[-1] - len(features3.ATTRS)  # context and position columns
    in_train = np.isin(arr["deck"], sp["train"])[event]
    flat = x[in_train].reshape(-1, x.shape[-1]).astype(np.float64)
    mu, sd = flat.mean(axis=0), flat.std(axis=0)
    mu[c - n:c], sd[c - n:c] = 0.0, 1.0  # the position one-hot as it is
    sd[sd < 1e-6] = 1.0
    y_scale = float(np.sqrt(np.average((y[in_train] ** 2).mean(axis=1), weights=p[in_train]))) or 1.0
    xt = torch.tensor((x - mu) / sd, dtype=torch.float32)
    yt, pt = torch.tensor(y), torch.tensor(p)

    def init(*shape: int) -> Any:
        return (torch.randn(*shape, generator=gen) * (2.0 / shape[0]) ** 0.5).requires_grad_()

    h1, h2 = HIDDEN
    params = {"w1": init(x.shape[-1], h1), "b1": torch.zeros(h1, requires_grad=True), "w2": init(h1, h2),
              "b2": torch.zeros(h2, requires_grad=True), "w3": (torch.randn(h2, generator=gen) * 0.01).requires_grad_()}
    start = np.searchsorted(event, np.arange(len(arr["deck"]) + 1))

    def error(events: np.ndarray) -> Any:
        """The weighted squared error of the centred network over ``events`` (contiguous rows per draw)."""
        rws = torch.tensor(np.concatenate([np.arange(start[e], start[e + 1]) for e in events]))
        hdn = torch.relu(xt[rws] @ params["w1"] + params["b1"])
        g = (torch.relu(hdn @ params["w2"] + params["b2"]) @ params["w3"]) * y_scale  # [rows, n]
        local = torch.tensor(np.searchsorted(events, event[rws.numpy()]))
        w = pt[rws][:, None]
        mean = torch.zeros((len(events), n)).index_add(0, local, w * g)
        resid = g - mean[local] - yt[rws]
        return (w * resid ** 2).sum() / (len(events) * n)

    def events_of(decks: np.ndarray) -> np.ndarray:
        return np.flatnonzero(np.isin(arr["deck"], decks))

    train_ev, val_ev = events_of(sp["train"]), events_of(sp["validation"])
    opt = torch.optim.Adam(list(params.values()), lr=NET_RATE, weight_decay=NET_DECAY)
    rng = np.random.default_rng(NET_SEED)
    best = (float("inf"), -1, {k: v.detach().clone() for k, v in params.items()})
    history = []
    for epoch in range(NET_EPOCHS):
        order = rng.permutation(train_ev)
        for b in range(0, len(order), NET_BATCH):
            loss = error(np.sort(order[b:b + NET_BATCH]))
            opt.zero_grad()
            loss.backward()
            opt.step()
        with torch.no_grad():
            val = float(error(val_ev))
        history.append(round(val, 2))
        log(f"[luck-fit6]   network epoch {epoch}: validation error {val:.2f}")
        if val < best[0]:
            best = (val, epoch, {k: v.detach().clone() for k, v in params.items()})
        elif epoch - best[1] >= NET_PATIENCE:
            break
    q = {k: v.numpy().astype(np.float64) for k, v in best[2].items()}
    out = {"mu": mu, "sd": sd, **q, "b3": np.array(0.0), "y_scale": np.array(y_scale), "y_shift": np.array(0.0)}
    return out, {"epoch": best[1], "validation_error": history}


def network_r2(params: dict[str, np.ndarray], arr: dict[str, np.ndarray], decks: np.ndarray) -> float:
    """The share of the centred card values' weighted variance on ``decks`` that the
    network's centred values explain (as :meth:`NormalEquations.r2` for the linear model)."""
    from carioca_experiments.evaluation.luck.value import mlp_forward

    keep = np.isin(arr["deck"], decks)[arr["event"]]
    ev, p, y = arr["event"][keep], arr["p"][keep].astype(np.float64), arr["y"][keep].astype(np.float64)
    g = mlp_forward(params, arr["x"][keep].astype(np.float64))
    _, local = np.unique(ev, return_inverse=True)
    mean = np.zeros((local.max() + 1, g.shape[1]))
    np.add.at(mean, local, p[:, None] * g)
    resid = g - mean[local] - y
    return 1.0 - float(np.sum(p[:, None] * resid ** 2)) / float(np.sum(p[:, None] * y ** 2))


def _sd_ratio(diffs: np.ndarray, raw: np.ndarray) -> float:
    """The corrected over the raw standard deviation; nan when the raw one is 0 (a
    bootstrap resample of very few decks), which the intervals leave out."""
    sd = float(np.std(raw, ddof=1))
    return float(np.std(diffs, ddof=1)) / sd if sd > 0 else float("nan")


def heldout_ratios(data: dict[str, np.ndarray], corrections: dict[str, np.ndarray], boot: int,
                   seed: int, decks: np.ndarray | None = None) -> dict[str, Any]:
    """The paired ratio of each correction (``[games, seats]``) on ``decks`` of a fit5
    recording (all of them by default), with 95% bootstrap intervals over decks, and each
    one's difference to ``v3``'s on the same resamples."""
    decks = np.unique(data["deck"]) if decks is None else decks
    raw = pair_diffs(data, decks, np.zeros_like(data["penalty"]))
    diffs = {k: pair_diffs(data, decks, c) for k, c in corrections.items()}
    out: dict[str, Any] = {"decks": int(len(decks)), "raw_sd": float(np.std(raw, ddof=1)),
                           "raw_mean": float(raw.mean())}
    rng = np.random.default_rng(derive_seed(LUCK_FIT, seed, "v6-bootstrap", len(decks)))
    samples = {k: [] for k in diffs}  # type: dict[str, list[float]]
    gaps = {k: [] for k in diffs}  # type: dict[str, list[float]]
    for _ in range(boot):
        idx = rng.integers(0, len(decks), len(decks))
        r = {k: _sd_ratio(v[idx], raw[idx]) for k, v in diffs.items()}
        for k in diffs:
            samples[k].append(r[k])
            gaps[k].append(r[k] - r.get("v3", float("nan")))
    for k, v in diffs.items():
        lo, hi = np.nanpercentile(samples[k], [2.5, 97.5])
        out[k] = {"ratio": round(_sd_ratio(v, raw), 3), "low": round(float(lo), 3), "high": round(float(hi), 3),
                  "mean": round(float(v.mean()), 2)}
        if k != "v3" and "v3" in diffs:
            glo, ghi = np.nanpercentile(gaps[k], [2.5, 97.5])
            out[k]["minus_v3"] = round(_sd_ratio(v, raw) - _sd_ratio(diffs["v3"], raw), 3)
            out[k]["minus_v3_low"], out[k]["minus_v3_high"] = round(float(glo), 3), round(float(ghi), 3)
    return out


def refit_beside(data: dict[str, np.ndarray], corrections: dict[str, np.ndarray], cfg: Fit6Config) -> dict[str, Any]:
    """Version 3's linear family refitted on the held-out recording's own final penalties
    (fit3's :func:`~carioca_experiments.studies.luck.fit3.choose_fit` on its training and
    validation decks), and every correction's paired ratio on its held-out decks: what
    the same features reach from final penalties on that many decks, beside the playout fit."""
    from carioca_experiments.studies.luck.fit3 import choose_fit

    sp = split(np.unique(data["deck"]))
    raw_val = float(pair_diffs(data, sp["validation"], np.zeros_like(data["penalty"])).std(ddof=1))
    _, objective, lam, w, _ = choose_fit(data, data["sums"], sp, raw_val)
    corr = dict(corrections, **{"v3-refit": data["sums"].astype(np.float64) @ w})
    out = heldout_ratios(data, corr, cfg.bootstrap, cfg.seed, sp["heldout"])
    out.update({"objective": objective, "ridge": lam, "train_decks": int(len(sp["train"]))})
    return out


def fit_contract(cfg: Fit6Config, contract: int, rows: Sequence[dict[str, Any]],
                 log: Any = print) -> tuple[np.ndarray, dict[str, Any], dict[str, np.ndarray] | None]:
    """The weights ``[2, len(CONTEXT), len(ATTRS)]`` fitted on one contract's rows (rounded as
    :class:`~carioca_experiments.evaluation.luck.value.DrawValue` rounds them), and the
    report: the ridge chosen, the weighted R^2 of the card values on each split (also the
    shipped version 3's, where it has draw weights), and with ``cfg.heldout`` the paired
    ratios there; and the network's parameters with ``cfg.network`` (else ``None``)."""
    from carioca_experiments.evaluation.luck.value import DRAW_DECIMALS, SHIPPED_BY_VERSION, load_value
    from carioca_experiments.studies.luck.fit5 import events_path, network_corrections

    sums = normal_equations(rows)
    tried = {lam: sums["train"].solve(lam) for lam in cfg.ridges}
    lam = min(tried, key=lambda r: sums["validation"].error(tried[r]))
    # rounded as the value file rounds them: every figure reported is the saved weights'
    w = np.round(tried[lam], DRAW_DECIMALS)
    report: dict[str, Any] = {
        "decks": len(rows), "events": {k: s.events for k, s in sums.items()}, "ridge": lam,
        "r2_by_ridge_validation": {str(r): round(sums["validation"].r2(v), 4) for r, v in tried.items()},
        "r2": {k: round(s.r2(w), 4) for k, s in sums.items()},
    }
    v3 = load_value(SHIPPED_BY_VERSION[3]).model(cfg.players, contract)
    if isinstance(v3, np.ndarray):
        report["v3_r2"] = {k: round(s.r2(v3.ravel()), 4) for k, s in sums.items()}
    net = None
    if cfg.network:
        arr = network_rows(rows)
        net, report["network"] = train_network(arr, log)
        report["network"]["r2"] = {k: round(network_r2(net, arr, d), 4)
                                   for k, d in split(np.unique(arr["deck"])).items()}
    if cfg.heldout:
        path = events_path(cfg.heldout, cfg.players, contract)
        if path.exists():
            with np.load(path) as z:  # the game arrays only, unless a network needs the events' card rows
                data = {k: z[k] for k in z.files if net is not None or k in GAME_ARRAYS}
            corr = {"v3": data["v3"], "v6": data["sums"].astype(np.float64) @ w}
            if net is not None:
                corr["v6-network"] = network_corrections(net, data)
            report["heldout"] = heldout_ratios(data, corr, cfg.bootstrap, cfg.seed)
            report["heldout"]["recording"] = str(path)
            report["heldout"]["lineups"] = duplicate_lineups(data)
            report["refit"] = refit_beside(data, corr, cfg)
        else:
            log(f"[luck-fit6] {path} missing: no paired ratios for contract {contract}")
    return w.reshape(cfg.players, len(features3.CONTEXT), len(features3.ATTRS)), report, net


def fit(cfg: Fit6Config, log: Any = print) -> dict[str, Any]:
    """Fit every contract with rows; write ``value.json`` (a version-3 file of the fitted
    weights) and ``report.json``; the reports."""
    from carioca_experiments.evaluation.luck.value import DrawValue, model_key

    rows = read_rows(targets_path(cfg), TARGET_FIELDS)
    models: dict[str, np.ndarray] = {}
    reports: dict[str, Any] = {}
    for k in cfg.contracts:
        mine = [rows[key] for key in sorted(rows) if key[0] == k]
        if len(mine) < HELDOUT_EVERY:
            log(f"[luck-fit6] contract {k}: {len(mine)} decks of targets, not fitted")
            continue
        w, report, net = fit_contract(cfg, k, mine, log)
        if net is not None:
            arrays: dict[str, Any] = dict(net)
            np.savez(Path(cfg.out) / f"network-{model_key(cfg.players, k)}.npz", **arrays)
        models[model_key(cfg.players, k)] = w
        reports[model_key(cfg.players, k)] = report
        log(f"[luck-fit6] c{k}: {json.dumps(report)}")
    if not models:
        raise ValueError(f"no contract of {list(cfg.contracts)} has targets in {targets_path(cfg)}")
    meta = {"fit6": {k: v for k, v in asdict(cfg).items() if k not in ("what", "out", "heldout", "bootstrap", "network")},
            "seed_namespace": LUCK_FIT, "deck_label": "v6-deck", "features": features3.FEATURE_VERSION,
            "targets": "playout card values (fit6 targets)", "fit_report": reports}
    value = DrawValue(models, meta)
    out = Path(cfg.out)
    value.save(out / "value.json")
    (out / "report.json").write_text(json.dumps(reports, indent=1) + "\n", encoding="utf-8")
    log(f"[luck-fit6] wrote {out / 'value.json'} ({value.fingerprint})")
    return reports


#: A network file of ``fit --network``: ``network-p{players}-c{contract}.npz``.
NETWORK_FILE = re.compile(r"network-(p[234]-c[1-7])\.npz")
#: Inputs drawn (around each network's input means, seeded) to measure what rounding its
#: parameters changes in its outputs, and their seed.
ROUNDING_PROBES, ROUNDING_SEED = 4096, 6


@dataclass(frozen=True)
class ExportConfig:
    """What ``export`` gathers and writes.

    Attributes:
        networks: folders of ``fit --network`` outputs (``network-p2-c{k}.npz``, with the
            fit's ``report.json`` and ``value.json`` beside them when they are there).
        out: the value file to write.
        force: replace ``out`` if it exists.
        version: the version number it ships under (one of
            :data:`~carioca_experiments.evaluation.luck.value.DRAW_NET_VERSIONS`: 6, or 7 for the file
            that added contracts 3 and 7).
    """

    networks: tuple[str, ...]
    out: str
    force: bool = False
    version: int = 6

    def __post_init__(self) -> None:
        from carioca_experiments.evaluation.luck.value import DRAW_NET_VERSIONS

        if self.version not in DRAW_NET_VERSIONS:
            raise ValueError(f"--version: expected one of {', '.join(map(str, DRAW_NET_VERSIONS))}, got {self.version}")
        if not self.networks:
            raise ValueError("networks: expected at least one folder")
        if not self.out:
            raise ValueError("out: expected the value file to write")


def rounding_deviation(params: dict[str, np.ndarray]) -> float:
    """The largest change rounding ``params`` to the value file's decimals makes in the
    network's output, over the output's standard deviation, on :data:`ROUNDING_PROBES`
    seeded inputs drawn around the network's input means (``mu + sd * normal``)."""
    from carioca_experiments.evaluation.luck.value import NET_DECIMALS, mlp_forward

    raw = {k: np.asarray(v, dtype=np.float64) for k, v in params.items()}
    rng = np.random.default_rng(ROUNDING_SEED)
    x = raw["mu"] + raw["sd"] * rng.standard_normal((ROUNDING_PROBES, len(raw["mu"])))
    y = mlp_forward(raw, x)
    y_rounded = mlp_forward({k: np.round(v, NET_DECIMALS) for k, v in raw.items()}, x)
    return float(np.max(np.abs(y_rounded - y)) / max(float(np.std(y)), 1e-12))


def _json_beside(folder: Path, name: str) -> dict[str, Any]:
    """``folder/name`` parsed, ``{}`` when absent.

    Raises:
        ValueError: it is there but not a JSON object.
    """
    path = folder / name
    if not path.exists():
        return {}
    try:
        d = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ValueError(f"{path} cannot be read as JSON: {str(exc).splitlines()[0]}") from None
    if not isinstance(d, dict):
        raise ValueError(f"{path} is not a JSON object")
    return d


def read_network(path: Path) -> dict[str, np.ndarray]:
    """The arrays of one network file, checked as a version-6 model
    (:func:`carioca_experiments.evaluation.luck.value.checked_network`), unrounded.

    Raises:
        ValueError: unreadable, not an npz, or not a version-6 network (the message names the file).
    """
    from carioca_experiments.evaluation.luck.value import checked_network

    try:
        with np.load(path, allow_pickle=False) as z:
            arrays = {k: np.asarray(z[k], dtype=np.float64) for k in z.files}
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as exc:
        raise ValueError(f"{path} is not a readable npz file: {str(exc).splitlines()[0] if str(exc) else exc!r}") from None
    m = NETWORK_FILE.fullmatch(path.name)
    checked_network(m.group(1) if m else path.stem, arrays, str(path))  # raises ValueFileError (a ValueError)
    return arrays


def gather_networks(cfg: ExportConfig) -> tuple[dict[str, dict[str, np.ndarray]], dict[str, Any]]:
    """Every network of ``cfg.networks``' folders, checked, and where each came from:
    ``(model key -> parameters, meta)``.

    Raises:
        ValueError: a folder that is not one or holds no network, a model found in two
            folders, a malformed network file, or a ``report.json`` / ``value.json`` beside
            it that is not JSON.
    """
    from carioca_experiments.evaluation.luck.value import NET_DECIMALS

    models: dict[str, dict[str, np.ndarray]] = {}
    sources: dict[str, dict[str, Any]] = {}
    for name in cfg.networks:
        folder = Path(name)
        if not folder.is_dir():
            raise ValueError(f"--networks: {folder} is not a folder")
        files = sorted(f for f in folder.iterdir() if NETWORK_FILE.fullmatch(f.name))
        if not files:
            raise ValueError(f"--networks: {folder} holds no network-p{{n}}-c{{k}}.npz")
        report = _json_beside(folder, "report.json")
        fit_meta = _json_beside(folder, "value.json").get("meta", {})
        fit_cfg = fit_meta.get("fit6", {}) if isinstance(fit_meta, dict) else {}
        for f in files:
            key = NETWORK_FILE.fullmatch(f.name).group(1)  # type: ignore[union-attr]  # filtered above
            if key in models:
                raise ValueError(f"--networks: model {key} is in both {sources[key]['folder']} and {folder}")
            models[key] = read_network(f)
            fit_report = report.get(key)
            sources[key] = {
                "folder": str(folder), "file": f.name,
                "sha256": hashlib.sha256(f.read_bytes()).hexdigest(),
                "fit_seed": fit_cfg.get("seed") if isinstance(fit_cfg, dict) else None,
                "fit6": fit_cfg if isinstance(fit_cfg, dict) else None,
                "target_decks": fit_report.get("decks") if isinstance(fit_report, dict) else None,
                "fit_report": fit_report,
                "rounding": {"decimals": NET_DECIMALS,
                             "max_deviation_over_output_sd": rounding_deviation(models[key])},
            }
    meta = {"exported_by": "python -m carioca_experiments.studies.luck.fit6 export",
            "targets": "playout card values (fit6 targets)", "seed_namespace": LUCK_FIT, "deck_label": "v6-deck",
            "features": features3.FEATURE_VERSION, "fallback": "the shipped version 3 for every other model",
            "models": dict(sorted(sources.items()))}
    return models, meta


def build_export(cfg: ExportConfig) -> Any:
    """The version-6 value function of ``cfg``'s networks, every input checked and nothing
    written (:class:`~carioca_experiments.evaluation.luck.value.DrawNetValue`).

    Raises:
        ValueError: ``cfg.out`` exists without ``cfg.force`` or cannot be written, or
            :func:`gather_networks` refuses an input.
        OSError: ``cfg.out`` cannot be written.
    """
    from carioca_experiments.common.argtypes import check_output_path
    from carioca_experiments.evaluation.luck.value import DrawNetValue

    out = Path(cfg.out)
    if out.exists() and not cfg.force:
        raise ValueError(f"--out: {out} exists (give --force to replace it)")
    check_output_path(out, "--out")
    models, meta = gather_networks(cfg)
    return DrawNetValue(models, meta, cfg.version)


def export(cfg: ExportConfig, log: Any = _log) -> Any:
    """Gather ``cfg``'s networks into one version-6 value file, written atomically once
    every input is checked; the value function written.

    Raises:
        ValueError, OSError: as :func:`build_export`; nothing is written then.
    """
    value = build_export(cfg)
    write_export(cfg, value, log)
    return value


def write_export(cfg: ExportConfig, value: Any, log: Any = _log) -> None:
    """Write ``value`` (:func:`build_export`'s) to ``cfg.out`` atomically and say where each model came from."""
    value.save(cfg.out)
    for key, src in value.meta["models"].items():
        log(f"[luck-fit6] {key}: {src['folder']}/{src['file']} (rounding changes outputs by at most "
            f"{src['rounding']['max_deviation_over_output_sd']:.1e} of their sd)")
    log(f"[luck-fit6] wrote {cfg.out} ({value.fingerprint}, models {', '.join(value.models)}; "
        f"the others fall back to {value.base.fingerprint})")


def _share(text: str) -> float:
    try:
        q = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not 0.0 < q <= 1.0:
        raise argparse.ArgumentTypeError(f"expected a share in (0, 1], got {q}")
    return q


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m carioca_experiments.studies.luck.fit6``: see the module docstring."""
    from carioca_experiments.cli import run_script
    from carioca_experiments.common.argtypes import int_at_least

    p = argparse.ArgumentParser(prog="python -m carioca_experiments.studies.luck.fit6", description=__doc__.split("\n\n")[0])
    p.add_argument("what", choices=("targets", "fit", "export"))
    p.add_argument("--contracts", type=int, nargs="+", choices=range(1, 8), default=[1])
    p.add_argument("--decks", type=int_at_least(HELDOUT_EVERY), default=600)
    p.add_argument("--first-deck", type=int_at_least(0), default=0)
    p.add_argument("--seed", type=int_at_least(0), default=6)
    p.add_argument("--rollouts", type=int_at_least(1), default=2, metavar="R",
                   help="playouts per card valued (the same seeds for every card of a draw)")
    p.add_argument("--rate", type=_share, default=0.15, help="the share of stock draws valued")
    p.add_argument("--playout-agents", choices=PLAYOUT_AGENTS, default="actual")
    p.add_argument("--max-turns", type=int_at_least(1), default=600)
    p.add_argument("--out", default=None,
                   help="targets, fit: the folder (default runs/luck-v6); export: the value file to write")
    p.add_argument("--heldout", default="", help="a folder of fit5 recordings (events-p2-c{k}.npz) to measure on")
    p.add_argument("--bootstrap", type=int_at_least(10), default=2000)
    p.add_argument("--network", action="store_true",
                   help="fit: also a network on the same targets (measured beside the linear model, saved apart)")
    p.add_argument("--networks", nargs="+", default=[], metavar="DIR",
                   help="export: folders of fit --network outputs (network-p2-c{k}.npz, report.json)")
    p.add_argument("--force", action="store_true", help="export: replace the value file if it exists")
    p.add_argument("--version", type=int, default=None,
                   help="export: the version number the file ships under (6 or 7; default 6)")
    a = p.parse_args(argv)
    try:
        if a.what == "export":
            if a.out is None:
                raise ValueError("--out: export needs the value file to write")
            if not a.networks:
                raise ValueError("--networks: export needs at least one folder")
            ecfg = ExportConfig(tuple(a.networks), a.out, a.force, 6 if a.version is None else a.version)
            value = build_export(ecfg)  # every input checked before anything is written
            return run_script(lambda: write_export(ecfg, value))
        if a.networks or a.force or a.version is not None:
            raise ValueError("--networks, --force and --version are export's options")
        cfg = Fit6Config(a.what, tuple(a.contracts), a.decks, a.first_deck, a.seed, a.rollouts, a.rate,
                         a.playout_agents, a.max_turns, a.out or "runs/luck-v6", a.heldout, a.bootstrap, a.network)
        if cfg.heldout and not Path(cfg.heldout).is_dir():
            raise ValueError(f"--heldout: {cfg.heldout} is not a folder")
        rows = read_rows(targets_path(cfg), TARGET_FIELDS)  # a damaged rows file is refused before anything runs
        if cfg.what == "fit" and not any(k in cfg.contracts for k, _ in rows):
            raise ValueError(f"no targets of contracts {list(cfg.contracts)} in {targets_path(cfg)}")
    except (ValueError, OSError) as exc:
        p.error(str(exc).splitlines()[0])

    def work() -> None:
        if cfg.what == "targets":
            targets(cfg)
        else:
            fit(cfg)

    return run_script(work)


if __name__ == "__main__":
    sys.exit(main())
