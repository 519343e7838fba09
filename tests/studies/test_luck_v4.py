"""The version-4 luck value function's action terms: each has exact expectation 0 given the
past, agents that declare nothing are corrected as before, older versions ignore
declarations, and the value file is checked."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from carioca_agents.base import DeclaredChoice, declared_choice
from carioca_agents.registry import make_agent
from carioca_env import Game, GameConfig, Move, PlayerView
from carioca_env.moves import MoveKind
from carioca_experiments.evaluation.luck import LuckTracker, ValueFileError, load_value
from carioca_experiments.evaluation.luck import draw_features as features3
from carioca_experiments.evaluation.luck.correction import action_term
from carioca_experiments.evaluation.luck.value import SHIPPED_BY_VERSION, DrawValue
from carioca_experiments.studies.luck import action_features as features4
from carioca_experiments.studies.luck.values import ActionValue
from tests.test_luck import small_position


def random_action_value(seed: int) -> ActionValue:
    """Random action weights for every model over the shipped version 3's draws."""
    rng = np.random.default_rng(seed)
    v3 = load_value(SHIPPED_BY_VERSION[3])
    assert isinstance(v3, DrawValue)
    shape = (len(features3.CONTEXT), len(features4.ACTION_ATTRS))
    keys = [f"p{n}-c{k}" for n in (2, 3, 4) for k in range(1, 8)]
    return ActionValue(v3, {k: rng.normal(scale=5.0, size=(int(k[1]),) + shape) for k in keys})


def discard_position() -> Game:
    """The stacked position of :func:`tests.test_luck.small_position`, seat 0 after its draw
    (it must discard: every card of its hand is an option)."""
    game = small_position(False)
    game.apply(Move.draw_stock())
    return game


def tracked_term(value: object, game: Game, choice: DeclaredChoice) -> np.ndarray:
    tracker = LuckTracker(value, game.num_players)  # type: ignore[arg-type]
    tracker.before(game, choice.move, choice)
    return tracker.corrections.copy()


@pytest.mark.parametrize("probs", [None, "skewed"])
def test_each_action_term_has_exact_expectation_zero(probs: str | None) -> None:
    """On a constructed decision, the tracker's term for each option played, weighted by the
    declared probabilities, sums to exactly 0 for every seat (uniform and skewed choices),
    and equals V(after the option) minus the weighted mean, V read option by option."""
    value = random_action_value(1)
    game = discard_position()
    options = tuple(m for m in game.legal_moves() if m.kind is MoveKind.DISCARD)[:5]
    assert len(options) == 5
    p = None if probs is None else (0.1, 0.4, 0.2, 0.25, 0.05)
    weights = np.array(DeclaredChoice(options, 0, p).weights())
    terms = np.array([tracked_term(value, game, DeclaredChoice(options, j, p)) for j in range(len(options))])
    np.testing.assert_allclose(weights @ terms, np.zeros(2), atol=1e-9)
    single = np.array([value.action_values(game, (m, m))[0] for m in options])  # V of one option at a time
    np.testing.assert_allclose(terms, single - weights @ single, atol=1e-9)
    assert np.abs(terms).max() > 1e-6  # the options do differ: the test tests something


def test_action_terms_of_openings_lay_offs_and_swaps_have_expectation_zero() -> None:
    """The other valued kinds too: at every declared choice of 30 random-agent deals (every
    option a legal move), the weighted mean of the terms over the options is 0."""
    value = random_action_value(2)
    kinds: set[MoveKind] = set()
    for d in range(30):
        game = Game(GameConfig(num_players=2, deals=(1 + d % 7,)), seed=500 + d)
        agents = [make_agent("random", 3 * d + s) for s in range(2)]
        for _ in range(120):
            if game.deal_results:
                break
            agent = agents[game.current]
            move = agent.act(game.view(game.current), game.legal_moves())
            choice = declared_choice(agent)
            assert choice is not None or len(game.legal_moves()) == 1
            if choice is not None and features4.valued(choice.options):
                kinds |= {m.kind for m in choice.options}
                terms = np.array([action_term(value, game, DeclaredChoice(choice.options, j))
                                  for j in range(len(choice.options))])
                np.testing.assert_allclose(terms.mean(axis=0), 0.0, atol=1e-9)
            game.apply(move)
    assert {MoveKind.DISCARD, MoveKind.OPEN, MoveKind.LAY_OFF} <= kinds


