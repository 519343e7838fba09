"""The ``carioca`` command: one entry point, one sub-command per experiment.

The command ``carioca X`` lives in the module or package named ``X`` (``-`` read as
``_``) of one of :mod:`experiments`' groups: ``evaluation``, ``training`` or ``apps``.
That module defines ``add_arguments(parser)`` and ``run(args) -> int`` (a package takes
them from its ``cli`` module), and optionally ``INTERRUPTED``; this file only wires them up.  The list
of commands and their one-line help are declared here, so ``carioca --help`` and
``--version`` import no sub-command module; ``carioca COMMAND ...`` imports only that
command's module.  A command whose module needs an extra that is not installed (``carioca
train`` on the core install, without torch) exits 2 with one line naming the extra.

Errors take one path, :func:`run_command`: a project error, a ``ValueError`` or
``TypeError`` from validation, an ``OSError`` on a path, or a missing optional package
prints ``carioca COMMAND: error: ...`` (one paragraph, no traceback) on stderr and exits
with status 2; Ctrl-C exits with 130; a closed pipe (``carioca replay ... | head``) exits
quietly with 141.  Bad option values are argparse's: usage and status 2.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import os
import sys
from collections.abc import Callable, Iterable, Sequence

from carioca_env._version import __version__
from carioca_env.errors import CariocaError
from carioca_env.extras import MissingExtraError, explain, require

#: sub-command -> (module, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "demo": ("carioca_experiments.apps.demo", "play a short demonstration game, printed turn by turn"),
    "tournament": ("carioca_experiments.evaluation.tournament", "run a (duplicate) tournament between agents"),
    "diff": ("carioca_experiments.evaluation.diff", "where two agents part on one duplicate deck, and what each weighed"),
    "bench": ("carioca_experiments.evaluation.bench", "measure engine, environment and training speed"),
    "play": ("carioca_experiments.apps.play", "play against the bots in the terminal"),
    "replay": ("carioca_experiments.apps.replay", "replay and check a saved game record"),
    "train": ("carioca_experiments.training.train", "train a MaskablePPO agent"),
    "imitate": ("carioca_experiments.training.imitate", "train a policy by imitating a teacher agent (DAgger), for --init"),
    "train-all": ("carioca_experiments.training.train_all", "train a PPO agent per contract and for the full game, then compare them"),
    "serve": ("carioca_experiments.apps.serve", "watch records and tournaments, and play the bots, in a browser (the [web] extra)"),
    "sweep": ("carioca_experiments.training.sweep", "train one configuration over seeds and a grid of settings on Ray Tune"),
    "tune-heuristic": ("carioca_experiments.training.tune_heuristic", "tune the heuristic's weights with Optuna over duplicate decks"),
}

#: The commands of studies that answered their question (``experiments/studies/``): they
#: stay runnable from a checkout with the commands their results pages give, and are left
#: out of the wheel, where naming one exits 2 saying so.
STUDY_COMMANDS: dict[str, tuple[str, str]] = {
    "improve": ("carioca_experiments.studies.improve",
                "(a study, from a checkout) improve an imitation model from rollout advantages over its teacher"),
}
#: the package that holds the studies
STUDIES = "carioca_experiments.studies"


def studies_present() -> bool:
    """Whether the studies are importable: a checkout (an editable install), not the wheel."""
    try:
        return importlib.util.find_spec(STUDIES) is not None
    except ModuleNotFoundError:
        return False


def commands() -> dict[str, tuple[str, str]]:
    """Every command this install offers: :data:`COMMANDS`, and :data:`STUDY_COMMANDS` in a checkout."""
    return {**COMMANDS, **STUDY_COMMANDS} if studies_present() else dict(COMMANDS)


#: sub-command -> the optional modules it always needs, checked before it imports or runs
#: anything (its module may need more on import, reported the same way)
NEEDS: dict[str, tuple[str, ...]] = {
    "bench": ("tabulate",),
    "tune-heuristic": ("optuna",),
    "serve": ("fastapi", "uvicorn", "jinja2"),
}

#: refused input, as argparse's usage errors: the message says what was wrong
EXIT_ERROR = 2
EXIT_INTERRUPTED = 130
EXIT_BROKEN_PIPE = 141
#: longest error paragraph printed
MESSAGE_CHARS = 2000

#: error classes of modules that may not be imported (torch-backed ones), by module
_LAZY_USER_ERRORS = {
    "carioca_agents.ppo_agent": ("ModelLoadError",),
    "carioca_experiments.evaluation.tournament": ("TournamentError",),
    "carioca_experiments.training.train": ("TrainError",),
}


def build_parser(load: Iterable[str] | None = None) -> tuple[argparse.ArgumentParser, dict[str, str]]:
    """The top-level parser with one sub-parser per sub-command.

    Args:
        load: the sub-commands whose options are added (their modules are imported);
            ``None`` loads all of them.  The others appear in ``--help`` with their
            one-line help, without options.

    Raises:
        ModuleNotFoundError: a loaded command's module needs a package that is not installed.
    """
    parser = argparse.ArgumentParser(
        prog="carioca", description="Argentine Carioca research environment: experiments."
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    wanted = None if load is None else set(load)
    modules = {}
    for name, (module, help_text) in commands().items():
        p = sub.add_parser(name, help=help_text, description=help_text)
        if wanted is None or name in wanted:
            importlib.import_module(module).add_arguments(p)
        modules[name] = module
    return parser, modules


def command_in(argv: Sequence[str]) -> str | None:
    """The sub-command named in ``argv`` (its first word that is not an option), or ``None``."""
    for word in argv:
        if not word.startswith("-"):
            return word if word in COMMANDS or word in STUDY_COMMANDS else None
    return None


def user_errors() -> tuple[type[BaseException], ...]:
    """The exceptions that are the user's input, not a bug: reported without a traceback."""
    classes: list[type[BaseException]] = [CariocaError, ValueError, TypeError, OSError, ImportError]
    for module, names in _LAZY_USER_ERRORS.items():
        loaded = sys.modules.get(module)
        classes += [getattr(loaded, n) for n in names if loaded is not None and hasattr(loaded, n)]
    return tuple(classes)


