"""The PettingZoo environment carioca_v0: API conformance, spaces, masks, rewards, leaks."""

from __future__ import annotations

import copy
import functools
import random
import re

import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test

import carioca_agents.advice as advice_module  # the advice feature sets (their tables are in its docstring)
from carioca_env import Game, GameConfig, MoveKind, Phase, carioca_v0
from carioca_env import observation as observation_module
from carioca_env.actions import ActionKind, action_table
from carioca_env.cards import JOKER, NUM_CARD_TYPES, cards_of, deck_counts, make_card
from carioca_env.decks import stack_deck
from carioca_env.env import CariocaState, EnvConfig, IllegalActionError, raw_env, worst_return
from carioca_env.errors import InvalidConfigError
from carioca_env.melds import Meld, position_card
from carioca_env.observation import encode_observation, feature_sets, obs_layout
from carioca_env.openings import CONTRACTS

#: the documented tables: the core's, then those of the feature sets agents registers
_DOC = (observation_module.__doc__ or "") + (advice_module.__doc__ or "")
# importing the module registers nothing (the core finds the sets through their entry
# points when an env asks): registered here, so that this list does not depend on which
# test modules were collected first
advice_module.register_advice()
FEATURE_SETS = feature_sets()


@pytest.mark.parametrize("n", [2, 3, 4])
def test_pettingzoo_api_seed_and_render_tests_pass(n: int) -> None:
    api_test(carioca_v0.env(num_players=n, max_turns=60), num_cycles=400)
    seed_test(functools.partial(carioca_v0.env, num_players=n), num_cycles=400)
    render_test(functools.partial(carioca_v0.env, num_players=n))


def test_metadata_agents_and_cached_spaces() -> None:
    env = carioca_v0.env(num_players=3)
    env.reset(seed=1)
    assert env.metadata["name"] == "carioca_v0"
    assert env.possible_agents == ["player_0", "player_1", "player_2"]
    assert env.observation_space("player_1") is env.observation_space("player_1")
    assert env.action_space("player_2") is env.action_space("player_2")
    obs = env.observe("player_0")
    assert obs["observation"].dtype == np.float32 and obs["action_mask"].dtype == np.int8


@pytest.mark.parametrize("n", [2, 3, 4])
def test_action_table_size_equals_action_space_and_ranges_tile_it(n: int) -> None:
    env = raw_env(num_players=n)
    table = action_table(n)
    assert table.size == env.action_space("player_0").n
    ranges = list(table.ranges.values())
    assert ranges[0].start == 0 and ranges[-1].stop == table.size
    for a, b in zip(ranges, ranges[1:]):
        assert a.stop == b.start
    assert len(table.ranges[ActionKind.DISCARD]) == NUM_CARD_TYPES
    assert len(table.ranges[ActionKind.OPEN_MELD]) == 13 * (16 + 10) + 4 * 11 * 5
    assert len(table.ranges[ActionKind.LAY_OFF]) == NUM_CARD_TYPES * n * 3 * 3
    assert len(table.ranges[ActionKind.SWAP]) == JOKER * n * 3 * 2


@pytest.mark.parametrize("n", [2, 4])
def test_every_action_string_parses_back_to_its_id(n: int) -> None:
    table = action_table(n)
    strings = [table.action_to_string(a) for a in range(table.size)]
    assert len(set(strings)) == table.size
    for a, s in enumerate(strings):
        assert table.string_to_action(s) == a


def test_bad_action_string_and_out_of_range_id_are_refused() -> None:
    table = action_table(2)
    with pytest.raises(Exception, match="no action of carioca_v0"):
        table.string_to_action("lay 8S +7.0")
    with pytest.raises(ValueError, match="outside the action space"):
        table.decode(table.size)


def _parse_doc_tables(doc: str) -> list[list[tuple[str, str]]]:
    """Every RST simple table of ``doc``: its ``(name, size)`` rows."""
    tables = []
    lines = doc.splitlines()
    bars = [i for i, ln in enumerate(lines) if re.fullmatch(r"=+( +=+)+", ln.strip())]
    for top, head, bottom in zip(bars[0::3], bars[1::3], bars[2::3]):
        rows = []
        for ln in lines[head + 1 : bottom]:
            m = re.match(r"^(\w+)\s{2,}(\S.*?)\s{2,}", ln)
            if m:
                rows.append((m.group(1), m.group(2).strip()))
        tables.append(rows)
    return tables


