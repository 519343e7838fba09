"""``search``: determinized Monte Carlo (PIMC) over the seat's view.

For a decision with a real choice the agent
  1. takes its candidate moves: in the draw phase, the stock and the top discard; for a
     discard, the ``top`` discards the heuristic ranks best (progressive widening: the
     rest are never better by the heuristic's own reckoning and would cost rollouts);
     openings, lay-offs and joker swaps follow the heuristic (it opens as soon as it can
     and sheds all it can, which search would confirm at a high price);
  2. samples a determinization of the hidden cards from its own :class:`PlayerView` only,
     as a one-deal game, every card it has seen kept in place: by default with the
     opponent model of :mod:`carioca_agents.opponent_model` (``infer=2``: an unopened opponent's
     hidden cards replay twice as many draws as it made from the stock, keeping what
     lowers its deficiency, so it is as far along as real opponents are), or with
     ``infer=0`` uniformly (:func:`carioca_env.determinize.determinize_view`), which
     makes every opponent look slow;
  3. plays each candidate on a clone of that same determinization (common random
     numbers: the candidates are compared on the same deals) and rolls the deal out to
     its end with the rollout policy in every seat (the heuristic by default);
  4. scores a rollout by the deal penalty difference, the mean penalty of the other
     seats minus its own (a rollout cut off after ``horizon`` turns is scored by the
     penalties of the hands it reached), and plays the heuristic's move unless another
     candidate beats it on the same determinizations by more than ``z`` standard errors
     of the paired difference (then the best such one).  Not a plain argmax of the means: a
     deal's penalty difference varies far more than the candidates differ.  In a contract
     whose opening closes the deal (6 and 7, R12) the bar is ``race_z`` instead: such a
     deal is a race that the loser pays with its whole hand, so a rollout is worth all or
     nothing and the few rollouts of a decision cannot tell candidates apart; at the
     lower bar most deviations there are noise.  For the same reason search there
     weighs only the alternatives that are not known to be bad on average: the
     heuristic's ``race_top`` best discards, and the stock draw only when the heuristic
     would draw from the stock (the top discard is then the alternative); where it takes
     the top discard it gets it (drawing from the stock instead costs 20-26 points on
     average in contracts 6 and 7, and its third discard 11-12).
     There, too, search stops at half its budget when no alternative is ahead of the
     heuristic's move by ``race_stop`` standard errors: at the bar of ``race_z`` such a
     move is almost never taken (from below ``race_stop`` = 0.5 at half, the second half
     would need about 3 standard errors alone), and the rollouts of these long races are
     the most expensive ones.

A decision with one legal move costs nothing.  The budget is ``sims`` rollouts per
decision, shared by the candidates; with ``ms`` > 0 the agent instead rolls out until
that many milliseconds have passed (at least one round of the candidates, at most 4,096
rollouts), which is not reproducible across machines: a fixed ``sims`` is.

The belief the determinizations come from is the ``belief`` key (:mod:`carioca_agents.belief`):
``uniform``, ``rule`` (the opponent model with the replay factor ``infer``) or
``learned`` (the shipped learned model), ``inferred`` (``pool`` samples of the ``base``
belief weighted by the opponents' last turns, :mod:`carioca_agents.belief.inferred`); the default
``auto`` is ``rule`` when ``infer`` > 0 and ``uniform`` when it is 0, as before the key existed.

Spec: ``search``, ``search:sims=64``, ``search:ms=300,rollout=greedy``,
``search:rollout=ppo:models/contract1,top=4``, ``search:infer=0`` (uniform determinizations),
``search:belief=learned``, ``search:belief=inferred,pool=128``.  Everything random comes from the
agent's seed (and :meth:`reset`): same seed, same view, same decision.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence

from carioca_agents.base import Agent
from carioca_agents.belief import BASE_BELIEFS, BELIEFS, DEFAULT_POOL, Belief, make_belief
from carioca_agents.explain import ranked
from carioca_agents.greedy import GreedyAgent
from carioca_agents.heuristic import HeuristicAgent, make_heuristic
from carioca_agents.opponent_model import DEFAULT_FACTOR
from carioca_agents.random_agent import RandomAgent
from carioca_agents.specs import Param, ParsedSpec
from carioca_env import Game, Move, MoveKind, PlayerView
from carioca_env.cards import hand_penalty
from carioca_env.explanations import Candidate, Explanation, forced

#: Rollouts per decision by default.  A heuristic rollout of a 2-player deal runs at about
#: 2,000 decisions/s on a free core here; at 24 rollouts three 2-player deals (contracts
#: 1, 4, 7, one search seat against the heuristic) averaged 0.25 s per decision of the
#: search seat, forced moves included (0.10 s in contract 1, 0.50 s in contract 7), so 32
#: stays under 0.5 s on average.  Under heavy load (the machine shared by other jobs) it
#: is many times slower: ``carioca bench --only clone`` measures it.
DEFAULT_SIMS = 32

#: The ``z`` of the contracts whose opening closes the deal (:func:`opening_closes`).
DEFAULT_RACE_Z = 2.5
#: The ``top`` of those contracts (discards evaluated: the heuristic's best ones).
DEFAULT_RACE_TOP = 2
#: In those contracts, the lead (standard errors) an alternative needs at half the budget
#: for the search to go on (see :meth:`SearchAgent.evaluate`).
DEFAULT_RACE_STOP = 0.5

#: Rollouts at most when a time budget (``ms``) is set.
MAX_TIMED_SIMS = 4096

#: The spec keys of ``search`` (see :mod:`carioca_agents.registry`).
SEARCH_PARAMS: dict[str, Param] = {
    "sims": Param(int, DEFAULT_SIMS, "rollouts per decision, shared by the candidates", minimum=1),
    "ms": Param(float, 0.0, "time budget per decision in milliseconds instead of sims (0: use sims)", minimum=0),
    "rollout": Param(str, "heuristic", "agent spec playing every seat in the rollouts (heuristic, greedy, ppo:PATH)",
                     kind="agent"),
    "top": Param(int, 3, "discards evaluated: the heuristic's best ones", minimum=1),
    # not max_turns: that is a deal's limit everywhere (carioca_env.MAX_TURNS); this is how far
    # a rollout looks ahead before it is scored by the hands
    "horizon": Param(int, 200, "turns a rollout plays before it is cut off and scored by hands", minimum=1),
    "z": Param(float, 1.5, "standard errors by which a move must beat the heuristic's to replace it", minimum=0),
    "race_z": Param(float, DEFAULT_RACE_Z, "z in the contracts whose opening closes the deal (6 and 7, R12)", minimum=0),
    "race_top": Param(int, DEFAULT_RACE_TOP, "top in the contracts whose opening closes the deal", minimum=1),
    "race_stop": Param(
        float, DEFAULT_RACE_STOP, "in the contracts whose opening closes the deal, stop at half the rollouts when no "
        "alternative leads the heuristic's move by this many standard errors (0: never stop early)", minimum=0),
    "infer": Param(
        float, DEFAULT_FACTOR,
        "opponent model: unopened opponents' hidden cards replay this many draws per stock draw they made "
        "(carioca_agents.opponent_model; 0: uniform determinization)", minimum=0,
    ),
    "belief": Param(
        str, "auto", "what the determinizations believe the opponents hold (carioca_agents.belief): uniform, rule "
        "(the opponent model, replay factor infer), learned (the shipped learned model), inferred (base's samples "
        "weighted by the opponents' last turns under the heuristic); auto: rule if infer > 0, else uniform",
        choices=("auto", *BELIEFS),
    ),
    "base": Param(str, "learned", "where belief=inferred draws its candidates from", choices=BASE_BELIEFS),
    "pool": Param(int, DEFAULT_POOL, "candidates belief=inferred draws and weighs per decision", minimum=1),
}


#: The rollout policies a :class:`SearchAgent` built without the registry's builder can
#: play (each as the registry builds it from its bare name).
OWN_ROLLOUTS: dict[str, Callable[[int], Agent]] = {"heuristic": make_heuristic, "greedy": GreedyAgent,
                                                   "random": RandomAgent}


def own_rollout(spec: str | ParsedSpec, seed: int) -> Agent:
    """The rollout policy ``spec`` when it is a bare built-in name (:data:`OWN_ROLLOUTS`).

    Raises:
        ValueError: any other spec, which only the registry builds.
    """
    text = str(spec)
    if text not in OWN_ROLLOUTS:
        raise ValueError(f"rollout {text!r}: a SearchAgent built directly plays {', '.join(OWN_ROLLOUTS)} in its "
                         f"rollouts; for any other agent build it with make_agent('search:rollout=...')")
    agent = OWN_ROLLOUTS[text](seed)
    agent.name = text
    return agent


class SearchAgent:
    """Determinized Monte Carlo search from the seat's view (see the module docstring)."""

    name = "search"

    def __init__(
        self,
        seed: int = 0,
        sims: int = DEFAULT_SIMS,
        ms: float = 0.0,
        rollout: str | ParsedSpec = "heuristic",
        top: int = 3,
        horizon: int = 200,
        z: float = 1.5,
        infer: float = DEFAULT_FACTOR,
        belief: str | Belief = "auto",
        race_z: float = DEFAULT_RACE_Z,
        race_top: int = DEFAULT_RACE_TOP,
        race_stop: float = DEFAULT_RACE_STOP,
        base: str = "learned",
        pool: int = DEFAULT_POOL,
        build: Callable[[str | ParsedSpec, int], Agent] | None = None,
    ) -> None:
        """The keys are :data:`SEARCH_PARAMS`'.  ``build(spec, seed)`` builds the rollout
        policy from its spec: the registry passes its own ``make_agent`` (which can build
        any agent); without it, the rollout is one of :data:`OWN_ROLLOUTS`."""
        if sims < 1 or top < 1 or race_top < 1 or horizon < 1 or ms < 0 or infer < 0 or not race_stop >= 0:
            raise ValueError(
                f"sims, top, race_top and horizon must be >= 1 and ms, infer and race_stop >= 0, got {sims}, {top}, "
                f"{race_top}, {horizon}, {ms}, {infer}, {race_stop}"
            )
        self.sims, self.ms, self.top, self.horizon, self.z = sims, ms, top, horizon, z
        self.race_z, self.race_top, self.race_stop = race_z, race_top, race_stop
        self.infer = infer
        if belief == "auto":
            belief = "rule" if infer > 0 else "uniform"
        #: where the determinizations come from (carioca_agents.belief): a name (a ValueError for
        #: an unknown one), or a Belief built by the caller (a study's, for one)
        self.belief: Belief = belief if isinstance(belief, Belief) else make_belief(belief, infer, base, pool)
        self.rollout_spec = str(rollout)  # a spec parsed (and checked) by the caller is built as it is
        self.guide = HeuristicAgent(seed)
        # one rollout agent per seat (built for 4; a table uses the first n)
        make = build if build is not None else own_rollout
        self.policies: list[Agent] = [make(rollout, seed + 1 + i) for i in range(4)]
        self.reset(seed)
        #: decisions searched / rollouts run since construction (for measurements)
        self.searched = 0
        self.rollouts = 0

    def reset(self, seed: int) -> None:
        """Reseed everything: the same seed gives the same decisions."""
        self.seed = seed
        self.rng = random.Random(seed)
        self.guide.reset(seed)

    # ------------------------------------------------------------------ protocol

    def act(self, view: PlayerView, legal: Sequence[Move]) -> Move:
        """Choose one of ``legal`` from the seat's view only."""
        return self._decide(view, legal)[0]

    def _decide(self, view: PlayerView, legal: Sequence[Move]
                ) -> tuple[Move, list[Move], list[list[float]] | None, float]:
        """``(move, candidates, their rollout values or None when nothing was searched, z)``."""
        if len(legal) == 1:
            return legal[0], [legal[0]], None, self.z
        candidates = self.candidates(view, legal)
        if len(candidates) == 1:
            return candidates[0], candidates, None, self.z
        self.searched += 1
        if opening_closes(view):
            stop = self.race_stop if self.race_stop > 0 else None
            samples = self.evaluate(view, candidates, stop)
            return candidates[self.choose(samples, self.race_z)], candidates, samples, self.race_z
        samples = self.evaluate(view, candidates)
        return candidates[self.choose(samples, self.z)], candidates, samples, self.z

    # ------------------------------------------------------------------ explanations

    def act_explained(self, view: PlayerView, legal: Sequence[Move]) -> tuple[Move, Explanation]:
        """``act``'s move (the same rollouts, the same generator draws) and each candidate's
        rollout mean, standard error and count (:mod:`carioca_agents.explain`)."""
        move, candidates, samples, z = self._decide(view, legal)
        if len(legal) == 1:
            return move, forced(self.name, move)
        if samples is None:
            return move, Explanation.build(
                self.name, "rule", "no rollouts: search plays the heuristic's move here", "higher",
                [Candidate(str(move), 1.0, "the heuristic's move")], move,
                "openings, lay-offs, swaps and a take of the top discard in contracts 6-7 follow the heuristic")
        cands = []
        for i, (m, values) in enumerate(zip(candidates, samples)):
            n = len(values)
            mean = sum(values) / n if n else 0.0
            se = (sum((v - mean) ** 2 for v in values) / (n - 1) / n) ** 0.5 if n > 1 else None
            if i == 0:
                note = "the heuristic's move"
            else:
                lead, lead_se = self.lead(samples, i)
                note = (f"lead over the heuristic's {lead:+.1f} \u00b1 {lead_se:.1f}" if lead_se < float("inf")
                        else "too few rollouts to compare")
            cands.append(Candidate(str(m), mean, note, se, n))
        return move, Explanation.build(
            self.name, "rollout", "mean rollout value: the others' mean deal penalty minus its own", "higher",
            ranked(cands, "higher", move), move,
            f"plays the heuristic's move unless another leads it by {z:g} paired standard errors")

    def explain(self, view: PlayerView, legal: Sequence[Move]) -> Explanation:
        """What the search would play at ``view`` and why; its generators and counters are
        put back, so the next move is the one it would have played."""
        state = (self.rng.getstate(), self.guide.rng.getstate(), self.guide.last_choice, self.searched, self.rollouts)
        try:
            return self.act_explained(view, legal)[1]
        finally:
            self.rng.setstate(state[0])
            self.guide.rng.setstate(state[1])
            self.guide.last_choice, self.searched, self.rollouts = state[2], state[3], state[4]

    @staticmethod
    def lead(samples: list[list[float]], i: int) -> tuple[float, float]:
        """Candidate ``i``'s mean gain over candidate 0 on their shared determinizations
        and its standard error (``inf`` with fewer than two pairs)."""
        diffs = [a - b for a, b in zip(samples[i], samples[0])]
        m = len(diffs)
        if m < 2:
            return 0.0, float("inf")
        mean = sum(diffs) / m
        var = sum((d - mean) ** 2 for d in diffs) / (m - 1)
        return mean, (var / m) ** 0.5

    def choose(self, samples: list[list[float]], z: float | None = None) -> int:
        """Index of the candidate to play: the heuristic's (0) unless another beats it on
        the shared determinizations by more than ``z`` (default: the agent's ``z``)
        standard errors of the paired difference (a noisy argmax over a few rollouts of a
        high-variance deal is worse than the heuristic's own choice)."""
        z = self.z if z is None else z
        best, best_gain = 0, 0.0
        for i in range(1, len(samples)):
            mean, se = self.lead(samples, i)
            if se < float("inf") and mean > best_gain and mean > z * se:
                best, best_gain = i, mean
        return best

    # ------------------------------------------------------------------ parts

    def candidates(self, view: PlayerView, legal: Sequence[Move]) -> list[Move]:
        """The moves worth searching, the heuristic's preferred one first (fewer in the
        contracts whose opening closes the deal: see the module docstring)."""
        choice = self.guide.act(view, legal)
        if not opening_closes(view):
            return candidate_moves(self.guide, view, legal, choice, self.top)
        if choice.kind is MoveKind.DRAW_DISCARD:
            return [choice]
        return candidate_moves(self.guide, view, legal, choice, self.race_top)

    def evaluate(self, view: PlayerView, candidates: list[Move], stop: float | None = None) -> list[list[float]]:
        """Rollout values of each candidate, one per shared determinization, in order
        (the first candidates may have one more than the last when the budget runs out).

        With ``stop`` (and a budget of ``sims``), the rollouts end after the first round
        that reaches half the budget if no alternative then leads candidate 0 by ``stop``
        standard errors (:meth:`lead`): the samples so far are returned.
        """
        k = len(candidates)
        samples: list[list[float]] = [[] for _ in range(k)]
        deadline = time.perf_counter() + self.ms / 1000.0 if self.ms > 0 else None
        budget = MAX_TIMED_SIMS if deadline is not None else self.sims
        check = budget // 2 if stop is not None and deadline is None else budget
        done = 0
        while done < budget:
            if done >= check:
                check = budget  # one look, at half
                leads = [self.lead(samples, i) for i in range(1, k)]
                bar = stop if stop is not None else 0.0  # check < budget only when stop is set
                if all(se < float("inf") and mean <= bar * se for mean, se in leads):
                    break
            det = self.determinize(view)
            policy_seed = self.rng.getrandbits(32)
            for i, move in enumerate(candidates):
                if done >= budget:
                    break
                game = det.clone()
                game.apply(move)
                samples[i].append(self.rollout(game, view.seat, policy_seed))
                done += 1
            if deadline is not None and time.perf_counter() >= deadline and len(samples[-1]) > 1:
                break
        self.rollouts += done
        return samples

    def determinize(self, view: PlayerView) -> Game:
        """One determinization of ``view`` from the agent's generator, drawn from its belief."""
        return self.belief.sample(view, self.rng)

    def rollout(self, game: Game, seat: int, policy_seed: int) -> float:
        """Play ``game`` (a one-deal game) to its end; the deal penalty difference for ``seat``."""
        return rollout_value(game, seat, self.policies, policy_seed, 4 * self.horizon)  # a turn is a few moves


