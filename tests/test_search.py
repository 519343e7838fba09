"""The agent spec syntax and the ``search`` agent: legal, seeded, view-only."""

from __future__ import annotations

import random

import numpy as np
import pytest

from carioca_agents.heuristic import V1_PARAMS, HeuristicAgent
from carioca_agents.registry import Param, SpecError, describe, make_agent, register
from carioca_agents.search import SearchAgent
from carioca_env import Game, GameConfig, MoveKind

from random_play import decision_points

# ---------------------------------------------------------------------------- spec syntax


def test_spec_keys_are_typed() -> None:
    agent = make_agent("search:sims=7,top=2,rollout=greedy", seed=3)
    assert isinstance(agent, SearchAgent)
    assert (agent.sims, agent.top, agent.rollout_spec, agent.ms) == (7, 2, "greedy", 0.0)
    assert agent.name == "search:sims=7,top=2,rollout=greedy"
    assert make_agent("search:ms=300,rollout=greedy").ms == 300.0
    from carioca_agents.greedy import GreedyAgent

    assert all(isinstance(p, GreedyAgent) for p in agent.policies)
    assert all(isinstance(p, HeuristicAgent) for p in make_agent("search").policies)
    with pytest.raises(SpecError, match="unknown agent 'nosuch'"):
        make_agent("search:rollout=nosuch")
    h = make_agent("heuristic:preset=v1,w_def=12.5")
    assert isinstance(h, HeuristicAgent) and h.p["w_def"] == 12.5 and h.p["w_out"] == V1_PARAMS["w_out"]


@pytest.mark.parametrize(
    "spec,words",
    [
        ("search:simz=3", ["unknown key 'simz'", "allowed keys of search", "sims (int, default"]),
        ("search:sims=many", ["bad value for sims", "'many' is not an int"]),
        ("search:sims=0", ["below the minimum 1"]),
        ("search:infer=-1", ["bad value for infer", "below the minimum 0"]),
        ("search:sims=3,sims=4", ["given twice"]),
        ("search:sims=3,oops", ["'oops' is not key=value"]),
        ("search:64", ["bare argument needs key=value"]),
        ("heuristic:preset=v9", ["not one of", "tuned"]),
        ("heuristic:w_def=x", ["'x' is not a number"]),
        ("random:extra", ["random takes no arguments"]),
        ("greedy:seed=1", ["greedy takes no arguments"]),
        ("nosuch", ["unknown agent 'nosuch'", "known agents:", "heuristic"]),
    ],
)
def test_spec_errors_name_the_problem_and_the_allowed_keys(spec: str, words: list[str]) -> None:
    with pytest.raises(SpecError) as info:
        make_agent(spec)
    for w in words:
        assert w in str(info.value)
    assert isinstance(info.value, ValueError)


def test_make_agent_refuses_a_non_string_spec() -> None:
    with pytest.raises(TypeError, match=r"make_agent\(spec\).*got None"):
        make_agent(None)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="seed must be an int"):
        make_agent("random", seed="1")  # type: ignore[arg-type]


def test_bare_argument_is_the_default_key_and_raw_factories_still_work() -> None:
    seen = {}

    def raw(arg: str, seed: int):
        seen["raw"] = (arg, seed)
        return make_agent("random", seed)

    register("test-raw", raw)
    make_agent("test-raw:any,text=kept", seed=5)
    assert seen["raw"] == ("any,text=kept", 5)

    def typed(seed: int, path: str, depth: int):
        seen["typed"] = (path, depth, seed)
        return make_agent("random", seed)

    register("test-typed", typed, params={"path": Param(str, ""), "depth": Param(int, 1)}, default_key="path")
    make_agent("test-typed:models/x,y.zip", seed=2)  # no "=": the whole text is the path, commas too
    assert seen["typed"] == ("models/x,y.zip", 1, 2)
    make_agent("test-typed:a/b,depth=3")
    assert seen["typed"] == ("a/b", 3, 0)
    make_agent("test-typed:path=c,depth=4")
    assert seen["typed"] == ("c", 4, 0)
    assert "bare test-typed:VALUE sets path" in describe("test-typed")


# ---------------------------------------------------------------------------- search agent




def test_search_plays_legal_seeded_deals() -> None:
    def deal(seed: int) -> list[str]:
        game = Game(GameConfig(2, (2,)), seed=seed)
        agents = [SearchAgent(seed=seed, sims=4), HeuristicAgent(seed + 1)]
        while not game.game_over and game.turn < 120:
            s = game.current
            game.apply(agents[s].act(game.view(s), game.legal_moves()))  # apply() raises on an illegal move
        return [str(m) for m in game.moves]

    assert deal(3) == deal(3)