@pytest.mark.parametrize("features", FEATURE_SETS)
@pytest.mark.parametrize("n", [2, 3, 4])
def test_observation_docstring_table_matches_layout(n: int, features: str) -> None:
    """The module docstring's tables (base, then one per feature set's added pieces) are the layout."""
    tables = _parse_doc_tables(_DOC)
    assert len(tables) == len(FEATURE_SETS)
    doc_rows = [row for t in tables[: FEATURE_SETS.index(features) + 1] for row in t]
    layout = obs_layout(n, features)
    assert [name for name, _ in doc_rows] == [name for name, _, _, _ in layout.table()]
    offset = 0
    for (name, size_expr), (lname, loffset, lsize, _) in zip(doc_rows, layout.table()):
        size = eval(size_expr.replace("x", "*"), {"n": n})  # sizes like "n x 3 x 49"
        assert size == lsize, name
        assert loffset == offset, name
        offset += size
    assert offset == layout.size
    label = "Sizes" if features == "base" else f"Sizes with {features}"
    sizes = re.search(label + r": 2 players ([\d,]+), 3 players ([\d,]+), 4 players ([\d,]+)", _DOC)
    assert sizes is not None
    assert int(sizes.group(n - 1).replace(",", "")) == layout.size


def _random_states(n: int, deal: int, seed: int, count: int, bias: float = 0.85):
    """States of a CariocaState reached by a random policy that likes to meld."""
    rng = random.Random(seed)
    game = Game(GameConfig(num_players=n, deals=(deal,)), seed=seed)
    state = CariocaState(game)
    out = []
    steps = 0
    while not game.game_over and len(out) < count and steps < 5000:
        steps += 1
        mask = state.mask()
        legal = np.flatnonzero(mask)
        melding = [a for a in legal if action_table(n).decode(int(a)).kind in (ActionKind.OPEN_MELD, ActionKind.LAY_OFF, ActionKind.SWAP)]
        if rng.random() < 0.4:
            out.append(copy.deepcopy(state))
        if melding and rng.random() < bias:
            a = rng.choice(melding)
        elif game.phase is Phase.DRAW and rng.random() < 0.5 and mask[action_table(n).draw_discard()]:
            a = action_table(n).draw_discard()
        else:
            a = int(rng.choice(list(legal)))
        state.step(int(a))
    return out


def _expected_mask(state: CariocaState) -> np.ndarray:
    """The mask derived from the engine's legal moves, computed without the env's cache."""
    game, table = state.game, state.table
    actor = game.current_player
    legal = game.legal_moves()
    expected = np.zeros(table.size, dtype=np.int8)
    k = len(state.pending)
    for move in legal:
        if move.kind is MoveKind.OPEN:
            if tuple(move.melds[:k]) == tuple(state.pending):
                expected[table.open_meld(move.melds[k])] = 1
        elif k == 0:
            expected[table.move_actions(move, actor)[0]] = 1
    return expected


@pytest.mark.parametrize("n", [2, 3, 4])
@pytest.mark.parametrize("deal", [1, 2, 3, 4, 5, 6, 7])
def test_mask_is_exact_against_engine_on_random_states(n: int, deal: int) -> None:
    """mask[a] == 1 exactly when decoding a gives a legal engine move (or opening step)."""
    table = action_table(n)
    phases: set[str] = set()
    for seed in range(2):
        for state in _random_states(n, deal, seed * 10 + deal, 8):
            mask = state.mask()
            assert np.array_equal(mask, _expected_mask(state))
            game = state.game
            phases.add("pending" if state.pending else game.phase.value)
            for a in range(table.size):
                decoded = table.to_move(a, game.current_player)
                if isinstance(decoded, Meld):
                    continue  # opening steps are checked by the reachability test
                if state.pending:
                    assert not mask[a]
                else:
                    assert bool(mask[a]) == game.is_legal(decoded), table.action_to_string(a)
    assert {"draw", "play"} <= phases


def _complete_openings(state: CariocaState) -> set[tuple[Meld, ...]]:
    """Every sequence of opening steps the mask allows, followed to its end."""
    table = state.table
    done: set[tuple[Meld, ...]] = set()
    need = state.game.contract.trios + state.game.contract.runs

    def walk(prefix: list[Meld]) -> None:
        state.pending = list(prefix)
        state.forget()  # the mask must follow the prefix being explored
        ids = [int(a) for a in np.flatnonzero(state.mask()) if table.decode(int(a)).kind is ActionKind.OPEN_MELD]
        for a in ids:
            meld = table.decode(a).meld
            if len(prefix) + 1 == need:
                done.add(tuple(prefix + [meld]))
            else:
                walk(prefix + [meld])

    walk([])
    state.pending = []
    state.forget()
    return done


