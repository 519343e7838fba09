"""``openspiel``: OpenSpiel's own search bots in a seat, searching from its view only.

``openspiel:ismcts,sims=64`` plays ``open_spiel.python.algorithms.ismcts.ISMCTSBot`` and
``openspiel:mcts,sims=64`` plays ``open_spiel.python.algorithms.mcts.MCTSBot``, both on
the OpenSpiel game of :mod:`carioca_env.openspiel_game` (``python_carioca``).  Built only
with the ``[openspiel]`` extra (``pip install "carioca-env[openspiel]"``); without it,
building one raises :class:`~carioca_env.extras.MissingExtraError` saying so, and this
module imports without OpenSpiel (the registry lists the agent either way).

Per decision with a real choice (a forced move costs nothing) the agent

1. builds an OpenSpiel state from its seat's :class:`~carioca_env.PlayerView` alone
   (:func:`carioca_env.openspiel_game.state_from_view`: the cards the seat has not seen
   dealt at random from the agent's generator), of a game that plays the current
   contract alone and cuts it ``horizon`` turns after the view's, scored by the cards in
   every hand (``score_truncated``): random rollouts hardly ever close a deal, and the
   later contracts would not change the choice;
2. asks the bot for the move (:func:`carioca_env.openspiel_game.bot_move`: an opening is
   one action per meld, so the bot chooses each meld from the state after the ones
   before it).  IS-MCTS resamples the unseen cards at every simulation through
   :meth:`~carioca_env.openspiel_game.CariocaSpielState.resample_from_infostate`, with
   a sampler from the agent's generator: OpenSpiel's default sampler is seeded anew from
   the system at each call, so the same seed would not give the same move.  MCTS searches
   the one sampled deal it is handed (determinized MCTS: it treats the sampled hands as
   known), which is why IS-MCTS is the default.

Leaves are valued by ``rollouts`` rollouts each: ``rollout=random`` is OpenSpiel's own
``RandomRolloutEvaluator`` (uniform legal actions for every seat, chance by its
probabilities); ``rollout=heuristic`` plays this project's heuristic in every seat
(:class:`HeuristicRollouts`).  A rollout values a leaf by the game's return, the mean of
the other seats' totals minus one's own, so values are in points and ``uct_c`` is in
points too: OpenSpiel's examples use 2 for games won or lost by 1, and a Carioca leaf's
value spreads over tens of points.

Everything random comes from the agent's seed (:meth:`OpenSpielAgent.reset`): the same
seed and the same views give the same moves, whatever else runs.  Spec:
``openspiel``, ``openspiel:ismcts,sims=200``, ``openspiel:mcts,sims=100,rollouts=2``,
``openspiel:ismcts,rollout=heuristic,horizon=12``.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from carioca_agents.heuristic import HeuristicAgent
from carioca_agents.specs import Param
from carioca_env import Move, PlayerView
from carioca_env.extras import require

if TYPE_CHECKING:  # only for hints: pyspiel is an optional extra
    from carioca_env.openspiel_game import CariocaGame, CariocaSpielState

#: The spec name.
NAME = "openspiel"
#: The bots a spec names (the default key: ``openspiel:mcts`` is ``openspiel:algo=mcts``).
ALGORITHMS = ("ismcts", "mcts")
#: Simulations per decision by default (see docs/results/2026-12-07-openspiel.md for their cost).
DEFAULT_SIMS = 64
#: Turns the searched deal plays past the view's before it is scored by the hands.
DEFAULT_HORIZON = 8
#: The UCT exploration constant, in points (a leaf's value is a difference of penalties).
DEFAULT_UCT_C = 20.0

#: The spec keys of ``openspiel`` (see :mod:`carioca_agents.registry`).
OPENSPIEL_PARAMS: dict[str, Param] = {
    "algo": Param(str, "ismcts", "OpenSpiel's bot: ismcts (information-set MCTS, resampling the unseen cards at "
                  "every simulation) or mcts (one sampled deal, searched as if its hands were known)",
                  choices=ALGORITHMS),
    "sims": Param(int, DEFAULT_SIMS, "simulations per decision (one leaf evaluation each)", minimum=1),
    "rollouts": Param(int, 1, "rollouts per leaf evaluation", minimum=1),
    "uct_c": Param(float, DEFAULT_UCT_C, "UCT exploration constant, in points (leaf values are the game's returns)",
                   minimum=0),
    "horizon": Param(int, DEFAULT_HORIZON, "turns the searched deal plays past the current one before it is cut "
                     "and scored by the cards in every hand", minimum=1),
    "rollout": Param(str, "random", "the leaf evaluation's policy: random (OpenSpiel's RandomRolloutEvaluator) "
                     "or heuristic (this project's heuristic in every seat)", choices=("random", "heuristic")),
}


def missing_extra() -> str | None:
    """Why an ``openspiel`` agent cannot be built here (OpenSpiel not installed, with the
    command that installs it), or ``None`` when it can; nothing is imported."""
    try:
        require("the openspiel agent", "pyspiel")
    except ImportError as exc:  # MissingExtraError
        return str(exc)
    return None


class HeuristicRollouts:
    """An OpenSpiel evaluator (``evaluate`` and ``prior``, as ``mcts.Evaluator``) whose
    rollouts play this project's heuristic in every seat.

    A rollout plays on a clone of the OpenSpiel state it is handed, through OpenSpiel's
    interface (so the game's rules, its cut at the horizon and its returns are the
    game's): chance outcomes by their probabilities, an opening already under way
    completed with random melds, and every other decision the heuristic's move for the
    seat to act, read from the state's engine game.  That game holds every hand, so this
    evaluator is safe only inside states a search sampled from one seat's view (IS-MCTS
    resamples them; ``state_from_view`` deals them): it never sees the real game.
    """

    def __init__(self, n_rollouts: int, num_players: int, random_state: np.random.RandomState) -> None:
        self.n_rollouts = n_rollouts
        self.rng = random_state
        self.policies = [HeuristicAgent(0) for _ in range(num_players)]

    def prior(self, state: CariocaSpielState) -> list[tuple[int, float]]:
        """Uniform over the legal actions (chance outcomes at a chance node), as OpenSpiel's evaluator."""
        if state.is_chance_node():
            return list(state.chance_outcomes())
        legal = state.legal_actions(state.current_player())
        return [(a, 1.0 / len(legal)) for a in legal]

    def evaluate(self, state: CariocaSpielState) -> np.ndarray:
        """The mean return per seat over ``n_rollouts`` heuristic rollouts from ``state``."""
        total = np.zeros(state.get_game().num_players())
        for _ in range(self.n_rollouts):
            total += self.rollout(state.clone())
        return total / self.n_rollouts

    def rollout(self, work: CariocaSpielState) -> np.ndarray:
        """Play ``work`` to its end (see the class docstring); its returns."""
        for s, policy in enumerate(self.policies):
            policy.reset(int(self.rng.randint(2**31)) + s)
        while not work.is_terminal():
            if work.is_chance_node():
                outcomes, probs = zip(*work.chance_outcomes())
                work.apply_action(int(self.rng.choice(outcomes, p=probs)))
                continue
            cs = work.carioca_state
            assert cs is not None  # a decision node has its deal on the table
            if cs.pending:  # an opening under way (chosen by the search): finish it at random
                legal = work.legal_actions()
                work.apply_action(int(legal[self.rng.randint(len(legal))]))
                continue
            game, seat = cs.game, cs.game.current_player
            moves = game.legal_moves()
            move = moves[0] if len(moves) == 1 else self.policies[seat].act(game.view(seat), moves)
            for action in cs.table.move_actions(move, seat):  # one per meld for an opening
                work.apply_action(action)  # a draw from the stock leaves a chance node, played above
        return np.asarray(work.returns(), dtype=float)


