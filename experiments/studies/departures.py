"""Where search departs from the heuristic, and what its rollouts predicted against what it got.

Usage::

    python -m carioca_experiments.studies.departures --agent learned DIR [DIR ...] [--rollouts 4] [--out FILE]

Each DIR is a finished tournament (``carioca tournament``) in which the agent labelled
``--agent`` is a search agent (``search``, ``search:KEY=VALUE``, ``cheat-search``).  Every
deal it sat in is played again, move for move: a task's deck, seats and agent seeds are
functions of the tournament's config (:func:`carioca_experiments.evaluation.tournament.play.setup_deal`),
and an agent's decisions of its seed, so the replay is the deal that was played (checked:
the same hands, dealer and penalties as its result line).

At each decision the search agent searched (two or more candidates), it records:

- the candidates (the heuristic's move first) and the one it played; a **departure** is a
  decision where it did not play the heuristic's;
- each alternative's **predicted** gain: its mean lead over the heuristic's move on the
  search's own rollouts (what its belief about the hidden cards made it expect);
- each alternative's **realized** gain: the same lead measured from the true game (the
  opponents' true hands and the true stock order), the deal rolled out to its end with the
  heuristic in every seat, ``--rollouts`` times per candidate on shared policy seeds.
  Nobody can know the stock order, so this is what the move was worth in that deal had
  everyone then played the heuristic, not what a perfect belief would have predicted.

The summary: decisions searched, departures, and at the departures the mean predicted
and realized gains with 95% t-intervals over departures (departures of one deal are not
independent, so the intervals are a rough guide).  Gains are in points of the deal's
penalty difference (the mean penalty of the other seats minus the seat's own: positive
is good for the seat).  With ``--out``, one JSON line per searched decision, written as
it is measured.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from carioca_experiments.common.seeds import DEPARTURES, derive_seed
from carioca_experiments.common.stats import mean_ci


class DepartureError(ValueError):
    """Input that cannot be read as asked (no such tournament, no such agent, not a search agent)."""


@dataclass(frozen=True)
class DeparturesConfig:
    """What to measure.

    Attributes:
        folders: finished tournaments (each holds ``results.jsonl``).
        agent: the label of the search agent in them.
        rollouts: heuristic rollouts per candidate from the true game (the realized gain).
        out: a new JSON-lines file for the per-decision rows, or ``None``.
    """

    folders: tuple[Path, ...]
    agent: str
    rollouts: int = 4
    out: Path | None = None


def _tournaments(config: DeparturesConfig) -> list[tuple[Any, list[dict[str, Any]]]]:
    """Each folder's config and result lines, checked before anything is played.

    Raises:
        DepartureError: a folder without results, an agent label it does not hold, or a
            spec that is not a search agent.
    """
    from carioca_agents.registry import make_agent
    from carioca_experiments.evaluation.tournament.errors import TournamentError
    from carioca_experiments.evaluation.tournament.results import RESULTS_FILE, read_results

    if config.rollouts < 1:
        raise DepartureError(f"--rollouts must be at least 1, got {config.rollouts}")
    if config.out is not None and config.out.exists():
        raise DepartureError(f"{config.out} exists: give a new file")
    out = []
    for folder in config.folders:
        path = Path(folder) / RESULTS_FILE
        if not path.is_file():
            raise DepartureError(f"{folder}: no {RESULTS_FILE} (not a tournament folder)")
        try:
            results = read_results(path)  # the tournament's own reader and checks
        except TournamentError as exc:
            raise DepartureError(str(exc)) from None
        tc = results.config
        if config.agent not in tc.labels:
            raise DepartureError(f"{folder}: no agent labelled {config.agent!r} (it holds {', '.join(tc.labels)})")
        probe = make_agent(tc.specs[tc.labels.index(config.agent)], 0)
        if not all(hasattr(probe, a) for a in ("evaluate", "candidates", "choose")):
            raise DepartureError(f"{folder}: {config.agent!r} is not a search agent")
        out.append((tc, list(results.records.values())))
    return out


def replay_deal(tc: Any, result: dict[str, Any], agent: str, rollouts: int) -> list[dict[str, Any]]:
    """One deal of tournament config ``tc`` played again (its result line ``result``): a row
    per decision that ``agent`` searched (see the module docstring).

    Raises:
        DepartureError: the replay is not the deal of the result line.
    """
    from carioca_agents.cheat import show_true_game
    from carioca_agents.heuristic import HeuristicAgent
    from carioca_agents.search import rollout_value
    from carioca_env import cards_str
    from carioca_experiments.evaluation.tournament import make_tasks
    from carioca_experiments.evaluation.tournament.play import deal_penalties, setup_deal

    (task,) = [t for t in make_tasks(tc) if t.id == result["task"]]
    game, agents, seeds = setup_deal(tc, task)
    for a, s in zip(agents, seeds):
        a.reset(s)
    n = tc.players
    if [cards_str(game.hand(s)) for s in range(n)] != result["hands"] or game.dealer != result["dealer"]:
        raise DepartureError(f"task {task.id}: the replay deals other hands than its result line")
    labels = [tc.labels[a] for a in task.seating]
    policies = [HeuristicAgent(0) for _ in range(n)]
    rows: list[dict[str, Any]] = []
    seen: list[tuple[list[Any], list[list[float]]]] = []
    for seat, who in enumerate(labels):
        if who == agent:
            search = agents[seat]
            inner: Callable[..., list[list[float]]] = search.evaluate

            def recording(view: Any, candidates: list[Any], stop: float | None = None,
                          _inner: Callable[..., list[list[float]]] = inner) -> list[list[float]]:
                samples = _inner(view, candidates, stop)
                seen.append((list(candidates), samples))
                return samples

            search.evaluate = recording  # an instance attribute: only this replay's agent records
    turns = 0
    while not game.game_over and turns < tc.max_turns:
        seat = game.current_player
        legal = game.legal_moves()
        before = len(seen)
        show_true_game(agents[seat], game)
        truth = game.clone()
        move = agents[seat].act(game.view(seat), legal)
        if len(seen) > before:
            candidates, samples = seen[-1]
            played = candidates.index(move)
            values = []
            for r in range(rollouts):
                policy_seed = derive_seed(DEPARTURES, tc.seed, result["task"], len(game.moves), r) % 2**32
                row = []
                for c in candidates:
                    g = truth.clone()
                    g.apply(c)
                    row.append(rollout_value(g, seat, policies, policy_seed, 100_000))
                values.append(row)
            realized = [sum(v[i] - v[0] for v in values) / rollouts for i in range(len(candidates))]
            predicted = [search_lead(samples, i) for i in range(len(candidates))]
            rows.append({"seed": tc.seed, "task": result["task"], "contract": task.contract, "deck": task.deck, "seat": seat,
                         "move_index": len(game.moves), "candidates": [str(c) for c in candidates],
                         "played": played, "predicted": [p[0] for p in predicted], "predicted_se": [p[1] for p in predicted],
                         "rollouts": [len(s) for s in samples], "realized": realized})
        game.apply(move)
        if move.kind.name == "DISCARD":
            turns += 1
    penalty = deal_penalties(game)
    if penalty != result["penalty"]:
        raise DepartureError(f"task {task.id}: the replay ends with penalties {penalty}, its result line says "
                             f"{result['penalty']}")
    return rows


def search_lead(samples: list[list[float]], i: int) -> tuple[float, float]:
    """Candidate ``i``'s mean lead over candidate 0 on the search's rollouts and its
    standard error (:meth:`carioca_agents.search.SearchAgent.lead`; 0 for candidate 0 itself)."""
    from carioca_agents.search import SearchAgent

    if i == 0:
        return 0.0, 0.0
    mean, se = SearchAgent.lead(samples, i)
    return mean, se if se != float("inf") else float("nan")


def summarize(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Decisions, departures, and the predicted and realized gains at the departures, and
    at every decision for the alternative the search's rollouts rated best."""
    departures = [r for r in rows if r["played"] != 0]
    pred = [r["predicted"][r["played"]] for r in departures]
    real = [r["realized"][r["played"]] for r in departures]
    best = [max(range(1, len(r["candidates"])), key=lambda i: r["predicted"][i]) for r in rows]
    return {
        "decisions": len(rows),
        "departures": len(departures),
        "predicted": mean_ci(pred),
        "realized": mean_ci(real),
        "best_predicted": mean_ci([r["predicted"][i] for r, i in zip(rows, best)]),
        "best_realized": mean_ci([r["realized"][i] for r, i in zip(rows, best)]),
    }


