"""Fitting a nonlinear draw value (version 5 candidate): a small network of a seat's context and a card's attributes.

Usage::

    python -m carioca_experiments.studies.luck.fit5 record --players 2 --contracts 1 2 6 --decks 600 --out runs/luck-v5
    python -m carioca_experiments.studies.luck.fit5 fit --players 2 --contracts 1 2 6 --out runs/luck-v5

``record`` plays, on decks dealt from the fit's seed namespace (``carioca-luck-fit``, fit
seed 5, deck label ``v5-deck``: never a tournament's decks, nor versions 3 and 4's fitting
deals), the games of :func:`carioca_experiments.studies.luck.fit3.seatings` (the duplicate
lineups of heuristic against greedy, then each alone).  Unlike fit3 and fit4, which keep
only sums that are linear in their weights, it keeps every stock draw *event*: per seat
the version-3 context (:func:`carioca_experiments.evaluation.luck.draw_features.draw_features`), the
attribute rows of every card type the stock could yield (the centring set) with their
copies, and which card came; per game the final penalties, the corrections of the shipped
version 3 and the summed centred version-3 basis rows (so version 3's linear family can be
refitted on the same games).

``fit`` trains, per (player count, contract), a network ``g(context of seat s, attributes of
card k for s, s's position after the drawer) -> value of the card to s`` (two ReLU layers).
A seat's correction of a draw is ``g(card drawn) - sum_k p_k g(card k)`` over the centring
set, ``p_k`` the card's copies over the stock's size: expectation 0 given the past whatever
``g`` is, so the corrected estimate stays unbiased.  Per game and seat the corrections are
summed and trained on fit3's objectives (``seat``: each seat's penalty with a fixed effect
per deck and seat; ``pair``: the variance of heuristic's minus greedy's corrected paired
difference per deck), also on what version 3 leaves (``v3+mlp``).  Splits by deck as fit3
(every fifth held out, only reported; the one before it validation, which stops the
training, by the seat objective's within-deal squared error over every validation game and
seat or the pair objective's paired ratio, and chooses the candidate by the paired ratio;
the rest trains).  Beside them, fit3's ridge refit of
version 3's linear family on the same games (``v3-refit``) and the shipped version 3.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from carioca_experiments.evaluation.luck import draw_features as features3
from carioca_experiments.studies.luck.fit3 import (
    Fit3Config,
    choose_fit,
    command,
    demean,
    duplicate_lineups,
    fit_games,
    load,
    pair_diffs,
    pending,
    save_recording,
    split,
)


@dataclass(frozen=True)
class Fit5Config(Fit3Config):
    """What ``record`` plays and ``fit`` fits: :class:`Fit3Config`'s fields, with version
    5's defaults (2 players, fit seed 5, ``runs/luck-v5``, whose recorded events are
    ``events-p{n}-c{k}.npz``)."""

    players: tuple[int, ...] = (2,)
    seed: int = 5
    out: str = "runs/luck-v5"
    first_deck: int = 0


def play_game(deck: list[int], dealer: int, contract: int, specs: Sequence[str], seeds: Sequence[int],
              game_seed: int, max_turns: int, v3: Any) -> dict[str, Any]:
    """One game: its penalties, its stock draw events (``ctx [n, C]``, ``attrs [K, n, A]``,
    ``counts [K]``, the drawn card's index in them, the drawer), the summed centred
    version-3 basis rows and the corrections by ``v3``, per seat."""
    from carioca_env.moves import MoveKind
    from carioca_env.view import Phase
    from carioca_experiments.evaluation.luck.correction import LuckTracker
    from carioca_experiments.evaluation.tournament.play import deal_penalties
    from carioca_experiments.studies.luck.seated import seat_deal

    n = len(specs)
    game, agents = seat_deal(deck, dealer, contract, specs, seeds, game_seed)
    tracker = LuckTracker(v3, n)
    sums = np.zeros((n, n * len(features3.CONTEXT) * len(features3.ATTRS)))
    events: list[tuple[np.ndarray, np.ndarray, np.ndarray, int, int]] = []
    turns = 0
    while not game.deal_results or game.deal_results[-1].cancelled:
        if turns >= max_turns:
            break
        seat = game.current
        move = agents[seat].act(game.view(seat), game.legal_moves())
        tracker.before(game, move)
        pending = None
        if move.kind is MoveKind.DRAW_STOCK and game.phase is Phase.DRAW and game.stock:
            pending = features3.draw_features(game)
        game.apply(move)
        tracker.after(game)
        if pending is not None:
            cards, counts, ctx, attrs = pending
            k = int(np.searchsorted(cards, game.drawn_card))
            mean = np.tensordot(counts, attrs, axes=1) / counts.sum()
            sums += features3.basis(seat, ctx, attrs[k] - mean)
            events.append((ctx, attrs, counts, k, seat))
        turns += move.kind is MoveKind.DISCARD
    penalty = deal_penalties(game)
    return {"penalty": np.array(penalty, dtype=np.float64), "events": events, "sums": sums,
            "v3": tracker.corrections.copy()}


def events_path(out: str | Path, players: int, contract: int) -> Path:
    """The recorded events of a player count and contract."""
    return Path(out) / f"events-p{players}-c{contract}.npz"


def record(cfg: Fit5Config, log: Any = print) -> None:
    """Play the fitting games; save, per (player count, contract), the games and their draw
    events (a (player count, contract) already recorded is kept).

    Saved arrays: per game ``penalty [G, n]``, ``v3 [G, n]``, ``sums [G, n, W]``, ``deck``,
    ``game``, ``agent [G, n]``; per event ``ctx [E, n, C]``, ``mover``, ``event_game``,
    ``start [E + 1]`` (its card rows are ``start[e]:start[e + 1]``) and ``drawn`` (the
    drawn card's row); per card row ``attrs [R, n, A]`` and ``counts [R]`` (float32)."""
    from carioca_experiments.evaluation.luck.value import SHIPPED_BY_VERSION, load_value

    v3 = load_value(SHIPPED_BY_VERSION[3])
    for players, contract, path in pending(cfg, events_path, "luck-fit5", log):
        t0 = time.process_time()
        games: dict[str, list[Any]] = {k: [] for k in ("penalty", "v3", "sums", "deck", "game", "agent")}
        ev: dict[str, list[Any]] = {k: [] for k in ("ctx", "mover", "event_game", "drawn", "attrs", "counts")}
        rows = 0
        starts = [0]
        for fg in fit_games(cfg.seed, "v5", players, contract, range(cfg.first_deck, cfg.first_deck + cfg.decks)):
            r = play_game(fg.deck, fg.dealer, contract, fg.specs, fg.seeds, fg.game_seed, cfg.max_turns, v3)
            index = len(games["deck"])
            games["penalty"].append(r["penalty"])
            games["v3"].append(r["v3"])
            games["sums"].append(r["sums"].astype(np.float32))
            games["deck"].append(fg.deck_index)
            games["game"].append(fg.game)
            games["agent"].append(fg.agents)
            for ctx, attrs, counts, k, mover in r["events"]:
                ev["ctx"].append(ctx.astype(np.float32))
                ev["attrs"].append(attrs.astype(np.float32))
                ev["counts"].append(counts.astype(np.float32))
                ev["drawn"].append(rows + k)
                ev["mover"].append(mover)
                ev["event_game"].append(index)
                rows += len(counts)
                starts.append(rows)
        arrays: dict[str, Any] = {k: np.array(v) for k, v in games.items()}
        arrays["ctx"] = np.stack(ev["ctx"])
        arrays["attrs"] = np.concatenate(ev["attrs"])
        arrays["counts"] = np.concatenate(ev["counts"])
        for k in ("mover", "event_game", "drawn"):
            arrays[k] = np.array(ev[k], dtype=np.int64)
        arrays["start"] = np.array(starts, dtype=np.int64)
        save_recording(path, arrays, players)
        log(f"[luck-fit5] p{players} c{contract}: {cfg.decks} decks, {len(games['deck'])} games, "
            f"{len(ev['mover'])} draws, {rows} card rows, {time.process_time() - t0:.0f} s CPU")


#: The network's hidden layer widths.
HIDDEN = (32, 16)
#: Training: the most epochs, the epochs without a better validation loss before stopping,
#: decks per step, learning rate, weight decay and the torch seed.
EPOCHS, PATIENCE, BATCH_DECKS, LEARNING_RATE, WEIGHT_DECAY, TORCH_SEED = 30, 6, 24, 2e-3, 1e-4, 5
#: The network candidates: (objective, whether it fits what version 3 leaves).
CANDIDATES = {"mlp-seat": ("seat", False), "mlp-pair": ("pair", False), "v3+mlp-seat": ("seat", True)}


def inputs(data: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(per event and seat [E, n, C + n], per card row and seat [R, n, A], row_event [R])``:
    a network input is a seat's context with its position after the drawer (one-hot),
    followed by the card's attributes for that seat."""
    ctx, mover = data["ctx"], data["mover"]
    n = ctx.shape[1]
    rel = (np.arange(n)[None, :] - mover[:, None]) % n
    onehot = np.eye(n, dtype=np.float32)[rel]
    row_event = np.repeat(np.arange(len(mover)), np.diff(data["start"]))
    return np.concatenate([ctx, onehot], axis=-1), data["attrs"], row_event


def coefficients(data: dict[str, np.ndarray], row_event: np.ndarray) -> np.ndarray:
    """Per card row, its weight in the correction: 1 for the card drawn, minus its share of
    the stock (so that ``sum_rows coef * g`` is ``g(drawn) - E[g]`` whatever ``g`` is)."""
    counts = data["counts"].astype(np.float64)
    totals = np.add.reduceat(counts, data["start"][:-1])
    coef = -counts / totals[row_event]
    coef[data["drawn"]] += 1.0
    return coef


def network_corrections(params: dict[str, np.ndarray], data: dict[str, np.ndarray],
                        chunk: int = 200_000) -> np.ndarray:
    """Each game's summed corrections per seat ``[G, n]`` by a network read with numpy
    (:func:`carioca_experiments.evaluation.luck.value.mlp_forward`, the evaluation's forward pass),
    in chunks of card rows."""
    from carioca_experiments.evaluation.luck.value import mlp_forward

    per_event, per_row, row_event = inputs(data)
    coef = coefficients(data, row_event)
    out = np.zeros(data["penalty"].shape)
    for a in range(0, len(row_event), chunk):
        ev = row_event[a:a + chunk]
        x = np.concatenate([per_event[ev], per_row[a:a + chunk]], axis=-1).astype(np.float64)
        np.add.at(out, data["event_game"][ev], coef[a:a + chunk, None] * mlp_forward(params, x))
    return out


class _Net:
    """The torch side of the fit: the network and the batched corrections."""

    def __init__(self, data: dict[str, np.ndarray], train_decks: np.ndarray) -> None:
        import torch

        torch.manual_seed(TORCH_SEED)
        self.torch = torch
        ev, rows, row_event = inputs(data)
        self.n = ev.shape[1]
        train_games = np.isin(data["deck"], train_decks)
        tr_ev = train_games[data["event_game"]]
        tr_rows = tr_ev[row_event]
        ev_flat = ev[tr_ev].reshape(-1, ev.shape[-1]).astype(np.float64)
        row_flat = rows[tr_rows].reshape(-1, rows.shape[-1]).astype(np.float64)
        mu = np.concatenate([ev_flat.mean(axis=0), row_flat.mean(axis=0)])
        sd = np.concatenate([ev_flat.std(axis=0), row_flat.std(axis=0)])
        c = ev.shape[-1]
        # the constant column and the position one-hot are left as they are
        mu[c - self.n:c] = 0.0
        sd[c - self.n:c] = 1.0
        sd[sd < 1e-6] = 1.0
        self.mu, self.sd, self.c = mu, sd, c
        self.ev = torch.tensor((ev - mu[:c]) / sd[:c], dtype=torch.float32)
        self.rows = torch.tensor((rows - mu[c:]) / sd[c:], dtype=torch.float32)
        self.row_event = torch.tensor(row_event)
        self.coef = torch.tensor(coefficients(data, row_event), dtype=torch.float32)
        self.event_game = torch.tensor(data["event_game"])
        self.y_scale = float(data["penalty"].std()) or 1.0
        d_in, (h1, h2) = mu.shape[0], HIDDEN
        gen = torch.Generator().manual_seed(TORCH_SEED)

        def init(*shape: int) -> Any:
            return (torch.randn(*shape, generator=gen) * (2.0 / shape[0]) ** 0.5).requires_grad_()

        self.params = {"w1": init(d_in, h1), "b1": torch.zeros(h1, requires_grad=True),
                       "w2": init(h1, h2), "b2": torch.zeros(h2, requires_grad=True),
                       "w3": (torch.randn(h2, generator=gen) * 0.01).requires_grad_()}
        # contiguous slices of events and rows per game (games are recorded in order)
        ev_start = np.searchsorted(data["event_game"], np.arange(len(data["deck"]) + 1))
        self.ev_start = ev_start
        self.row_start = np.append(data["start"][:-1], data["start"][-1])[ev_start]

    def corrections(self, games: np.ndarray) -> Any:
        """Each seat's summed correction in ``games`` (sorted game indices): ``[len(games), n]``."""
        torch = self.torch
        p = self.params
        evs = np.concatenate([np.arange(self.ev_start[g], self.ev_start[g + 1]) for g in games])
        rws = np.concatenate([np.arange(self.row_start[g], self.row_start[g + 1]) for g in games])
        evs_t, rws_t = torch.tensor(evs), torch.tensor(rws)
        local_ev = torch.tensor(np.searchsorted(evs, self.row_event[rws_t].numpy()))
        c = self.c
        ev_part = self.ev[evs_t] @ p["w1"][:c]  # [E_b, n, h1]
        h = torch.relu(ev_part[local_ev] + self.rows[rws_t] @ p["w1"][c:] + p["b1"])
        h = torch.relu(h @ p["w2"] + p["b2"])
        g = (h @ p["w3"]) * self.y_scale  # [R_b, n]
        contrib = g * self.coef[rws_t][:, None]
        local_game = torch.tensor(np.searchsorted(games, self.event_game[evs_t].numpy()))
        out = torch.zeros((len(games), self.n))
        return out.index_add(0, local_game[local_ev], contrib)

    def numpy_params(self) -> dict[str, np.ndarray]:
        """The network as :func:`carioca_experiments.evaluation.luck.value.mlp_forward`'s parameters."""
        p = {k: v.detach().numpy().astype(np.float64) for k, v in self.params.items()}
        return {"mu": self.mu, "sd": self.sd, "w1": p["w1"], "b1": p["b1"], "w2": p["w2"], "b2": p["b2"],
                "w3": p["w3"], "b3": np.array(0.0), "y_scale": np.array(self.y_scale), "y_shift": np.array(0.0)}


def _loss(torch: Any, data: dict[str, np.ndarray], games: np.ndarray, y: Any, corr: Any, objective: str) -> Any:
    """The objective on a batch of whole decks' games: within-(deck, seat) mean squared
    residual (``seat``), or the variance of the corrected paired difference per deck (``pair``)."""
    resid = y - corr
    deck = data["deck"][games]
    if objective == "seat":
        _, inv = np.unique(deck, return_inverse=True)
        inv_t = torch.tensor(inv)
        k = int(inv.max()) + 1
        sums = torch.zeros((k, resid.shape[1])).index_add(0, inv_t, resid)
        cnt = torch.zeros(k).index_add(0, inv_t, torch.ones(len(inv)))
        return ((resid - (sums / cnt[:, None])[inv_t]) ** 2).mean()
    lineup = data["game"][games] < duplicate_lineups(data)
    agent = data["agent"][games]
    diffs = []
    for d in np.unique(deck):
        m = (deck == d) & lineup
        a = torch.tensor(agent[m])
        r = resid[torch.tensor(np.flatnonzero(m))]
        diffs.append(r[a == 0].mean() - r[a == 1].mean())
    dt = torch.stack(diffs)
    return ((dt - dt.mean()) ** 2).mean()


def within_mse(data: dict[str, np.ndarray], games: np.ndarray, corrections: np.ndarray) -> float:
    """The mean squared corrected penalty of ``games`` around its mean within each (deck,
    seat): the seat objective's loss (``corrections [len(games), n]``)."""
    n = data["penalty"].shape[1]
    resid = (data["penalty"][games] - corrections).reshape(-1, 1)
    group = (data["deck"][games][:, None] * n + np.arange(n)[None, :]).reshape(-1)
    return float(np.mean(demean(resid, group) ** 2))


def train_mlp(data: dict[str, np.ndarray], objective: str, on_v3: bool,
              log: Any = print) -> tuple[dict[str, np.ndarray], np.ndarray, dict[str, Any]]:
    """Train one network candidate: ``(numpy parameters, corrections of every game [G, n],
    training report)``; the epoch kept is the one with the lowest validation loss: the
    within-deal mean squared error (:func:`within_mse`) for the seat objective, the paired
    ratio for the pair objective."""
    import torch

    torch.set_num_threads(1)
    decks = np.unique(data["deck"])
    sp = split(decks)
    net = _Net(data, sp["train"])
    base = data["v3"] if on_v3 else np.zeros_like(data["penalty"])
    y_all = torch.tensor(data["penalty"] - base, dtype=torch.float32)
    raw_val = float(pair_diffs(data, sp["validation"], np.zeros_like(data["penalty"])).std(ddof=1))
    opt = torch.optim.Adam(list(net.params.values()), lr=LEARNING_RATE, weight_decay=WEIGHT_DECAY)
    rng = np.random.default_rng(TORCH_SEED)
    all_games = np.arange(len(data["deck"]))
    val_games = np.flatnonzero(np.isin(data["deck"], sp["validation"]))

    def all_corrections() -> np.ndarray:
        with torch.no_grad():
            parts = [net.corrections(chunk).numpy() for chunk in np.array_split(all_games, 40)]
        return np.concatenate(parts).astype(np.float64) + base

    best = (float("inf"), -1, {k: v.detach().clone() for k, v in net.params.items()})
    history = []
    for epoch in range(EPOCHS):
        t0 = time.process_time()
        order = rng.permutation(sp["train"])
        for b in range(0, len(order), BATCH_DECKS):
            games = np.flatnonzero(np.isin(data["deck"], order[b:b + BATCH_DECKS]))
            corr = net.corrections(games)
            loss = _loss(torch, data, games, y_all[torch.tensor(games)], corr, objective)
            opt.zero_grad()
            loss.backward()
            opt.step()
        corr_all = all_corrections()
        r = float(pair_diffs(data, sp["validation"], corr_all).std(ddof=1) / raw_val)
        mse = within_mse(data, val_games, corr_all[val_games])
        history.append((round(r, 3), round(mse, 1)))
        log(f"[luck-fit5]   {objective}{' on v3' if on_v3 else ''} epoch {epoch}: validation ratio {r:.3f}, "
            f"within-deal MSE {mse:.1f} ({time.process_time() - t0:.0f} s)")
        # the seat objective stops on its own loss over every validation game and seat, less
        # noisy than a paired ratio over the validation decks (about +-0.07 at 120 decks)
        crit = mse if objective == "seat" else r
        if crit < best[0]:
            best = (crit, epoch, {k: v.detach().clone() for k, v in net.params.items()})
        elif epoch - best[1] >= PATIENCE:
            break
    with torch.no_grad():
        for k, v in net.params.items():
            v.copy_(best[2][k])
    params = net.numpy_params()
    # the reported figures are the numpy forward pass's, what an evaluation would compute
    return params, network_corrections(params, data) + base, {"epoch": best[1], "validation_history": history}


def _ratio(data: dict[str, np.ndarray], decks: np.ndarray, corrections: np.ndarray) -> float:
    raw = float(pair_diffs(data, decks, np.zeros_like(data["penalty"])).std(ddof=1))
    return round(float(pair_diffs(data, decks, corrections).std(ddof=1) / raw), 3)


def fit_model(data: dict[str, np.ndarray],
              log: Any = print) -> tuple[str, dict[str, Any], dict[str, dict[str, np.ndarray]]]:
    """The candidates of one (player count, contract) and their ratios: ``(kind chosen by
    validation, report, network parameters of every network candidate)``."""
    decks = np.unique(data["deck"])
    sp = split(decks)
    raw_val = float(pair_diffs(data, sp["validation"], np.zeros_like(data["penalty"])).std(ddof=1))
    refit = choose_fit(data, data["sums"], sp, raw_val)
    corr: dict[str, np.ndarray] = {"v3": data["v3"], "v3-refit": data["sums"].astype(np.float64) @ refit[3]}
    params: dict[str, dict[str, np.ndarray]] = {}
    report: dict[str, Any] = {"decks": int(len(decks)), "games": int(len(data["deck"])),
                              "draws_per_game": round(len(data["mover"]) / len(data["deck"]), 1),
                              "v3-refit": {"objective": refit[1], "ridge": refit[2]}}
    for name, (objective, on_v3) in CANDIDATES.items():
        params[name], corr[name], report[name] = train_mlp(data, objective, on_v3, log)
    for k, c in corr.items():
        report[f"ratio_validation_{k}"] = _ratio(data, sp["validation"], c)
        report[f"ratio_heldout_{k}"] = _ratio(data, sp["heldout"], c)
    kind = min(corr, key=lambda k: report[f"ratio_validation_{k}"])
    report["kind"] = kind
    return kind, report, params


def fit(cfg: Fit5Config, log: Any = print) -> dict[str, Any]:
    """Fit every recorded (player count, contract); write ``report.json`` and each network
    candidate's parameters (``nets-p{n}-c{k}.npz``)."""
    reports: dict[str, Any] = {}
    for players in cfg.players:
        for contract in cfg.contracts:
            path = events_path(cfg.out, players, contract)
            if not path.exists():
                log(f"[luck-fit5] {path} missing, p{players} c{contract} not fitted")
                continue
            kind, report, params = fit_model(load(path), log)
            key = f"p{players}-c{contract}"
            reports[key] = report
            nets: dict[str, Any] = {f"{name}.{p}": v for name, ps in params.items() for p, v in ps.items()}
            np.savez(Path(cfg.out) / f"nets-{key}.npz", **nets)
            log(f"[luck-fit5] {key}: {json.dumps(report)}")
            (Path(cfg.out) / "report.json").write_text(json.dumps(reports, indent=1) + "\n", encoding="utf-8")
    return reports


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m carioca_experiments.studies.luck.fit5``: see the module docstring."""
    return command(argv, "fit5", __doc__ or "", Fit5Config, record, fit, (2,), 5, "runs/luck-v5", first_deck=True)


if __name__ == "__main__":
    sys.exit(main())
