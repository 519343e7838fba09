"""Beliefs about the hidden hands (carioca_agents.belief): the interface, the exact-marginal
sampler, the spec key of search, and that nothing hidden is read."""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from carioca_agents.allowlist import Allowlist
from carioca_agents.belief import BELIEFS, RuleBelief, UniformBelief, make_belief
from carioca_agents.belief.features import NUM_FEATURES, declined_cards
from carioca_agents.belief.inferred import InferredBelief
from carioca_agents.belief.learned import LearnedBelief
from carioca_agents.belief.model import BeliefModel
from carioca_agents.belief.sampling import inclusion, sample_hidden, systematic_sample
from carioca_agents.heuristic import HeuristicAgent
from carioca_agents.registry import SpecError, make_agent
from carioca_agents.search import SearchAgent
from carioca_env import Game, GameConfig, MoveKind
from carioca_env.cards import NUM_CARD_TYPES, cards_of
from carioca_env.determinize import hidden_slots, unseen_pool

from random_play import against_heuristic, heuristic_states


def _states() -> list[Game]:
    return [g for n, deal, seed in ((2, 4, 1), (3, 1, 2), (4, 6, 3), (2, 7, 4)) for g in heuristic_states(n, deal, seed, every=5)][::2]


def _beliefs() -> list:
    return [UniformBelief(), RuleBelief(samples=8), InferredBelief(UniformBelief(), pool=8)]


# ---------------------------------------------------------------------------- the interface


def test_every_belief_keeps_the_view_and_the_surely_held_cards() -> None:
    checked = 0
    for k, game in enumerate(_states()):
        seat = k % game.num_players
        view = game.view(seat)
        for belief in _beliefs():
            det = belief.sample(view, random.Random(k))
            assert det.view(seat) == view  # own hand, table, pile, sizes, known cards, history
            for s in range(game.num_players):
                assert det.hand_sizes[s] == view.hand_sizes[s]
                assert all(det.hands[s][c] >= n for c, n in enumerate(view.known_cards[s]))
            assert len(det.stock) == view.stock_size
            assert belief.sample(view, random.Random(k)).hands == det.hands  # seeded
            checked += 1
    assert checked > 40


def test_expected_hidden_counts_sum_to_the_hidden_places() -> None:
    for k, game in enumerate(_states()[::3]):
        seat = k % game.num_players
        view = game.view(seat)
        pool = np.array(unseen_pool(view), dtype=float)
        slots = hidden_slots(view)
        for belief in _beliefs():
            e = belief.expected_hidden(view)
            assert e.shape == (game.num_players, NUM_CARD_TYPES)
            assert np.allclose(e.sum(axis=1), slots)
            assert np.all(e >= 0) and np.all(e.sum(axis=0) <= pool + 1e-9)
            assert not e[seat].any()
        uniform = UniformBelief().expected_hidden(view)
        for s in range(game.num_players):
            if pool.sum():
                assert np.allclose(uniform[s], pool * slots[s] / pool.sum())


def test_make_belief_names() -> None:
    assert isinstance(make_belief("uniform"), UniformBelief)
    rule = make_belief("rule", 3.0)
    assert isinstance(rule, RuleBelief) and rule.factor == 3.0
    with pytest.raises(ValueError, match="unknown belief 'psychic'"):
        make_belief("psychic")
    assert BELIEFS == ("uniform", "rule", "learned", "inferred")
    inferred = make_belief("inferred", base="uniform", pool=5)
    assert isinstance(inferred, InferredBelief) and isinstance(inferred.base, UniformBelief) and inferred.pool == 5
    with pytest.raises(ValueError, match="cannot be the inferred belief"):
        make_belief("inferred", base="inferred")
    with pytest.raises(ValueError, match="pool must be >= 1"):
        make_belief("inferred", base="uniform", pool=0)


