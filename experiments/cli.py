"""The ``carioca`` command: one entry point, one sub-command per experiment.

Each sub-command lives in its own module of :mod:`experiments` that defines
``add_arguments(parser)`` and ``run(args) -> int``; this file only wires them up, and
imports a module only when its sub-command runs (so ``carioca demo`` needs no torch).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

#: sub-command -> (module, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "demo": ("experiments.demo", "play a short demonstration game, printed turn by turn"),
    "tournament": ("experiments.tournament", "run a (duplicate) tournament between agents"),
    "bench": ("experiments.bench", "measure engine, environment and training speed"),
    "play": ("experiments.play", "play against the bots in the terminal"),
    "replay": ("experiments.replay", "replay and check a saved game record"),
    "train": ("experiments.train", "train a MaskablePPO agent"),
    "imitate": ("experiments.imitate.cli", "train a policy by imitating a teacher agent (DAgger), for --init"),
    "train-all": ("experiments.rl_experiment", "train a PPO agent per contract and for the full game, then compare them"),
}


def _available() -> dict[str, tuple[str, str]]:
    out = {}
    for name, (module, help_text) in COMMANDS.items():
        if importlib.util.find_spec(module) is not None:
            out[name] = (module, help_text)
    return out


def build_parser() -> tuple[argparse.ArgumentParser, dict[str, str]]:
    """The top-level parser with one sub-parser per available sub-command."""
    parser = argparse.ArgumentParser(
        prog="carioca", description="Argentine Carioca research environment: experiments."
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    modules = {}
    for name, (module, help_text) in _available().items():
        p = sub.add_parser(name, help=help_text, description=help_text)
        importlib.import_module(module).add_arguments(p)
        modules[name] = module
    return parser, modules


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``carioca`` command line; returns the exit code."""
    parser, modules = build_parser()
    args = parser.parse_args(argv)
    return int(importlib.import_module(modules[args.command]).run(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
