"""``carioca tournament``: its options (:func:`add_arguments`) and what it does (:func:`run`)."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from carioca_env.game_config import MAX_TURNS
from carioca_experiments.evaluation.luck.value import DEFAULT_VERSION, LIVE_VERSIONS
from carioca_experiments.evaluation.tournament.config import (
    ALL_CONTRACTS,
    BUILTIN_AGENTS,
    FORMATS,
    PRESETS,
    TournamentConfig,
    lineups,
)
from carioca_experiments.evaluation.tournament.errors import TournamentError
from carioca_experiments.evaluation.tournament.executors import BACKENDS
from carioca_experiments.evaluation.tournament.results import RESULTS_FILE
from carioca_experiments.evaluation.tournament.runner import run_tournament
from carioca_experiments.evaluation.tournament.summary import summarize
from carioca_experiments.evaluation.tournament.tasks import make_tasks


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``carioca tournament``."""
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = (
        "Agents are make_agent specs (random, greedy, heuristic, NAME:ARG, your own code as\n"
        "py:MODULE:FACTORY[:KEY=VALUE,...] or an installed carioca_env.agents plugin), optionally\n"
        "labelled LABEL=SPEC (a=random b=random). Lineups (duplicate format): with as many\n"
        "agents as seats, the cyclic rotations; fewer, seats filled cyclically then rotated;\n"
        "more, every combination of distinct agents with its rotations. Every lineup of a\n"
        "deck gets the same cards seat by seat.\n\n"
        "Results go to OUT/results.jsonl (a header line, then one JSON line per deal) and\n"
        "OUT/summary.{md,csv,json}, pairs.csv, penalty.png, paired.png. Re-running the same\n"
        "command resumes an interrupted tournament. Without --agents or --preset the demo\n"
        "preset runs: " + _preset_text("demo") + "."
    )
    g = parser.add_argument_group("tournament (what is played; these define the results)")
    g.add_argument("--agents", nargs="+", metavar="SPEC", help="agent specs, LABEL=SPEC to name one")
    g.add_argument("--players", type=int, metavar="N",
                   help="seats per table, 2-4 (default: the number of agents, within 2-4)")
    g.add_argument("--contracts", type=int, nargs="+", metavar="K", help="contracts to play (default: all seven)")
    g.add_argument("--decks", dest="decks", type=int, metavar="N",
                   help="distinct dealt decks per contract (default 10); duplicate replays each for every lineup")
    g.add_argument("--deals", dest="deals_deprecated", type=int, metavar="N",
                   help="deprecated spelling of --decks (kept for one release)")
    g.add_argument("--seed", type=int, help="tournament seed; every deck and agent seed derives from it (default 0)")
    g.add_argument("--format", choices=FORMATS,
                   help="duplicate (default): every lineup on every deck; random: one random lineup per deck")
    g.add_argument("--max-turns", type=int, metavar="T",
                   help=f"completed turns after which a deal is cut off (R17) and scored by the cards in hand (default {MAX_TURNS})")
    g.add_argument("--luck-correction", action="store_true",
                   help="also record each deal's luck (the value of its stock draws under the shipped value "
                        "function) and show luck-corrected paired differences beside the raw ones")
    g.add_argument("--luck-value", type=int, metavar="V",
                   help=f"with --luck-correction: correct with the shipped value function of version V "
                        f"({', '.join(map(str, LIVE_VERSIONS))}; {DEFAULT_VERSION} is the default) instead of the "
                        f"default, e.g. to extend a table corrected with another version")
    g.add_argument("--preset", choices=sorted(PRESETS), help="a named set of the options above; explicit options override it. "
                   + "; ".join(f"{k}: {_preset_text(k)}" for k in sorted(PRESETS)))
    g.add_argument("--quick", action="store_true", help="the same as --preset quick (a smoke run in seconds)")
    r = parser.add_argument_group("running (does not change the results)")
    r.add_argument("--backend", choices=BACKENDS, default="local",
                   help="where deals are played: local processes (default) or a Ray cluster (pip install "
                        "'carioca-env[ray]'); the results are the same")
    r.add_argument("--address", metavar="ADDR",
                   help="with --backend ray: the cluster to join (e.g. auto, HOST:6379, ray://HOST:10001); "
                        "default $RAY_ADDRESS, else a Ray instance started for this run")
    r.add_argument("--workers", type=int,
                   help="local: processes playing deals (default 2; 1 plays in this process); ray: tasks running "
                        "at once (default: all the cluster's CPUs)")
    r.add_argument("--retries", type=int, default=2, metavar="N",
                   help="new attempts of a deal whose worker process or node died (default 2)")
    r.add_argument("--out", type=Path, help="results folder (default results/tournament-<agents>-p<players>-<config hash>)")
    r.add_argument("--overwrite", action="store_true", help="delete an existing results file in --out instead of resuming it")
    r.add_argument("--no-progress", action="store_true", help="no progress bar")
    r.add_argument("--records", type=int, default=0, metavar="N",
                   help="keep the game record of every N-th deal in OUT/records for carioca replay (default 0: none; 1: all)")
    r.add_argument("--explain", action="store_true",
                   help="with --records: the kept records also hold what each agent weighed at each decision "
                        "(ranked candidates with scores), shown by carioca serve; the moves and results are unchanged")
    r.add_argument("--report", type=Path, metavar="DIR",
                   help="only summarize the results already in DIR (no play); the other options are ignored")