def _opening_state(deal: int, seed: int) -> CariocaState:
    """A 2-player state in the play phase whose actor holds the contract, jokers and extras."""
    rng = random.Random(seed)
    contract = CONTRACTS[deal]
    left = deck_counts()
    hand: list[int] = []

    def take(card: int) -> None:
        if left[card]:
            left[card] -= 1
            hand.append(card)

    for _ in range(contract.trios):
        rank = rng.randint(1, 13)
        for suit in rng.sample(range(4), 3):
            take(make_card(rank, suit))
    for _ in range(contract.runs):
        suit, lo = rng.randrange(4), rng.randint(1, 9)
        for p in range(lo, lo + (4 if deal >= 6 else rng.choice((4, 5, 6)))):
            take(position_card(suit, p))
    hand = hand[: contract.hand_size - 1]
    take(JOKER)
    if rng.random() < 0.5:
        take(JOKER)
    while len(hand) < contract.hand_size:
        take(rng.choice([c for c in range(NUM_CARD_TYPES) if left[c]]))
    rest = cards_of(left)
    rng.shuffle(rest)
    other = rest[: contract.hand_size]
    upcard, stock_top = rest[contract.hand_size], rest[contract.hand_size + 1 : contract.hand_size + 2]
    deck = stack_deck([hand[: contract.hand_size], other], upcard, stock_top, dealer=1)
    state = CariocaState(Game.from_deck(deck, 1, GameConfig(num_players=2, deals=(deal,)), seed))
    state.step(state.table.draw_stock())
    return state


