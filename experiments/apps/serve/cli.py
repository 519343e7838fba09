"""``carioca serve``: the local web app to watch games and play against the bots.

It serves one folder (``--records``, default the current one): its front page lists the
game records, tournaments and training runs under it; games played in the browser are
saved under ``web-games/`` in it.  It binds to 127.0.0.1 unless ``--host`` says
otherwise.  A request may name the built-in agents, shipped models and models inside
the folder, never code: user agents are played only when the operator names them here,
``--allow-plugin LABEL=SPEC`` (the safety model: ``docs/serve-safety.md``).  It needs
the ``[web]`` extra (``pip install -e .[web]``); ``--help`` works without it.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, field
from pathlib import Path

#: addresses that reach this machine only
LOOPBACK = ("127.0.0.1", "localhost", "::1")


@dataclass(frozen=True)
class ServeConfig:
    """The options of ``carioca serve``.

    Attributes:
        records: the folder to serve.
        host: the address to bind.
        port: the TCP port.
        plugins: the operator's ``LABEL=SPEC`` texts (user code requests may name by label).
    """

    records: Path = Path(".")
    host: str = "127.0.0.1"
    port: int = 8000
    plugins: tuple[str, ...] = field(default_factory=tuple)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``carioca serve``."""
    parser.add_argument("--records", type=Path, default=Path("."), metavar="DIR",
                        help="the folder to serve: records, tournaments and runs under it (default: the current folder)")
    parser.add_argument("--port", type=int, default=8000, help="TCP port (default 8000)")
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to bind (default 127.0.0.1: this machine only; anything else exposes the folder)")
    parser.add_argument("--allow-plugin", action="append", default=[], metavar="LABEL=SPEC", dest="plugins",
                        help="let requests name LABEL, which plays the agent SPEC (user code such as "
                             "py:my_pkg.bots:make_agent:depth=2, or an installed plugin's name; a bare NAME is "
                             "NAME=NAME). Requests never name code themselves. Repeatable.")


def config_from_args(args: argparse.Namespace) -> ServeConfig:
    """The config of parsed arguments."""
    return ServeConfig(records=args.records, host=args.host, port=args.port, plugins=tuple(args.plugins))


def _plugins(texts: tuple[str, ...]) -> dict:
    """The operator's plugins, parsed and each built once (so one that fails stops the start).

    Raises:
        ValueError: a bad ``LABEL=SPEC``, a label given twice, or an agent that cannot be built.
    """
    from carioca_agents.allowlist import parse_plugin_option
    from carioca_agents.registry import build_agent

    out = {}
    for text in texts:
        label, parsed = parse_plugin_option(text)
        if label in out:
            raise ValueError(f"--allow-plugin: the label {label!r} is given twice")
        try:
            build_agent(parsed, 0)
        except Exception as exc:  # the operator's own code: whatever it raises, say so and stop
            raise ValueError(f"--allow-plugin {text}: the agent cannot be built: {type(exc).__name__}: {exc}") from None
        out[label] = parsed
    return out


def run(args: argparse.Namespace) -> int:
    """Start the server (blocks until interrupted)."""
    return serve(config_from_args(args))


def serve(config: ServeConfig) -> int:
    """Check every option, then serve (blocks until interrupted); 2 on a refused option."""
    try:
        import uvicorn

        from carioca_experiments.apps.serve.app import create_app
    except ImportError as exc:
        print(f"carioca serve needs the web extra: pip install -e '.[web]' ({exc})", file=sys.stderr)
        return 2
    if not 0 < config.port < 65536:
        print(f"--port must be 1..65535, got {config.port}", file=sys.stderr)
        return 2
    try:
        plugins = _plugins(config.plugins)
        app = create_app(config.records, plugins)
    except (NotADirectoryError, ValueError) as exc:
        print(str(exc), file=sys.stderr)
        return 2
    if config.host not in LOOPBACK:
        print(f"warning: binding {config.host}: other machines can read {config.records} and play here", file=sys.stderr)
    if plugins:
        print(f"requests may name these plugins (user code): {', '.join(sorted(plugins))}", file=sys.stderr)
    print(f"carioca serve: http://{config.host}:{config.port}/ serving {Path(config.records).resolve()}", file=sys.stderr)
    uvicorn.run(app, host=config.host, port=config.port, log_level="warning")
    return 0