def test_choices_among_draws_get_no_term() -> None:
    value = random_action_value(3)
    game = small_position(False)
    game.apply(Move.draw_stock())
    game.apply(next(m for m in game.legal_moves() if m.kind is MoveKind.DISCARD))
    draws = tuple(m for m in game.legal_moves() if m.kind in (MoveKind.DRAW_STOCK, MoveKind.DRAW_DISCARD))
    assert len(draws) == 2
    assert action_term(value, game, DeclaredChoice(draws, 1)) is None


class Undeclared:
    """Greedy behind a wrapper that declares nothing (as a plugin or a learned model)."""

    name = "undeclared"

    def __init__(self, seed: int) -> None:
        self.inner = make_agent("greedy", seed)

    def reset(self, seed: int) -> None:
        self.inner.reset(seed)

    def act(self, view: PlayerView, legal: Sequence[Move]) -> Move:
        return self.inner.act(view, legal)


def play(agents: Sequence[object], trackers: Sequence[LuckTracker], seed: int, contract: int,
         told: Sequence[bool] | None = None) -> None:
    """Play a deal, every tracker observing it; ``told[i]`` False: tracker ``i`` is not
    given the agents' declarations."""
    game = Game(GameConfig(num_players=2, deals=(contract,)), seed=seed)
    told = told if told is not None else [True] * len(trackers)
    while not game.deal_results:
        agent = agents[game.current]
        move = agent.act(game.view(game.current), game.legal_moves())  # type: ignore[attr-defined]
        for t, tell in zip(trackers, told):
            t.before(game, move, declared_choice(agent) if tell else None)
        game.apply(move)
        for t in trackers:
            t.after(game)


def test_agents_that_declare_nothing_get_draw_corrections_only() -> None:
    value = random_action_value(4)
    for seed in range(3):
        v4, v3 = LuckTracker(value, 2), LuckTracker(value.draw, 2)
        play([Undeclared(seed), Undeclared(seed + 10)], [v4, v3], 900 + seed, 1 + seed)
        assert v4.actions == 0 and v4.draws == v3.draws > 0
        assert v4.corrections.tolist() == v3.corrections.tolist()


def test_declaring_agents_get_action_terms_and_older_versions_ignore_them() -> None:
    """Greedy and heuristic declare their ties: version 4 adds terms (its draw part's
    corrections plus them); versions 1-3 give the same corrections told or not."""
    value = random_action_value(5)
    olds = [load_value(p) for p in (SHIPPED_BY_VERSION[v] for v in (1, 2, 3))]
    for seed in range(3):
        agents = [make_agent("greedy", seed), make_agent("heuristic", seed + 10)]
        trackers = [LuckTracker(value, 2), LuckTracker(value.draw, 2)]
        for v in olds:
            trackers += [LuckTracker(v, 2), LuckTracker(v, 2)]
        play(agents, trackers, 950 + seed, 2 + seed, [True, True] + [True, False] * len(olds))
        v4, draw_part = trackers[:2]
        assert v4.actions > 0 and v4.draws == draw_part.draws
        assert np.abs(v4.corrections - draw_part.corrections).max() > 1e-6
        for told, untold in zip(trackers[2::2], trackers[3::2]):
            assert told.corrections.tolist() == untold.corrections.tolist() and told.actions == 0


def test_action_value_file_round_trips_and_refuses_edits(tmp_path: Path) -> None:
    value = random_action_value(6)
    path = tmp_path / "v4.json"
    value.save(path)
    loaded = load_value(path)
    assert isinstance(loaded, ActionValue) and loaded.fingerprint == value.fingerprint
    assert loaded.fingerprint.startswith("v4-")
    game = discard_position()
    options = tuple(m for m in game.legal_moves() if m.kind is MoveKind.DISCARD)
    np.testing.assert_array_equal(loaded.action_values(game, options), value.action_values(game, options))
    d = json.loads(path.read_text())
    d["actions"]["p2-c1"][0][0][0] += 1.0
    path.write_text(json.dumps(d))
    with pytest.raises(ValueFileError, match="does not match"):
        load_value(path)
    d = value.to_dict()
    d["actions"]["p2-c1"] = [[1.0]]
    path.write_text(json.dumps(d))
    with pytest.raises(ValueFileError, match="shape"):
        load_value(path)
    d = value.to_dict()
    d["features"] = "action-0"
    path.write_text(json.dumps(d))
    with pytest.raises(ValueFileError, match="features"):
        load_value(path)
    d = value.to_dict()
    d["draw"] = {"version": 2}
    path.write_text(json.dumps(d))
    with pytest.raises(ValueFileError, match="draw part"):
        load_value(path)