# ---------------------------------------------------------------------------- the sampler


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 4), st.floats(0.01, 100.0)), min_size=1, max_size=NUM_CARD_TYPES),
    st.data(),
)
def test_inclusion_probabilities_sum_to_the_hand_and_stay_proportional_below_the_cap(
        rows: list[tuple[int, float]], data: st.DataObject) -> None:
    pool = [r[0] for r in rows]
    weights = [r[1] for r in rows]
    k = data.draw(st.integers(0, sum(pool)))
    p = inclusion(weights, pool, k)
    assert abs(sum(n * x for n, x in zip(pool, p)) - k) < 1e-6
    assert all(0.0 <= x <= 1.0 for x in p)
    assert all(x == 0.0 for n, x in zip(pool, p) if n == 0)
    free = [(w, x) for n, w, x in zip(pool, weights, p) if n and x < 1.0 - 1e-12]
    for (w1, x1), (w2, x2) in zip(free, free[1:]):
        assert abs(x1 * w2 - x2 * w1) < 1e-6 * max(1.0, w1 * w2)  # same lam for every uncapped type
    capped = [w for n, w, x in zip(pool, weights, p) if n and x >= 1.0 - 1e-12]
    if capped and free:
        assert min(capped) >= max(w for w, _ in free) * (1 - 1e-9)  # only the heaviest saturate


def test_inclusion_refuses_impossible_hands() -> None:
    with pytest.raises(ValueError, match="cannot come from"):
        inclusion([1.0, 1.0], [1, 1], 3)
    with pytest.raises(ValueError, match="positive weight"):
        inclusion([1.0, 0.0], [1, 1], 1)


@pytest.mark.parametrize("seed", [0, 1])
def test_systematic_samples_follow_the_marginals(seed: int) -> None:
    """Chi-square over card types: the mean counts of 4,000 seeded samples against the
    expected counts pool * p (each type's count is a sum of copies; the variance of a
    count is bounded by its binomial variance, so the statistic is conservative)."""
    rng = np.random.default_rng(seed)
    pool = [int(x) for x in rng.integers(0, 3, size=NUM_CARD_TYPES)]
    weights = list(np.exp(rng.normal(0, 1.2, size=NUM_CARD_TYPES)))
    units = cards_of(pool)
    k = 11
    p = inclusion(weights, pool, k)
    draws = 4000
    counts = np.zeros(NUM_CARD_TYPES)
    r = random.Random(seed)
    for _ in range(draws):
        chosen, left = systematic_sample(units, p, k, r)
        assert len(chosen) == k and Counter(chosen) + Counter(left) == Counter(units)
        for c in chosen:
            counts[c] += 1
    expected = np.array(pool) * np.array(p) * draws
    live = (expected > 0) & (np.array(p) < 1.0 - 1e-12)
    var = np.array(pool) * np.array(p) * (1 - np.array(p)) * draws  # binomial variance of a type's total
    chi2 = float(((counts - expected)[live] ** 2 / var[live]).sum())
    dof = int(live.sum())
    # the 99.9% quantile of chi-square with dof degrees of freedom is below dof + 4.5 sqrt(2 dof) here
    assert chi2 < dof + 4.5 * (2 * dof) ** 0.5, (chi2, dof)
    assert np.all(counts[np.array(p) >= 1.0 - 1e-12] == (np.array(pool) * draws)[np.array(p) >= 1.0 - 1e-12])
    # and it is not merely loose: the means match closely
    assert np.max(np.abs(counts - expected)[live] / draws) < 0.05


def test_sample_hidden_deals_exact_sizes_from_the_unseen_cards() -> None:
    for k, game in enumerate(_states()[::2]):
        seat = k % game.num_players
        view = game.view(seat)
        w = np.exp(np.random.default_rng(k).normal(size=(game.num_players, NUM_CARD_TYPES))).tolist()
        hidden, stock = sample_hidden(view, w, random.Random(k))
        assert [len(h) for h in hidden] == hidden_slots(view) and len(stock) == view.stock_size
        assert Counter(c for h in hidden for c in h) + Counter(stock) == Counter(cards_of(unseen_pool(view)))
        assert (hidden, stock) == sample_hidden(view, w, random.Random(k))
    with pytest.raises(TypeError, match="random.Random"):
        sample_hidden(view, w, np.random.default_rng(0))


