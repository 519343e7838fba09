"""The ``masks`` section of ``carioca bench``: one mask per phase, and the observation.

States of every mask kind (:data:`MASK_KINDS`) are collected by biased random play on
stacked deals (:func:`collect_states`, :func:`classify`); each mask is then timed built
from scratch, and the observation (``Game.view`` + encoding) separately.
"""

from __future__ import annotations

import copy
import math
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

from carioca_experiments.common.seeds import BENCH, derive_seed
from carioca_experiments.evaluation.bench.config import Sizes
from carioca_experiments.evaluation.bench.units import Sample, Unit

MASK_KINDS = (
    ("draw", "draw phase"),
    ("play_no_opening", "play phase, no opening available"),
    ("play_opening", "play phase, an opening available"),
    ("choosing_opening", "choosing an opening (pending melds)"),
    ("after_opening", "after opening, lay-offs/swaps available"),
    ("discard_only", "discard only (opened this turn)"),
)


def _contract_hand(k: int, rng: random.Random) -> tuple[list[int], list[int]]:
    """A hand of contract ``k`` that holds an opening (no jokers), and the rest of the deck."""
    from carioca_env import CONTRACTS, Meld
    from carioca_env.cards import deck_counts

    contract = CONTRACTS[k]
    while True:
        remaining = deck_counts()
        hand: list[int] = []
        melds = [Meld.trio(rng.randrange(1, 14), rng.sample(range(4), 3)) for _ in range(contract.trios)]
        melds += [Meld.run(rng.randrange(4), rng.randrange(1, 12)) for _ in range(contract.runs)]
        ok = True
        for meld in melds:
            for c in meld.cards:
                if remaining[c] == 0:
                    ok = False
                remaining[c] -= 1
                hand.append(c)
        if not ok:
            continue
        rest = [c for c in range(len(remaining)) for _ in range(remaining[c])]
        rng.shuffle(rest)
        fill = contract.hand_size - len(hand)
        hand += rest[:fill]
        return hand, rest[fill:]


def classify(state: Any) -> str | None:
    """The mask kind of a :class:`~carioca_env.env.CariocaState` (``None`` when over)."""
    from carioca_env import MoveKind, Phase, enumerate_openings

    game = state.game
    if game.phase is Phase.GAME_OVER:
        return None
    if state.pending:
        return "choosing_opening"
    if game.phase is Phase.DRAW:
        return "draw"
    if game.phase is Phase.DISCARD:
        return "discard_only"
    seat = game.current_player
    if not game.opened[seat]:
        return "play_opening" if enumerate_openings(game.hands[seat], game.contract) else "play_no_opening"
    if any(m.kind in (MoveKind.LAY_OFF, MoveKind.SWAP) for m in game.legal_moves()):
        return "after_opening"
    return None


def collect_states(n: int, per_kind: int, max_games: int, seed: int) -> dict[str, list[Any]]:
    """States of every mask kind from biased random play on stacked deals.

    Seat 0 is dealt a hand holding an opening of the game's contract (contracts cycle
    1..7); every seat opens whenever it can, lays off or swaps most of the time, and
    otherwise plays uniformly at random.  At most 3 states of a kind are taken from one
    game (common kinds are also thinned) so the samples spread over games and contracts.
    """
    import numpy as np

    from carioca_env import Game, GameConfig, stack_deck
    from carioca_env.actions import ActionKind
    from carioca_env.env import CariocaState

    rng = random.Random(derive_seed(BENCH, seed, "collect", n))
    out: dict[str, list[Any]] = {kind: [] for kind, _ in MASK_KINDS}
    thin = {"draw": 0.05, "play_no_opening": 0.1, "discard_only": 0.5}
    table = None
    for g in range(max_games):
        if all(len(v) >= per_kind for v in out.values()):
            break
        k = g % 7 + 1
        hand, rest = _contract_hand(k, rng)
        size = len(hand)
        hands = [hand] + [rest[i * size:(i + 1) * size] for i in range(n - 1)]
        upcard = rest[(n - 1) * size]
        deck = stack_deck(hands, upcard, dealer=n - 1)
        game = Game.from_deck(deck, n - 1, GameConfig(num_players=n, deals=(k,)), seed=rng.getrandbits(32))
        state = CariocaState(game)
        table = table or state.table
        r = table.ranges
        open_ids = r[ActionKind.OPEN_MELD]
        meld_ids = (r[ActionKind.LAY_OFF].start, r[ActionKind.SWAP].stop)
        taken: dict[str, int] = {}
        for _ in range(600):
            kind = classify(state)
            if kind is None:
                break
            if (
                len(out[kind]) < per_kind
                and taken.get(kind, 0) < 3
                and rng.random() < thin.get(kind, 1.0)
            ):
                out[kind].append(copy.deepcopy(state, {id(state.table): state.table}))
                taken[kind] = taken.get(kind, 0) + 1
            legal = np.flatnonzero(state.mask())
            opens = [a for a in legal if a in open_ids]
            melds = [a for a in legal if meld_ids[0] <= a < meld_ids[1]]
            if opens:
                action = rng.choice(opens)
            elif melds and rng.random() < 0.7:
                action = rng.choice(melds)
            else:
                action = rng.choice(list(legal))
            state.step(int(action))
    return out