def extra_hint(exc: ImportError) -> str | None:
    """What to install for a missing optional module, or ``None`` for a module of the project."""
    if isinstance(exc, MissingExtraError):
        return str(exc)
    return explain(exc) if isinstance(exc, ModuleNotFoundError) else None


def error_paragraph(exc: BaseException) -> str:
    """The error as one bounded paragraph: its lines joined, its length cut."""
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= MESSAGE_CHARS else text[:MESSAGE_CHARS] + " ..."


def run_script(fn: Callable[[], int | None]) -> int:
    """Run a ``python -m`` study script's body: Ctrl-C exits with 130 (the scripts resume
    from what they wrote); any other error keeps its traceback (they are developers' tools,
    not commands, so :func:`run_command`'s one-line errors would hide a bug)."""
    try:
        return int(fn() or 0)
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED


def run_command(name: str, fn: Callable[[], int | None], interrupted: str | None = None) -> int:
    """Run a sub-command's body through the one error-handling path (see the module docstring).

    ``interrupted`` is what the command says after Ctrl-C (its module's ``INTERRUPTED``,
    e.g. how to resume).
    """
    try:
        return int(fn() or 0)
    except KeyboardInterrupt:
        print(f"\ncarioca {name}: interrupted" + (f"; {interrupted}" if interrupted else ""), file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # the reader went away (| head): nothing more can be shown; keep the interpreter's
        # final flush of stdout from raising again
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        return EXIT_BROKEN_PIPE
    except (MissingExtraError, ModuleNotFoundError) as exc:
        # an optional extra that is not installed: say which one to install
        hint = extra_hint(exc)
        if hint is None:
            raise  # a module of the project itself is missing: a bug, keep the traceback
        print(f"carioca {name}: error: {hint}", file=sys.stderr)
        return EXIT_ERROR
    except user_errors() as exc:
        try:
            sys.stdout.flush()
        except (OSError, ValueError):
            pass
        print(f"carioca {name}: error: {error_paragraph(exc)}", file=sys.stderr)
        return EXIT_ERROR


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``carioca`` command line; returns the exit code."""
    argv = list(sys.argv[1:] if argv is None else argv)
    name = command_in(argv)
    if name in STUDY_COMMANDS and not studies_present():
        print(f"carioca {name}: error: {name} is a study's command (experiments/studies/ of the repository), which "
              f"the installed package leaves out: run it from a checkout (git clone, then make venv)", file=sys.stderr)
        return EXIT_ERROR
    try:
        if name is not None:
            require("this command", *NEEDS.get(name, ()))
        # only the named command's module is imported: --help and --version import none
        parser, modules = build_parser(() if name is None else (name,))
    except (MissingExtraError, ModuleNotFoundError) as exc:
        hint = extra_hint(exc)
        if hint is None or name is None:
            raise  # a module of the project itself is missing: a bug, keep the traceback
        print(f"carioca {name}: error: {hint}", file=sys.stderr)
        return EXIT_ERROR
    args = parser.parse_args(argv)
    # an installed console script has no working directory on the import path, but a
    # py:my_agent:make_agent plugin next to the user is meant to load (carioca_agents.plugins)
    from carioca_agents.plugins import allow_working_directory

    allow_working_directory()
    module = importlib.import_module(modules[args.command])
    return run_command(args.command, lambda: module.run(args), getattr(module, "INTERRUPTED", None))


if __name__ == "__main__":
    sys.exit(main())