# ---------------------------------------------------------------------------- features


def test_declined_cards_replay_the_pile() -> None:
    """The top discard each seat left when it drew from the stock, tracked on the real
    game move by move, equals what the view's history reconstructs."""
    for n, deal, seed in ((2, 1, 11), (3, 3, 12), (4, 7, 13)):
        game = Game(GameConfig(n, (deal,)), seed=seed)
        agents = [HeuristicAgent(seed + i) for i in range(n)]
        truth = [[0] * NUM_CARD_TYPES for _ in range(n)]
        steps = 0
        while not game.game_over and not game.deal_results:
            s = game.current
            move = agents[s].act(game.view(s), game.legal_moves())
            if move.kind is MoveKind.DRAW_STOCK and game.discard:
                truth[s][game.discard[-1]] += 1
            game.apply(move)
            steps += 1
            if not game.game_over and not game.deal_results and steps % 3 == 0:
                for seat in range(n):
                    assert declined_cards(game.view(seat)) == truth
        assert sum(map(sum, truth)) > 3


# ---------------------------------------------------------------------------- search's key


def _decisions(spec: str, seed: int = 5) -> list:
    return against_heuristic(make_agent(spec, seed), 1, seed, 40)


def test_belief_key_maps_to_infer_and_changes_nothing_for_old_specs() -> None:
    assert _decisions("search:sims=4") == _decisions("search:sims=4,belief=rule")
    assert _decisions("search:sims=4,infer=0") == _decisions("search:sims=4,belief=uniform")
    assert isinstance(make_agent("search").belief, RuleBelief)
    assert isinstance(make_agent("search:infer=0").belief, UniformBelief)
    assert make_agent("search:belief=rule,infer=3").belief.factor == 3.0


def test_belief_key_is_checked_and_allowed() -> None:
    with pytest.raises(SpecError, match="bad value for belief.*not one of auto, uniform, rule, learned, inferred"):
        make_agent("search:belief=psychic")
    with pytest.raises(SpecError, match="bad value for base"):
        make_agent("search:belief=inferred,base=inferred")
    with pytest.raises(SpecError, match="bad value for belief"):
        make_agent("search:belief=filtered")  # a study's belief (experiments/studies/belief), not the product's
    with pytest.raises(SpecError, match="pool"):
        make_agent("search:belief=inferred,pool=0")
    parsed = Allowlist().check("search:belief=uniform,sims=8")
    assert parsed.args["belief"] == "uniform"
    with pytest.raises(SpecError):
        Allowlist().check("search:belief=../../etc/passwd")
    assert SearchAgent(belief="uniform").belief.name == "uniform"


# ---------------------------------------------------------------------------- the learned belief


def _random_model(seed: int = 0) -> BeliefModel:
    rng = np.random.default_rng(seed)
    return BeliefModel("belief-v0", {c: rng.normal(0, 0.5, NUM_FEATURES) for c in range(1, 8)}, {"test": True})


def _learned(seed: int = 0, calibrated: bool = False) -> LearnedBelief:
    model = _random_model(seed)
    if calibrated:  # flatter and mixed with uniform, as a calibration makes an overconfident model
        model = BeliefModel(model.name, model.weights, model.meta, {c: (0.7, 0.15) for c in range(1, 8)})
    return LearnedBelief(model)


