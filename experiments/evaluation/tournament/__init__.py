"""``carioca tournament``: a duplicate tournament between agents, deal by deal.

Usage::

    carioca tournament --agents random greedy heuristic --players 3 --decks 20
    carioca tournament --preset demo          # the built-in agents, all seven contracts
    carioca tournament --quick --agents a=random b=random   # a smoke run
    carioca tournament --report results/tournament-...      # re-summarize a folder

or from Python::

    from carioca_experiments.evaluation.tournament import TournamentConfig, run_tournament
    summary = run_tournament(TournamentConfig(agents=("random", "greedy"), decks=2),
                             "results/eval", workers=2)
    print(summary.to_text()); summary.mean_penalty("greedy", contract=3)

Agents
    Each agent is a spec for :func:`carioca_agents.registry.make_agent` (``random``,
    ``ppo:models/c3.zip``), optionally labelled ``LABEL=SPEC`` (``a=random b=random``
    plays two copies of one spec as two agents).  Labels must be distinct; a bare spec is
    its own label.

Unit of play
    One deal of one contract: ``Game.from_deck(deck, dealer, GameConfig(players, (k,)),
    game_seed)``.  Every seed comes from the tournament seed through
    :func:`~carioca_experiments.common.seeds.derive_seed` in the ``TOURNAMENT`` namespace (a hash
    of the seed, a purpose, the contract, the deck index ...), never from global
    random state: deck ``d`` of contract ``k`` is ``full_deck()`` shuffled by
    ``random.Random(derive_seed(TOURNAMENT, seed, "deck", k, d))``, which also draws the dealer; the
    game's own generator (stock recycling, R13 redeals) is seeded by ``derive_seed(TOURNAMENT,
    seed, "game", k, d)``; each seated agent is built and ``reset`` with ``derive_seed(TOURNAMENT,
    seed, "agent", k, d, seat)`` (:func:`agent_seed`): by seat, not by lineup, so two agents
    that meet on a deck play the same deal in every tournament of that seed, whatever
    other agents it holds; and two copies of one spec (``a=random b=random``) play
    identically from a seat, so their paired difference is exactly 0: duplicate play
    leaves only the agents to differ, and copies do not.  A task is therefore fully
    determined by the config and its id, and results do not depend on ``--workers``.

    Agents act through ``agent.act(game.view(seat), game.legal_moves())``.  A deal ends
    when the engine scores it (the closer scores 0, R14).  A deal cancelled for an empty
    stock (R13) is dealt again by the engine; it is only counted (``cancelled``).  A deal
    that reaches ``max_turns`` completed turns (all attempts counted) is **truncated**
    (R17): it is cut at a turn boundary and each seat scores the penalty of the cards in
    its hand at that point.  Truncated deals are included in every statistic, flagged in
    the results and counted prominently in the summary; raise ``--max-turns`` if many are.

Lineups (who sits where) for ``A`` agents at ``n`` seats, per dealt deck
    ``duplicate`` (default): the deck is replayed once per lineup, with the same dealer,
    so seat ``s`` receives the same cards in every lineup and only the agents move.

    - ``A == n``: the ``n`` cyclic rotations; in rotation ``r`` seat ``s`` holds agent
      ``(s + r) mod n``.
    - ``A < n``: the seats are filled cyclically from the agent list (seat ``s`` holds
      agent ``s mod A``, so some agents sit twice) and that seating is rotated as above;
      identical seatings are played once (``a b a b`` has 2 distinct rotations, not 4).
    - ``A > n``: every combination of ``n`` distinct agents (in list order), each with
      its ``n`` rotations.

    In every case each agent plays every seat of the deck (so every seat's hand)
    equally often within its lineups.  ``random``: one lineup per deck, drawn uniformly
    from the duplicate lineups with ``derive_seed(TOURNAMENT, seed, "seating", k, d)``.

Tasks
    One per (contract, deck, lineup), ordered by contract (in ``--contracts`` order),
    deck, lineup; the task id is ``c{contract}-d{deck}-l{lineup}`` and ``index`` its
    position.  Tasks go to an executor (:mod:`.executors`) in chunks: this process
    (``--workers 1``), a spawn-context process pool, or Ray (``--backend ray``); results
    are written in task order whatever the backend and the number of workers.

Results file ``results.jsonl`` (in ``--out``)
    Line 1, the header: ``{"format": "carioca-tournament-results", "version": 2,
    "config": {agents, players, contracts, decks, seed, format, max_turns[, luck]}, "lineups":
    [[agent labels per seat], ...], "tasks": N, "created": ISO time}``.  Then one line per
    played deal, appended and flushed as soon as it is known (no timing in it)::

        {"task": "c1-d0-l1", "index": 1, "contract": 1, "deck": 0, "lineup": 1,
         "rotation": 1, "seats": ["b", "a"], "dealer": 0, "closer": 1,
         "penalty": [57, 0], "turns": 38, "truncated": false, "cancelled": 0,
         "opened": [false, true], "open_turn": [null, 17],
         "hands": ["2S 5S ...", "AH 3H ..."]}

    ``seats[s]`` is the label of the agent in seat ``s``; ``closer`` is a seat or
    ``null`` (truncated); ``turns`` counts completed turns of all attempts of the deal;
    ``open_turn[s]`` is the seat's own turn number (1 = its first turn) on which it laid
    its contract, ``null`` if it did not; ``hands`` are the initial hands (card notation).
    With ``--luck-correction`` (``config.luck``, the value function's fingerprint) a line
    also holds ``luck``, each seat's summed corrections (the corrected penalty is
    ``penalty - luck``; :mod:`carioca_experiments.evaluation.luck`), and ``luck_draws``, the stock
    draws valued; with a version-4 value function also ``luck_actions``, the agents'
    declared random choices valued (their action terms are in ``luck``).

Resuming and safety
    Re-running the same command on the same folder plays only the tasks whose ids are not
    in the file yet, so an interrupted tournament loses nothing (``--report DIR``
    summarizes what is there without playing).  A results file is refused, with a
    message that says what is wrong and what to do, when its first line is not this
    format's header, its version is not one this program reads (a version-1 file, whose
    agents were seeded by lineup number, is summarized but not resumed), its config
    differs from the command's (the message lists the differences), a complete line is
    not valid JSON or not a result of this tournament, or two lines disagree about one
    task.  A last line without its newline is what a killed process leaves: it is
    dropped (the file is cut back to the last complete line, and a note is printed) and
    that deal is replayed - since every task is deterministic, nothing changes.
    ``--overwrite`` deletes an old results file first.
    While a tournament writes, the file is locked, so two runs cannot mix their lines.

Summary (printed, and ``summary.md``, ``summary.csv``, ``pairs.csv``, ``summary.json``,
``penalty.png``, ``paired.png`` in the folder); see :func:`summarize` for the definitions.

Modules (each answers one question)
    :mod:`.config` what is played (config, presets, seeds, lineups); :mod:`.tasks` the
    unit of work and its id; :mod:`.play` playing one task; :mod:`.results` the results
    file; :mod:`.executors` how tasks run (and :mod:`.ray_executor`); :mod:`.runner`
    driving tasks through an executor into the file; :mod:`.summary` the statistics;
    :mod:`.presentation` tables, files and plots; :mod:`.cli` the command line.
"""