def test_search_decisions_depend_only_on_the_view() -> None:
    """Reshuffling the real hidden cards (opponents' hidden hands and the stock),
    consistently with the seat's view, leaves every decision unchanged."""
    differing = 0
    for game in decision_points(3, 1, 8, 6):
        seat = game.current
        other = game.determinize(seat, np.random.default_rng(len(game.moves)))
        assert other.view(seat) == game.view(seat)
        differing += (other.hands, other.stock) != (game.hands, game.stock)
        a = SearchAgent(seed=11, sims=6).act(game.view(seat), game.legal_moves())
        b = SearchAgent(seed=11, sims=6).act(other.view(seat), other.legal_moves())
        assert a == b
    assert differing >= 5  # the hidden cards really were different


def test_forced_moves_cost_no_search_and_melds_follow_the_heuristic() -> None:
    agent = SearchAgent(seed=0, sims=4)
    for game in decision_points(2, 3, 5, 10):
        legal = game.legal_moves()
        view = game.view(game.current)
        move = agent.act(view, legal)
        assert move in legal
        cands = agent.candidates(view, legal)
        if legal[0].kind in (MoveKind.DRAW_STOCK, MoveKind.DRAW_DISCARD):
            assert sorted(map(str, cands)) == sorted(map(str, legal))
        elif any(m.kind is MoveKind.OPEN for m in legal):
            assert len(cands) == 1 and cands[0].kind is MoveKind.OPEN
        else:
            assert 1 <= len(cands) <= agent.top and all(m in legal for m in cands)
    searched = agent.searched
    game = decision_points(2, 3, 5, 1)[0]
    only = [game.legal_moves()[0]]
    assert agent.act(game.view(game.current), only) == only[0] and agent.searched == searched


def test_rollout_value_is_the_deal_penalty_difference() -> None:
    game = decision_points(2, 1, 2, 3)[-1]
    agent = SearchAgent(seed=1, sims=2, rollout="greedy")
    single = game.determinize(game.current, random.Random(0))
    value = agent.rollout(single, 0, 5)
    assert single.game_over
    scores = single.deal_results[-1].scores
    assert value == scores[1] - scores[0]


def test_search_keeps_the_heuristic_move_unless_another_is_clearly_better() -> None:
    agent = SearchAgent(seed=0, sims=4, z=1.5)
    base = [0.0, 10.0, -10.0, 5.0, -5.0, 0.0]
    noisy = [b + d for b, d in zip(base, [8.0, -6.0, 7.0, -5.0, 6.0, -4.0])]  # mean +1, large spread
    clear = [b + d for b, d in zip(base, [3.0, 4.0, 3.5, 4.5, 3.0, 4.0])]  # mean +3.7, small spread
    assert agent.choose([base, noisy]) == 0
    assert agent.choose([base, noisy, clear]) == 2
    assert agent.choose([base, [b - 1 for b in base]]) == 0
    assert SearchAgent(seed=0, sims=4, z=0.0).choose([base, noisy]) == 1  # z=0: the plain argmax


def test_only_contracts_whose_opening_closes_the_deal_are_races() -> None:
    from carioca_agents.search import opening_closes

    races = {deal for deal in range(1, 8) if opening_closes(Game(GameConfig(2, (deal,)), seed=0).view(0))}
    assert races == {6, 7}  # R12: the contract lays the whole hand


def test_race_contracts_use_race_z_and_the_others_z() -> None:
    """A bar no estimate can pass keeps every heuristic move; no bar lets noise through,
    and each contract kind reads its own bar."""
    def deviations(deal: int, z: float, race_z: float) -> int:
        agent = SearchAgent(seed=2, sims=6, top=3, z=z, race_z=race_z)
        out = 0
        for game in decision_points(2, deal, 9, 12):
            view, legal = game.view(game.current), game.legal_moves()
            cands = agent.candidates(view, legal)
            out += len(cands) > 1 and agent.act(view, legal) != cands[0]
        return out

    assert deviations(6, z=0.0, race_z=1e9) == 0
    assert deviations(6, z=1e9, race_z=0.0) > 0
    assert deviations(4, z=1e9, race_z=0.0) == 0
    assert deviations(4, z=0.0, race_z=1e9) > 0
    assert make_agent("search").race_z == 2.5 and make_agent("search:race_z=1.5").race_z == 1.5