def test_action_ceiling_measures_the_coin_flips_part(tmp_path: Path) -> None:
    """``measure actions`` on two decks: declared choices are found and valued by playouts,
    and a row per contract is written (the figures themselves are the results page's)."""
    from carioca_experiments.studies.luck.measure import MeasureConfig, action_ceiling

    cfg = MeasureConfig("actions", ("heuristic", "greedy"), contracts=(1,), decks=2, seed=5, out=str(tmp_path),
                        rollouts=2)
    (row,) = action_ceiling(cfg)
    assert row["choices_per_deck"] > 0 and row["variance"] >= 0
    assert np.isfinite(row["action_part"]) and row["rollouts"] == 2
    (written,) = [json.loads(x) for x in next(tmp_path.glob("actions-*.jsonl")).read_text().splitlines()]
    assert written == row


def test_shipped_v4_action_terms_have_exact_expectation_zero() -> None:
    """The shipped version 4 (not the default) on the constructed decision of contract 2,
    where it has action weights: zero weighted mean, terms that differ."""
    from carioca_experiments.evaluation.luck import shipped_version

    value = shipped_version(4)
    assert isinstance(value, ActionValue) and value.fingerprint != shipped_value_fingerprint()
    assert set(value.actions) <= {f"p2-c{k}" for k in range(1, 8)} and value.actions
    key = sorted(value.actions)[0]
    hands = ["AS AH AD 5S 5H 5D 9C 9H 2C 3D JS", "KS KH QD QC 7S 7H 4D 4C 6S 8D 10H"]
    from carioca_env.cards import parse_cards
    from carioca_env.decks import stack_deck

    deck = stack_deck([parse_cards(h) for h in hands], parse_cards("JK")[0], parse_cards("2S 3S 4S"), dealer=1)
    game = Game.from_deck(deck, 1, GameConfig(num_players=2, deals=(int(key.split("-c")[1]),)))
    game.apply(Move.draw_stock())
    options = tuple(m for m in game.legal_moves() if m.kind is MoveKind.DISCARD)
    terms = np.array([action_term(value, game, DeclaredChoice(options, j)) for j in range(len(options))])
    np.testing.assert_allclose(terms.mean(axis=0), 0.0, atol=1e-9)
    assert np.abs(terms).max() > 1e-6


def shipped_value_fingerprint() -> str:
    from carioca_experiments.evaluation.luck import shipped_value

    return shipped_value().fingerprint


def test_a_v4_tournament_records_action_terms_the_same_for_one_and_two_workers(tmp_path: Path) -> None:
    """Version 4's fingerprint in a tournament: the same bytes with one and two workers,
    the same deals as the raw tournament, ``luck_actions`` recorded; on a contract where
    its draw part is version 3's, the same draws valued as a version-3 tournament and a
    different luck (the action terms)."""
    from carioca_experiments.evaluation.luck import shipped_version
    from carioca_experiments.evaluation.tournament import RESULTS_FILE, TournamentConfig, run_tournament

    v4, v3 = shipped_version(4), shipped_version(3)
    assert isinstance(v4, ActionValue) and isinstance(v3, DrawValue)
    contract = next(int(k.split("-c")[1]) for k in sorted(v4.actions)
                    if np.array_equal(v4.draw.model(2, int(k.split("-c")[1])), v3.model(2, int(k.split("-c")[1]))))

    def play(name: str, luck: str | None, workers: int = 1) -> list[str]:
        cfg = TournamentConfig(agents=("heuristic", "greedy"), players=2, contracts=(contract,), decks=3, seed=5,
                               max_turns=300, luck=luck)
        run_tournament(cfg, tmp_path / name, workers=workers, progress=False, log=lambda m: None)
        return (tmp_path / name / RESULTS_FILE).read_text().splitlines()[1:]

    one, two = play("w1", v4.fingerprint), play("w2", v4.fingerprint, 2)
    assert one == two
    lines = [json.loads(x) for x in one]
    strip = [{k: v for k, v in d.items() if k not in ("luck", "luck_draws", "luck_actions")} for d in lines]
    assert strip == [json.loads(x) for x in play("raw", None)]
    assert sum(d["luck_actions"] for d in lines) > 0
    other = [json.loads(x) for x in play("v3", v3.fingerprint)]
    assert [d["luck_draws"] for d in other] == [d["luck_draws"] for d in lines]
    assert [d["luck"] for d in other] != [d["luck"] for d in lines]
    assert all("luck_actions" not in d for d in other)