from carioca_experiments.evaluation.tournament.cli import INTERRUPTED, add_arguments, config_from_args, run
from carioca_experiments.evaluation.tournament.config import (
    ALL_CONTRACTS,
    BUILTIN_AGENTS,
    FORMATS,
    PRESETS,
    TournamentConfig,
    agent_seed,
    lineups,
    parse_agent,
)
from carioca_experiments.evaluation.tournament.errors import TaskFailed, TournamentError
from carioca_experiments.evaluation.tournament.executors import (
    Executor,
    ProcessExecutor,
    SerialExecutor,
    make_executor,
)
from carioca_experiments.evaluation.tournament.play import deal_deck, play_chunk, play_task, setup_deal
from carioca_experiments.evaluation.tournament.presentation import plot_summary
from carioca_experiments.evaluation.tournament.results import (
    FORMAT_NAME,
    FORMAT_VERSION,
    RESULTS_FILE,
    ResultsFile,
    read_results,
)
from carioca_experiments.evaluation.tournament.runner import check_agents, run_tournament
from carioca_experiments.evaluation.tournament.summary import (
    AgentStats,
    PairStats,
    RatingStats,
    Summary,
    summarize,
)
from carioca_experiments.evaluation.tournament.tasks import Task, make_tasks

__all__ = [
    "ALL_CONTRACTS", "BUILTIN_AGENTS", "FORMATS", "FORMAT_NAME", "FORMAT_VERSION", "PRESETS", "RESULTS_FILE",
    "AgentStats", "Executor", "PairStats", "ProcessExecutor", "RatingStats", "ResultsFile", "SerialExecutor",
    "INTERRUPTED", "Summary", "Task", "TaskFailed", "TournamentConfig", "TournamentError", "add_arguments", "check_agents",
    "agent_seed", "config_from_args", "deal_deck", "lineups", "make_executor", "make_tasks", "parse_agent",
    "play_chunk", "play_task", "plot_summary", "read_results", "run", "run_tournament", "setup_deal", "summarize",
]