def test_race_contracts_weigh_fewer_candidates() -> None:
    """Contracts 6 and 7: at most race_top discards, and no stock draw where the heuristic
    takes the top discard; contract 4 keeps top discards and both draws."""
    seen: set[str] = set()
    for deal, limit in ((6, 2), (7, 2), (4, 4)):
        agent = SearchAgent(seed=1, sims=2, top=4, race_top=2)
        for game in decision_points(2, deal, 21, 30):
            view, legal = game.view(game.current), game.legal_moves()
            cands = agent.candidates(view, legal)
            assert cands and all(m in legal for m in cands)
            kind = cands[0].kind
            if kind is MoveKind.DISCARD:
                assert len(cands) <= limit
                seen.add(f"{deal} discard {len(cands)}")
            elif kind is MoveKind.DRAW_DISCARD:
                assert len(cands) == (1 if deal in (6, 7) else 2)
                seen.add(f"{deal} take")
            elif kind is MoveKind.DRAW_STOCK:
                assert len(cands) == len(legal)  # the top discard stays an alternative
    assert {"6 discard 2", "7 discard 2", "4 discard 4", "4 take"} <= seen and seen & {"6 take", "7 take"}, seen


class _Scripted(SearchAgent):
    """Search whose rollouts return scripted values: candidate i's j-th rollout is
    ``values[i][j]`` (the determinizations are still drawn, as in play)."""

    def __init__(self, values: list[list[float]], **kw) -> None:
        super().__init__(seed=0, **kw)
        self.values = values
        self._count: list[int] = [0] * len(values)

    def evaluate(self, view, candidates, stop=None):  # type: ignore[override]
        self._count = [0] * len(candidates)
        return super().evaluate(view, candidates, stop)

    def rollout(self, game, seat, policy_seed):  # type: ignore[override]
        i = next(i for i, n in enumerate(self._count) if n == min(self._count))
        self._count[i] += 1
        return self.values[i][self._count[i] - 1]


def test_race_search_stops_at_half_when_no_alternative_leads() -> None:
    """At half the budget: no lead of race_stop standard errors -> the rollouts end there;
    a clear lead -> the whole budget; race_stop=0 or an ordinary contract -> the whole budget."""
    game = next(g for g in decision_points(2, 6, 9, 40) if len(SearchAgent(seed=0).candidates(g.view(g.current), g.legal_moves())) == 2)
    view, legal = game.view(game.current), game.legal_moves()
    cands = SearchAgent(seed=0).candidates(view, legal)
    base = [float(x % 5) for x in range(16)]
    behind = [b - 1.0 + (x % 3) for x, b in enumerate(base)]  # mean lead about 0: below 0.5 se
    ahead = [b + 20.0 + (x % 3) for x, b in enumerate(base)]  # a clear lead
    short = _Scripted([base, behind], sims=32)
    assert [len(s) for s in short.evaluate(view, cands, stop=0.5)] == [8, 8]
    full = _Scripted([base, ahead], sims=32)
    full.values = [base + base, ahead + ahead]
    assert [len(s) for s in full.evaluate(view, cands, stop=0.5)] == [16, 16]
    never = _Scripted([base + base, behind + behind], sims=32)
    assert [len(s) for s in never.evaluate(view, cands, stop=None)] == [16, 16]
    # act() applies it only in the race contracts, with the agent's race_stop
    calls: list = []
    for spec_stop, want in ((0.5, 0.5), (0.0, None)):
        agent = SearchAgent(seed=0, sims=4, race_stop=spec_stop)
        agent.evaluate = lambda v, c, stop=None: calls.append(stop) or [[0.0] * 2 for _ in c]  # type: ignore[method-assign]
        agent.act(view, legal)
        assert calls[-1] == want
    c4 = next(g for g in decision_points(2, 4, 9, 40) if len(SearchAgent(seed=0).candidates(g.view(g.current), g.legal_moves())) > 1)
    agent = SearchAgent(seed=0, sims=4)
    agent.evaluate = lambda v, c, stop=None: calls.append(stop) or [[0.0] * 2 for _ in c]  # type: ignore[method-assign]
    agent.act(c4.view(c4.current), c4.legal_moves())
    assert calls[-1] is None
    assert make_agent("search").race_stop == 0.5 and make_agent("search:race_stop=0").race_stop == 0.0
    with pytest.raises(SpecError):
        make_agent("search:race_stop=-1")