def opening_closes(view: PlayerView) -> bool:
    """Whether the contract of ``view`` lays the whole hand, so that opening goes out at
    once (contracts 6 and 7, R12)."""
    return view.contract.cards == view.contract.hand_size


def candidate_moves(guide: HeuristicAgent, view: PlayerView, legal: Sequence[Move], choice: Move,
                    top: int) -> list[Move]:
    """The moves worth valuing at a decision, ``guide``'s ``choice`` first: in the draw
    phase both draws; for a discard the ``top`` discards ``guide`` ranks best (the rest
    are never better by its own reckoning and would cost rollouts); otherwise (an
    opening, a lay-off, a swap: it opens as soon as it can and sheds all it can) the
    choice alone."""
    if choice.kind in (MoveKind.DRAW_STOCK, MoveKind.DRAW_DISCARD):
        return [choice] + [m for m in legal if m != choice]
    if choice.kind is not MoveKind.DISCARD:
        return [choice]
    ranked = guide.ranked_discards(view, legal)[:top]
    return [choice] + [m for m in ranked if m != choice][: top - 1]


def rollout_value(game: Game, seat: int, policies: Sequence[Agent], policy_seed: int, max_moves: int) -> float:
    """Play ``game`` (a one-deal game) to its end with ``policies`` in the seats (each reset
    with ``policy_seed + seat``); the mean penalty of the other seats minus ``seat``'s.

    A rollout still running after ``max_moves`` more moves is scored by the penalties of
    the hands it reached (what each seat would pay now).
    """
    n = game.num_players
    for s in range(n):
        policies[s].reset(policy_seed + s)
    limit = len(game.moves) + max_moves
    while not game.game_over and len(game.moves) < limit:
        legal = game.legal_moves()
        s = game.current
        # the policy's answer among legal_moves(): played unchecked (apply_choice), the
        # rollouts' main cost after the policies themselves
        game.apply_choice(legal[0] if len(legal) == 1 else policies[s].act(game.view(s), legal), legal)
    if game.game_over:
        scores = game.deal_results[-1].scores
    else:
        scores = tuple(hand_penalty(game.hands[s]) for s in range(n))
    return (sum(scores) - scores[seat]) / (n - 1) - scores[seat]