def mask_units(sizes: Sizes, seed: int) -> list[Unit]:
    """Per player count: one unit per mask kind and one for the observation (states collected once, lazily)."""
    units = []
    for n in sizes.mask_players:
        cache: dict[str, Any] = {}

        def states(n: int = n, cache: dict[str, Any] = cache) -> dict[str, list[Any]]:
            if "states" not in cache:
                cache["states"] = collect_states(n, sizes.mask_states, sizes.mask_collect_games, seed)
            return cache["states"]

        for kind, label in MASK_KINDS:

            def fn(rep: int, kind: str = kind, states: Callable[[], dict] = states) -> Sample:
                sample = states()[kind]
                if not sample:
                    return Sample(None, {"states": 0})
                per_state = []
                legal = []
                for st in sample:
                    best = math.inf
                    for _ in range(sizes.mask_calls):
                        st.forget()  # from scratch: melding moves generated, mask built
                        t0 = time.perf_counter()
                        m = st.mask()
                        best = min(best, time.perf_counter() - t0)
                    per_state.append(best * 1e6)  # the fastest call: least disturbed by load
                    legal.append(int(m.sum()))
                return Sample(
                    statistics.mean(per_state),
                    {
                        "states": len(sample),
                        "worst_state_us": max(per_state),
                        "median_state_us": statistics.median(per_state),
                        "mean_legal_actions": statistics.mean(legal),
                    },
                )

            units.append(
                Unit("masks", f"masks.p{n}.{kind}", f"mask {n}p: {label}", "us", fn, higher_is_better=False,
                     note="built from scratch, melding moves generated (until 2026-11 the moves were reused)")
            )

        def obs_fn(rep: int, states: Callable[[], dict] = states) -> Sample:
            from carioca_env.observation import GameEncoder, encode_observation

            sample = [st for v in states().values() for st in v]
            t_view = t_enc = t_fast = 0.0
            for st in sample:
                seat = st.game.current_player
                pending = st.pending
                best_view = best_enc = best_fast = math.inf
                for _ in range(sizes.mask_calls):
                    encoder = GameEncoder(st.game.num_players)  # cold: nothing cached yet
                    t0 = time.perf_counter()
                    view = st.game.view(seat)
                    t1 = time.perf_counter()
                    encode_observation(view, pending)
                    t2 = time.perf_counter()
                    encoder.encode(st.game, seat, pending)
                    t3 = time.perf_counter()
                    best_view = min(best_view, t1 - t0)
                    best_enc = min(best_enc, t2 - t1)
                    best_fast = min(best_fast, t3 - t2)
                t_view += best_view
                t_enc += best_enc
                t_fast += best_fast
            if not sample:
                return Sample(None)
            n_states = len(sample)
            return Sample(
                (t_view + t_enc) / n_states * 1e6,
                {"states": n_states, "view_us": t_view / n_states * 1e6, "encode_us": t_enc / n_states * 1e6,
                 "game_encoder_cold_us": t_fast / n_states * 1e6},
            )

        units.append(
            Unit("masks", f"masks.p{n}.observation", f"observation {n}p: view + encode (reference path)", "us",
                 obs_fn, higher_is_better=False,
                 note="game_encoder_cold_us: the env's GameEncoder with nothing cached (its worst case)")
        )
    return units