def test_learned_belief_keeps_the_view_and_its_expectation_sums_to_the_hidden_places() -> None:
    belief = _learned()
    for k, game in enumerate(_states()[::2]):
        seat = k % game.num_players
        view = game.view(seat)
        det = belief.sample(view, random.Random(k))
        assert det.view(seat) == view
        assert belief.sample(view, random.Random(k)).hands == det.hands
        e = belief.expected_hidden(view)
        assert np.allclose(e.sum(axis=1), hidden_slots(view))
        assert np.all(e <= np.array(unseen_pool(view)) + 1e-9) and not e[seat].any()


@pytest.mark.parametrize("calibrated", [False, True])
def test_learned_samples_follow_the_learned_marginals(calibrated: bool) -> None:
    """Chi-square, seeded: at 2 players (one opponent: the sampler's marginals are exact)
    the mean hidden counts of 3,000 determinizations against the belief's expected counts,
    calibrated (a temperature and a uniform part) or not."""
    belief = _learned(3, calibrated)
    states = [g for g in heuristic_states(2, 5, 21, every=9) if not g.opened[1]]
    game = states[len(states) // 2]
    view = game.view(0)
    e = belief.expected_hidden(view)[1]
    pool = np.array(unseen_pool(view), dtype=float)
    assert np.std(e[pool > 0] / pool[pool > 0]) > 0.01  # the weights are far from uniform
    draws = 3000
    counts = np.zeros(NUM_CARD_TYPES)
    rng = random.Random(7)
    for _ in range(draws):
        det = belief.sample(view, rng)
        counts += np.array(det.hands[1]) - np.array(view.known_cards[1])
    p = np.divide(e, pool, out=np.zeros_like(e), where=pool > 0)
    live = (p > 0) & (p < 1 - 1e-12)
    var = pool * p * (1 - p) * draws
    chi2 = float(((counts - e * draws)[live] ** 2 / var[live]).sum())
    dof = int(live.sum())
    assert chi2 < dof + 4.5 * (2 * dof) ** 0.5, (chi2, dof)
    # a sampler that ignored the weights would fail: the uniform expectation is far off
    uni = UniformBelief().expected_hidden(view)[1] * draws
    chi2_uniform = float(((counts - uni)[live] ** 2 / var[live]).sum())
    assert chi2_uniform > dof + 4.5 * (2 * dof) ** 0.5


class _Poison:
    """Anything read from it raises: a hidden field a belief must never touch."""

    def __getattr__(self, name: str):
        raise AssertionError(f"hidden state read ({name})")

    def __getitem__(self, key):
        raise AssertionError("hidden state read")

    def __iter__(self):
        raise AssertionError("hidden state read")

    def __len__(self):
        raise AssertionError("hidden state read")


@pytest.mark.parametrize("name", ["uniform", "rule", "learned", "calibrated", "inferred"])
def test_beliefs_read_only_the_view(name: str) -> None:
    """Two games whose views are identical but whose hidden hands and stock differ give the
    same expectation and the same samples; and a game whose hidden fields are poisoned
    after its view is taken changes nothing either."""
    belief = {"uniform": UniformBelief(), "rule": RuleBelief(samples=4), "learned": _learned(1),
              "calibrated": _learned(1, calibrated=True), "inferred": InferredBelief(_learned(1), pool=6)}[name]
    differing = 0
    for k, game in enumerate(_states()[::4]):
        seat = game.current
        view = game.view(seat)
        other = game.determinize(seat, np.random.default_rng(k))
        assert other.view(seat) == view
        differing += (other.hands, other.stock) != (game.hands, game.stock)
        a_exp, a_det = belief.expected_hidden(view), belief.sample(view, random.Random(k))
        b_view = other.view(seat)
        assert np.array_equal(a_exp, belief.expected_hidden(b_view))
        b_det = belief.sample(b_view, random.Random(k))
        assert (a_det.hands, a_det.stock) == (b_det.hands, b_det.stock)
        poisoned = game.clone()
        p_view = poisoned.view(seat)
        for s in range(game.num_players):
            if s != seat:
                poisoned.hands[s] = _Poison()
        poisoned.stock = _Poison()
        poisoned.rng = _Poison()
        assert np.array_equal(a_exp, belief.expected_hidden(p_view))
        p_det = belief.sample(p_view, random.Random(k))
        assert (a_det.hands, a_det.stock) == (p_det.hands, p_det.stock)
    assert differing >= 3


def test_search_with_the_learned_belief_reads_only_the_view(monkeypatch: pytest.MonkeyPatch) -> None:
    import carioca_agents.belief.learned as learned_mod

    monkeypatch.setattr(learned_mod, "load_belief_model", lambda name: _random_model(2))
    for k, game in enumerate(_states()[::9]):
        seat = game.current
        legal = game.legal_moves()
        other = game.determinize(seat, np.random.default_rng(k))
        if len(legal) > 1:
            a = make_agent("search:sims=4,belief=learned", k).act(game.view(seat), legal)
            b = make_agent("search:sims=4,belief=learned", k).act(other.view(seat), legal)
            assert a == b


# ---------------------------------------------------------------------------- model files


def test_a_model_file_round_trips_and_its_fingerprint_is_checked(tmp_path) -> None:
    from carioca_agents.belief.model import BeliefModelError, load_belief_model

    model = _random_model(4)
    path = model.save(tmp_path / "m.json")
    back = load_belief_model(path)
    assert back.fingerprint == model.fingerprint and back.meta == {"test": True}
    assert all(np.allclose(back.weights[c], model.weights[c]) for c in model.weights)
    text = path.read_text()
    import json

    data = json.loads(text)
    data["weights"]["4"][0] += 1.0
    (tmp_path / "altered.json").write_text(json.dumps(data))
    with pytest.raises(BeliefModelError, match="fingerprint does not match"):
        load_belief_model(tmp_path / "altered.json")
    data = json.loads(text)
    data["features"] = data["features"][:-1]
    (tmp_path / "features.json").write_text(json.dumps(data))
    with pytest.raises(BeliefModelError, match="other features"):
        load_belief_model(tmp_path / "features.json")
    data = json.loads(text)
    data["weights"]["9"] = data["weights"]["4"]
    (tmp_path / "contract.json").write_text(json.dumps(data))
    with pytest.raises(BeliefModelError, match="no contract"):
        load_belief_model(tmp_path / "contract.json")
    (tmp_path / "junk.json").write_text("{not json")
    with pytest.raises(BeliefModelError, match="not JSON"):
        load_belief_model(tmp_path / "junk.json")
    with pytest.raises(BeliefModelError, match="cannot read"):
        load_belief_model(tmp_path / "missing.json")
    with pytest.raises(BeliefModelError, match="no shipped belief model named 'belief-v99'"):
        load_belief_model("belief-v99")


def test_the_calibration_is_a_temperature_and_a_uniform_mixture() -> None:
    """The calibrated expectation is ``(1 - u) * p_t + u * k / unseen`` with ``p_t`` the
    water-filled probabilities of the logits times ``t``; its rows still sum to the hidden
    places and no copy is certain."""
    plain, cal = _learned(2), _learned(2, calibrated=True)
    t, u = cal.model.calibrated(4)
    tempered = LearnedBelief(BeliefModel("belief-v0", {c: t * w for c, w in plain.model.weights.items()}))
    checked = 0
    for game in _states():
        for seat in range(game.num_players):
            view = game.view(seat)
            pool = np.array(unseen_pool(view), dtype=float)
            e_t, e_c = tempered.expected_hidden(view), cal.expected_hidden(view)
            for s, k in enumerate(hidden_slots(view)):
                if k and s != seat:
                    want = (1 - u) * e_t[s] + u * k / pool.sum() * pool
                    assert np.allclose(e_c[s], want, atol=1e-9)
                    live = pool > 0
                    assert np.all(e_c[s][live] / pool[live] < 1) and e_c[s].sum() == pytest.approx(k)
                    checked += 1
    assert checked > 10


def test_a_calibrated_model_round_trips_and_an_old_format_still_loads(tmp_path) -> None:
    import json

    from carioca_agents.belief.model import SHIPPED_DIR, BeliefModelError, load_belief_model

    model = _learned(5, calibrated=True).model
    path = model.save(tmp_path / "c.json")
    back = load_belief_model(path)
    assert back.calibration == model.calibration and back.fingerprint == model.fingerprint
    assert back.fingerprint != _random_model(5).fingerprint  # the calibration is part of the hash
    data = json.loads(path.read_text())
    data["calibration"]["3"][0] = 0.9
    (tmp_path / "altered.json").write_text(json.dumps(data))
    with pytest.raises(BeliefModelError, match="fingerprint does not match"):
        load_belief_model(tmp_path / "altered.json")
    for bad in ([0.0, 0.1], [1.0, 1.0], [1.0, -0.1], [1.0], ["1", 0.1], [True, 0.0]):
        data = json.loads(path.read_text())
        data["calibration"]["3"] = bad
        (tmp_path / "bad.json").write_text(json.dumps(data))
        with pytest.raises(BeliefModelError, match="calibration"):
            load_belief_model(tmp_path / "bad.json")
    with pytest.raises(BeliefModelError, match="temperature > 0"):
        BeliefModel("belief-v0", model.weights, {}, {4: (0.0, 0.1)})
    # the first shipped model, written in format 1 before calibrations existed
    v1 = load_belief_model("belief-v1")
    assert json.loads((SHIPPED_DIR / "belief-v1.json").read_text())["format"] == 1
    assert v1.calibration == {} and v1.calibrated(4) == (1.0, 0.0) and v1.fingerprint == "5629d43ea77973c2"


def test_learned_means_the_newest_shipped_model_a_calibration_of_the_first() -> None:
    import re

    from carioca_agents.belief.model import SHIPPED_BELIEF, SHIPPED_DIR, load_belief_model

    versions = [int(m.group(1)) for p in SHIPPED_DIR.glob("belief-v*.json") if (m := re.match(r"belief-v(\d+)$", p.stem))]
    assert SHIPPED_BELIEF == f"belief-v{max(versions)}"
    v1, v2 = load_belief_model("belief-v1"), load_belief_model("belief-v2")
    assert all(np.array_equal(v1.weights[c], v2.weights[c]) for c in range(1, 8))
    assert set(v2.calibration) == set(range(1, 8))
    cal = v2.meta["calibration"]
    assert cal["base_fingerprint"] == v1.fingerprint and cal["seed_namespace"] == "carioca-belief"
    assert v1.meta["fit"]["seed"] not in cal["validation_seeds"]  # other deals than the fit's


def test_the_shipped_belief_loads_by_name_and_was_fitted_off_evaluation_decks() -> None:
    from carioca_agents.belief.model import SHIPPED_BELIEF, SHIPPED_DIR, load_belief_model

    model = load_belief_model(SHIPPED_BELIEF)
    assert model.name == SHIPPED_BELIEF and set(model.weights) == set(range(1, 8))
    assert model.meta["seed_namespace"] == "carioca-belief" and "held out" in model.meta["heldout_rule"]
    assert (SHIPPED_DIR / f"{SHIPPED_BELIEF}.json").stat().st_size < 64 * 1024
    belief = make_belief("learned")
    assert isinstance(belief, LearnedBelief) and belief.model.fingerprint == model.fingerprint
    assert make_belief(SHIPPED_BELIEF).model.fingerprint == model.fingerprint


def test_search_plays_legally_with_the_learned_belief() -> None:
    search = make_agent("search:sims=2,belief=learned", 8)
    assert isinstance(search.belief, LearnedBelief)
    assert against_heuristic(search, 6, 8, 60)  # each move checked legal