def test_reluck_refuses_version_4(tmp_path: Path) -> None:
    """Game records hold the moves, not the agents' declarations: recomputing a tournament's
    luck with version 4 from them is refused before anything is written."""
    from carioca_experiments.evaluation.luck import shipped_version
    from carioca_experiments.evaluation.tournament import TournamentConfig, run_tournament
    from carioca_experiments.studies.luck import replayed

    tc = TournamentConfig(agents=("greedy", "heuristic"), players=2, contracts=(1,), decks=1, seed=53, max_turns=40,
                          luck=shipped_value_fingerprint())
    run_tournament(tc, tmp_path / "kept", workers=1, progress=False, log=lambda m: None, record_every=1)
    with pytest.raises(replayed.ReplayError, match="declared random choices"):
        replayed.reluck(tmp_path / "kept", tmp_path / "out", shipped_version(4).fingerprint)
    assert not (tmp_path / "out").exists()


def test_fit4_rows_are_the_trackers_action_terms_and_a_fit_writes_a_loadable_v4(tmp_path: Path) -> None:
    """The recorded action rows times any action weights are the action terms a tracker of
    those weights adds in the same game (what the fit regresses is what the tournament
    subtracts); the recorded version-3 corrections are a version-3 tracker's; and record +
    fit on a few decks write a version-4 file that loads."""
    import random

    from carioca_experiments.common.seeds import LUCK_FIT, derive_seed
    from carioca_experiments.studies.luck import fit4
    from carioca_experiments.studies.luck.fit import fit_deck
    from carioca_experiments.studies.luck.measure import play_deal

    value = random_action_value(7)
    v3 = value.draw
    for d, contract in ((0, 1), (1, 2)):
        deck, dealer = fit_deck(random.Random(derive_seed(LUCK_FIT, 99, "test", d)), 2)
        specs, seeds = ("heuristic", "greedy"), [11 + d, 12 + d]
        r = fit4.play_game(deck, dealer, contract, specs, seeds, 5, 600, v3)
        game = Game.from_deck(deck, dealer, GameConfig(num_players=2, deals=(contract,)), 5)
        agents = [make_agent(sp, sd) for sp, sd in zip(specs, seeds)]
        for a, sd in zip(agents, seeds):
            a.reset(sd)
        t4, t3 = LuckTracker(value, 2), LuckTracker(v3, 2)
        assert play_deal(game, agents, 600, [t4, t3]) == r["penalty"].tolist()
        assert t4.actions == r["actions"] > 0
        np.testing.assert_allclose(r["v3"], t3.corrections, atol=1e-9)
        w = value.actions[f"p2-c{contract}"].ravel()
        np.testing.assert_allclose(r["action_sums"] @ w, t4.corrections - t3.corrections, atol=1e-6)
    out = tmp_path / "fit"
    fit4.record(fit4.Fit4Config("record", (2,), (1,), 10, 4, 600, str(out)), log=lambda m: None)
    written = fit4.fit(fit4.Fit4Config("fit", (2,), (1,), 10, 4, 600, str(out)), log=lambda m: None)
    loaded = load_value(out / "value.json")
    assert isinstance(loaded, ActionValue) and loaded.fingerprint == written.fingerprint
    assert loaded.meta["fit_report"]["p2-c1"]["kind"] in ("v3", "v3+actions", "joint")