class OpenSpielAgent:
    """OpenSpiel's IS-MCTS or MCTS playing a seat from its view (see the module docstring)."""

    name = NAME

    def __init__(self, seed: int = 0, algo: str = "ismcts", sims: int = DEFAULT_SIMS, rollouts: int = 1,
                 uct_c: float = DEFAULT_UCT_C, horizon: int = DEFAULT_HORIZON, rollout: str = "random") -> None:
        """The keys are :data:`OPENSPIEL_PARAMS`'.

        Raises:
            MissingExtraError: OpenSpiel is not installed (the message names the extra).
            ValueError: a key outside its range or choices.
        """
        require("the openspiel agent", "pyspiel")
        if algo not in ALGORITHMS or rollout not in ("random", "heuristic"):
            raise ValueError(f"algo must be one of {ALGORITHMS} and rollout random or heuristic, got {algo!r}, "
                             f"{rollout!r}")
        if sims < 1 or rollouts < 1 or horizon < 1 or not uct_c >= 0:
            raise ValueError(f"sims, rollouts and horizon must be >= 1 and uct_c >= 0, got {sims}, {rollouts}, "
                             f"{horizon}, {uct_c}")
        self.algo, self.sims, self.rollouts, self.uct_c = algo, sims, rollouts, uct_c
        self.horizon, self.rollout = horizon, rollout
        #: (players, contract) -> the searched OpenSpiel game (stateless, so shared by the decisions)
        self._games: dict[tuple[int, int], CariocaGame] = {}
        self.reset(seed)
        #: decisions searched since construction (for measurements)
        self.searched = 0

    def reset(self, seed: int) -> None:
        """Reseed: the same seed and views give the same moves."""
        self.seed = seed
        self.rng = random.Random(seed)

    def search_game(self, num_players: int, contract: int) -> CariocaGame:
        """The OpenSpiel game searched at a table of ``num_players`` in ``contract``: that
        contract alone, a cut deal scored by the hands."""
        key = (num_players, contract)
        if key not in self._games:
            import pyspiel

            import carioca_env.openspiel_game  # noqa: F401 - registers python_carioca

            self._games[key] = pyspiel.load_game(
                "python_carioca", {"players": num_players, "deals": contract, "score_truncated": True})
        return self._games[key]

    def bot(self, game: CariocaGame) -> Any:
        """A fresh OpenSpiel bot for one decision, every generator seeded from the agent's."""
        from open_spiel.python.algorithms import ismcts, mcts

        def rs() -> np.random.RandomState:
            return np.random.RandomState(self.rng.getrandbits(32))

        evaluator: Any
        if self.rollout == "heuristic":
            evaluator = HeuristicRollouts(self.rollouts, game.num_players(), rs())
        else:
            evaluator = mcts.RandomRolloutEvaluator(n_rollouts=self.rollouts, random_state=rs())
        if self.algo == "mcts":
            return mcts.MCTSBot(game, self.uct_c, self.sims, evaluator, random_state=rs())
        bot = ismcts.ISMCTSBot(game, evaluator, uct_c=self.uct_c, max_simulations=self.sims, random_state=rs())
        sampler = rs()
        # OpenSpiel's default resampler seeds each resample from the system: ours draws the seed
        # of each resample from the agent's generator, so a search is reproducible
        bot.set_resampler(lambda state, player: state.resample_from_infostate(player, sampler.uniform))
        return bot

    def act(self, view: PlayerView, legal: Sequence[Move]) -> Move:
        """Choose one of ``legal`` by the bot's search from the seat's view only.

        Raises:
            RuntimeError: the bot answered a move that is not in ``legal`` (it cannot, as
                the OpenSpiel game's legal actions are the engine's legal moves).
        """
        if len(legal) == 1:
            return legal[0]
        from carioca_env.openspiel_game import bot_move, state_from_view

        game = self.search_game(view.num_players, view.deal)
        state = state_from_view(game, view, self.rng, horizon=self.horizon)
        move = bot_move(self.bot(game), state)
        self.searched += 1
        for candidate in legal:
            if candidate == move:
                return candidate
        raise RuntimeError(f"{NAME}:{self.algo} answered {move}, which is not among the {len(legal)} legal moves")


def make_openspiel(seed: int = 0, **kw: Any) -> OpenSpielAgent:
    """Registry factory: ``openspiel``, ``openspiel:ismcts,sims=...``, ``openspiel:mcts,...``
    (keys :data:`OPENSPIEL_PARAMS`).

    Raises:
        MissingExtraError: OpenSpiel is not installed (the message names the extra).
    """
    return OpenSpielAgent(seed=seed, **kw)


__all__ = ["ALGORITHMS", "DEFAULT_HORIZON", "DEFAULT_SIMS", "DEFAULT_UCT_C", "HeuristicRollouts", "NAME",
           "OPENSPIEL_PARAMS", "OpenSpielAgent", "make_openspiel", "missing_extra"]