def _preset_text(name: str) -> str:
    p = PRESETS[name]
    agents = "built-in agents " + "/".join(BUILTIN_AGENTS) if p["agents"] is None else " ".join(p["agents"])
    contracts = "all contracts" if tuple(p["contracts"]) == ALL_CONTRACTS else "contracts " + " ".join(map(str, p["contracts"]))
    return f"{agents}, {p['players']} players, {contracts}, {p['decks']} decks, max {p['max_turns']} turns"


def _builtin_agents() -> list[str]:
    from carioca_agents.registry import available

    known = set(available())
    return [a for a in BUILTIN_AGENTS if a in known]


def config_from_args(args: argparse.Namespace, log: Callable[[str], None] | None = None) -> TournamentConfig:
    """The tournament config of the command line (explicit options > preset > defaults)."""
    say = log or (lambda m: print(m, file=sys.stderr))
    preset_name = "quick" if getattr(args, "quick", False) else getattr(args, "preset", None)
    if preset_name is None and not args.agents:
        preset_name = "demo"
        say("no --agents given: running the demo preset (" + _preset_text("demo") + ")")
    preset = dict(PRESETS[preset_name]) if preset_name else {}
    if getattr(args, "luck_value", None) is not None and not getattr(args, "luck_correction", False):
        raise TournamentError("--luck-value names the value function of --luck-correction: give both")
    agents = args.agents
    if not agents:
        agents = _builtin_agents()
        missing = [a for a in BUILTIN_AGENTS if a not in agents]
        if missing:
            say(f"note: built-in agent(s) {', '.join(missing)} not available yet; playing {', '.join(agents)}")
    if args.players is not None:
        players = args.players
    elif "players" in preset:
        players = preset["players"]
    else:
        players = min(max(len(agents), 2), 4)

    old = getattr(args, "deals_deprecated", None)
    if old is not None:
        if args.decks is not None and args.decks != old:
            raise TournamentError(f"--decks {args.decks} and --deals {old} disagree; give --decks only")
        say("note: --deals is deprecated in carioca tournament and will be removed in the next release; "
            "it means decks per contract: use --decks")
        args.decks = old

    def pick(name: str, default: Any) -> Any:
        value = getattr(args, name, None)
        if value is not None:
            return value
        return preset.get(name, default)

    return TournamentConfig(
        agents=tuple(agents),
        players=players,
        contracts=tuple(pick("contracts", ALL_CONTRACTS)),
        decks=pick("decks", 10),
        seed=pick("seed", 0),
        format=pick("format", "duplicate"),
        max_turns=pick("max_turns", MAX_TURNS),
        luck=_luck_fingerprint(getattr(args, "luck_value", None)) if getattr(args, "luck_correction", False) else None,
    )


def _luck_fingerprint(version: int | None = None) -> str:
    """The fingerprint of the luck value function of ``--luck-correction``: the shipped
    default, or the shipped ``version`` (``--luck-value``).

    Raises:
        TournamentError: no shipped value function has that version.
    """
    from carioca_experiments.evaluation.luck import ValueFileError, shipped_value, shipped_version

    if version is None:
        return shipped_value().fingerprint
    try:
        return shipped_version(version).fingerprint
    except ValueFileError as exc:
        raise TournamentError(f"--luck-value: {exc}") from None


#: what the command says after Ctrl-C (carioca_experiments.cli prints it)
INTERRUPTED = "the deals played so far are saved: rerun the same command to resume"


def run(args: argparse.Namespace) -> int:
    """Run (or resume, or report) a tournament and print its summary."""
    if args.report is not None:
        summary = summarize(args.report)
        print(summary.to_text())
        for p in summary.write(args.report, log=lambda m: print(m, file=sys.stderr)):
            print(f"wrote {p}")
        return 0
    config = config_from_args(args)
    workers = args.workers if args.workers is not None else (2 if args.backend == "local" else None)
    if workers is not None and workers < 1:
        raise TournamentError(f"--workers must be at least 1, got {workers}")
    if args.records is not None and args.records < 0:
        raise TournamentError(f"--records must be 0 (none) or a positive N (every N-th deal), got {args.records}")
    if getattr(args, "explain", False) and not args.records:
        raise TournamentError("--explain stores explanations in the kept game records: give --records N too")
    if args.retries < 0:
        raise TournamentError(f"--retries must be 0 or more, got {args.retries}")
    if args.address and args.backend != "ray":
        raise TournamentError("--address names a Ray cluster: use it with --backend ray")
    out = args.out if args.out is not None else config.default_out_dir()
    n_tasks = len(make_tasks(config))
    per_deck = len(lineups(len(config.agents), config.players)) if config.format == "duplicate" else 1
    print(f"{n_tasks} deals ({config.format}: {per_deck} lineup(s) x {config.decks} decks x "
          f"{len(config.contracts)} contracts) -> {out / RESULTS_FILE}", file=sys.stderr)
    start = time.monotonic()
    summary = run_tournament(config, out, workers=workers, progress=not args.no_progress,
                             overwrite=args.overwrite, record_every=args.records, explain=getattr(args, "explain", False),
                             backend=args.backend,
                             address=args.address, retries=args.retries)
    print(summary.to_text())
    print(f"\nResults and summary in {out}/ (results.jsonl, summary.md, summary.csv, pairs.csv, "
          f"summary.json, penalty.png{', paired.png' if summary.pairs else ''}); "
          f"{time.monotonic() - start:.1f} s")
    return 0