def run(config: DeparturesConfig, log: TextIO | None = None) -> dict[str, Any]:
    """Replay every deal of ``config.agent`` in ``config.folders`` (see the module
    docstring); the :func:`summarize` of all rows.  Everything is checked first.

    Raises:
        DepartureError: bad input (before anything is played) or a replay that is not its deal.
        OSError: a file cannot be read or written.
    """
    tournaments = _tournaments(config)
    rows: list[dict[str, Any]] = []
    fh = open(config.out, "x", encoding="utf-8") if config.out is not None else None
    try:
        for tc, results in tournaments:
            for result in results:
                if config.agent not in result["seats"]:
                    continue
                new = replay_deal(tc, result, config.agent, config.rollouts)
                rows.extend(new)
                if fh is not None:
                    fh.write("".join(json.dumps(r) + "\n" for r in new))
                    fh.flush()
                if log is not None:
                    log.write(f"{result['task']}: {len(new)} searched, {sum(r['played'] != 0 for r in new)} departures\n")
    finally:
        if fh is not None:
            fh.close()
    return summarize(rows)


def main(argv: Sequence[str] | None = None) -> int:
    """The command line (see the module docstring): 0, 2 on bad input, 130 after Ctrl-C."""
    parser = argparse.ArgumentParser(prog="python -m carioca_experiments.studies.departures",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--agent", required=True, help="the label of the search agent in the tournaments")
    parser.add_argument("--rollouts", type=int, default=4, help="heuristic rollouts per candidate from the true game")
    parser.add_argument("--out", type=Path, help="a new JSON-lines file for the per-decision rows")
    parser.add_argument("folders", nargs="+", type=Path, help="finished tournament folders")
    args = parser.parse_args(argv)
    try:
        s = run(DeparturesConfig(tuple(args.folders), args.agent, args.rollouts, args.out))
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except (DepartureError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"decisions searched: {s['decisions']}; departures from the heuristic: {s['departures']}")
    for key, what in (("predicted", "departures, predicted gain"), ("realized", "departures, realized gain"),
                      ("best_predicted", "best-rated alternative, predicted"),
                      ("best_realized", "best-rated alternative, realized")):
        ci = s[key]
        print(f"{what}: {ci.mean:+.2f} {ci.text(digits=2, signed=True)} ({ci.n})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