@pytest.mark.parametrize("deal", [1, 2, 3, 4, 5, 6, 7])
def test_every_engine_opening_is_reachable_and_every_step_sequence_is_legal(deal: int) -> None:
    with_openings = 0
    many = 0
    for seed in range(12):
        state = _opening_state(deal, seed)
        game = state.game
        engine = {m.melds for m in game.legal_moves() if m.kind is MoveKind.OPEN}
        reached = _complete_openings(state)
        assert reached == engine
        with_openings += bool(engine)
        many += len(engine) > 1
        for melds in sorted(reached)[:: max(1, len(reached) // 8)]:
            probe = copy.deepcopy(state)
            for meld in melds:
                probe.step(probe.table.open_meld(meld))
            assert probe.game.opened[0] and probe.game.phase is Phase.DISCARD
            assert probe.game.table_melds()[0] == list(melds)
    assert with_openings >= 6 and many >= 3


def _shuffle_hidden(game: Game, seat: int, rng: random.Random) -> Game:
    """The same game for ``seat`` with the other hands and the stock dealt differently.

    Cards the seat knows an opponent holds (taken from the discard pile) stay there.
    """
    g = copy.deepcopy(game)
    pool: list[int] = list(g.stock)
    others = [s for s in range(g.num_players) if s != seat]
    for s in others:
        for c in range(NUM_CARD_TYPES):
            free = g.hands[s][c] - g.known[s][c]
            pool.extend([c] * free)
            g.hands[s][c] -= free
    rng.shuffle(pool)
    for s in others:
        need = g.hand_sizes[s] - sum(g.hands[s])
        for c in pool[:need]:
            g.hands[s][c] += 1
        pool = pool[need:]
    g.stock = pool
    return g


@pytest.mark.parametrize("n", [2, 3, 4])
def test_observation_does_not_depend_on_hidden_cards(n: int) -> None:
    rng = random.Random(5)
    changed_hidden = 0
    for deal in (1, 3, 7):
        for state in _random_states(n, deal, 77 + deal, 12):
            game = state.game
            for seat in range(n):
                other = _shuffle_hidden(game, seat, rng)
                if any(other.hands[s] != game.hands[s] for s in range(n)):
                    changed_hidden += 1
                pending = state.pending if seat == game.current_player else ()
                assert np.array_equal(
                    encode_observation(game.view(seat), pending), encode_observation(other.view(seat), pending)
                )
    assert changed_hidden > 20


def test_observation_does_see_own_hand_change() -> None:
    game = Game(GameConfig(num_players=2, deals=(1,)), seed=3)
    before = encode_observation(game.view(0))
    game.hands[0][game.hand(0)[0]] -= 1
    game.hands[0][JOKER] += 1
    assert not np.array_equal(before, encode_observation(game.view(0)))


def _play_random(env, seed: int) -> tuple[list[int], dict[str, float]]:
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    actions = []
    returns = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        returns[agent] += reward
        if term or trunc:
            action = None
        else:
            action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
            actions.append(action)
        env.step(action)
    return actions, returns


def test_seeded_random_game_through_aec_is_identical_on_replay() -> None:
    a1, r1 = _play_random(carioca_v0.env(num_players=3, deals=(1, 2), max_turns=300), 11)
    a2, r2 = _play_random(carioca_v0.env(num_players=3, deals=(1, 2), max_turns=300), 11)
    a3, _ = _play_random(carioca_v0.env(num_players=3, deals=(1, 2), max_turns=300), 12)
    assert a1 == a2 and r1 == r2
    assert a1 != a3


def test_penalty_rewards_sum_to_minus_totals() -> None:
    env = carioca_v0.env(num_players=2, deals=(1, 2), max_turns=None)
    finished = 0
    for seed in range(30):
        _, returns = _play_random(env, seed)
        game = env.unwrapped.game
        if game.game_over:
            finished += 1
            assert [returns[a] for a in env.possible_agents] == [-t for t in game.totals]
            assert any(t > 0 for t in game.totals)
        if finished >= 2:
            break
    assert finished >= 2


def test_win_rewards_are_plus_one_for_winners_and_minus_one_otherwise() -> None:
    env = carioca_v0.env(num_players=2, deals=(1,), reward="win", max_turns=None)
    _, returns = _play_random(env, 4)
    game = env.unwrapped.game
    assert game.game_over
    for i, a in enumerate(env.possible_agents):
        assert returns[a] == (1.0 if i in game.winners else -1.0)


def test_R17_truncation_is_reported_as_truncation_never_a_result() -> None:
    env = carioca_v0.env(num_players=2, deals=(7,), max_turns=5)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    truncated = False
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        assert reward == 0.0
        assert not term
        if trunc:
            truncated = True
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    game = env.unwrapped.game
    assert truncated and game.turn == 5
    assert game.deal_results == [] and game.totals == [0, 0]


def test_illegal_action_raises_naming_action_and_phase() -> None:
    env = carioca_v0.env(num_players=2, illegal_action="raise")
    env.reset(seed=0)
    discard_8s = env.unwrapped.string_to_action("discard 8S")
    with pytest.raises(IllegalActionError, match=r"discard 8S.*phase draw"):
        env.step(discard_8s)
    # nothing was lost: the same agent can still act legally
    obs, *_ = env.last()
    env.step(int(np.flatnonzero(obs["action_mask"])[0]))


def test_by_default_an_illegal_action_ends_the_episode_with_the_worst_return() -> None:
    # PettingZoo's classic convention (TerminateIllegalWrapper): the game ends, the offender
    # gets the penalty, the others nothing, and its info names the action
    env = carioca_v0.env(num_players=3, deals=(1,))
    env.reset(seed=0)
    agent = env.agent_selection
    discard_8s = env.unwrapped.string_to_action("discard 8S")
    env.step(discard_8s)
    assert all(env.terminations.values()) and not any(env.truncations.values())
    assert env.rewards == {a: (-340.0 if a == agent else 0.0) for a in env.possible_agents}
    assert env.infos[agent]["illegal_action"] == discard_8s
    assert env.unwrapped.config.illegal_reward == worst_return(env.unwrapped.config) == -340.0
    while env.agents:  # every agent is done: each steps None and leaves
        assert env.last()[2]
        env.step(None)
    assert env.unwrapped.game.moves == []  # the illegal action was never played


def test_illegal_action_penalize_option_terminates_with_penalty() -> None:
    env = carioca_v0.env(num_players=2, illegal_action="penalize", illegal_reward=-5.0)
    env.reset(seed=0)
    agent = env.agent_selection
    env.step(env.unwrapped.string_to_action("discard 8S"))
    assert all(env.terminations.values())
    assert env._cumulative_rewards[agent] == -5.0


def test_bad_options_are_refused_clearly() -> None:
    with pytest.raises(InvalidConfigError, match="num_players must be 2, 3 or 4"):
        carioca_v0.env(num_players=5)
    with pytest.raises(InvalidConfigError, match="reward must be one of"):
        EnvConfig(reward="score")
    with pytest.raises(InvalidConfigError, match="contract numbers 1..7"):
        EnvConfig(deals=(8,))


def test_deals_option_plays_only_that_contract() -> None:
    env = carioca_v0.env(num_players=2, deals=(3,))
    env.reset(seed=2)
    assert env.unwrapped.game.contract.number == 3
    obs = env.observe(env.agent_selection)["observation"]
    contract = obs[obs_layout(2).slices["contract"]]
    assert contract.tolist() == [0, 0, 1, 0, 0, 0, 0]


def test_stacked_deck_option_deals_the_given_cards() -> None:
    from carioca_env.cards import full_deck

    deck = full_deck()
    env = carioca_v0.env(num_players=2, deals=(1,))
    env.reset(seed=0, options={"deck": deck, "dealer": 1})
    game = env.unwrapped.game
    assert game.dealer == 1 and game.current_player == 0
    assert game.hand(0) == sorted(deck[0:22:2])


def test_render_shows_only_the_acting_hand_unless_god_view() -> None:
    env = carioca_v0.env(num_players=3, render_mode="ansi")
    env.reset(seed=0)
    assert env.render().count("hand:") == 1
    god = carioca_v0.env(num_players=3, render_mode="ansi", render_all_hands=True)
    god.reset(seed=0)
    assert god.render().count("hand:") == 3


def _melding_walk(n: int, seed: int, steps: int, bias: float = 0.9):
    """Yield (state, action about to be played) along a full game by a policy that likes to meld."""
    rng = random.Random(seed)
    table = action_table(n)
    state = CariocaState(Game(GameConfig(num_players=n), seed=seed))
    for _ in range(steps):
        if state.game.game_over:
            return
        legal = [int(a) for a in np.flatnonzero(state.mask())]
        melding = [a for a in legal if table.decode(a).kind in (ActionKind.OPEN_MELD, ActionKind.LAY_OFF, ActionKind.SWAP)]
        a = rng.choice(melding) if melding and rng.random() < bias else rng.choice(legal)
        yield state, a
        state.step(a)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_fast_encoder_and_mask_equal_the_view_based_reference(n: int) -> None:
    """The env's GameEncoder and ActionTable.game_mask give exactly what the reference
    paths give (encode_observation of the seat's view; legal_mask of legal_moves), for
    every seat at every step of whole games, across deal changes and table changes."""
    table = action_table(n)
    seen: dict[str, int] = {}
    for seed in range(3):
        for state, a in _melding_walk(n, seed, 1500):
            game = state.game
            for seat in range(n):
                pending = state.pending if seat == game.current_player else ()
                fast = state.observe(seat)
                assert np.array_equal(fast, encode_observation(game.view(seat), pending)), (seed, seat, len(game.moves))
            reference = table.legal_mask(game.legal_moves(), game.current_player, state.pending)
            assert np.array_equal(state.mask(), reference)
            kind = table.decode(a).kind.name
            seen[kind] = seen.get(kind, 0) + 1
            seen[f"deal{game.deal_number}"] = 1
    # the walk reached the table-changing actions and later deals, so the caches were exercised
    assert seen.get("LAY_OFF", 0) > 0 and seen.get("OPEN_MELD", 0) > 0, seen
    assert sum(1 for k in seen if k.startswith("deal")) >= 2, seen


def test_fast_encoder_does_not_reuse_one_games_cache_for_another() -> None:
    from carioca_env.observation import GameEncoder

    encoder = GameEncoder(2)
    games = [Game(GameConfig(num_players=2), seed=s) for s in (1, 2)]
    for _ in range(3):
        for game in games:
            for seat in range(2):
                assert np.array_equal(encoder.encode(game, seat), encode_observation(game.view(seat)))
            game.apply(game.legal_moves()[0])


def test_joker_swap_is_seen_by_the_fast_encoder() -> None:
    """A swap keeps the table's card count (a natural replaces a joker): the encoder must
    still notice it (Game.table_version)."""
    swaps = 0
    table = action_table(2)
    for seed in range(40):
        rng = random.Random(seed)
        state = CariocaState(Game(GameConfig(num_players=2), seed=seed))
        for _ in range(3000):
            if state.game.game_over:
                break
            legal = [int(a) for a in np.flatnonzero(state.mask())]
            swap = [a for a in legal if table.decode(a).kind is ActionKind.SWAP]
            melding = [a for a in legal if table.decode(a).kind in (ActionKind.OPEN_MELD, ActionKind.LAY_OFF)]
            if swap:
                seat = state.game.current_player
                before = state.observe(seat)  # fills the cache before the swap
                state.step(swap[0])
                after = state.observe(seat)
                assert not np.array_equal(before, after)
                assert np.array_equal(after, encode_observation(state.game.view(seat)))
                swaps += 1
            else:
                state.step(rng.choice(melding) if melding else rng.choice(legal))
    assert swaps >= 3
