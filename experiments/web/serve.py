"""``carioca serve``: the local web app to watch games and play against the bots.

It serves one folder (``--records``, default the current one): its front page lists the
game records, tournaments and training runs under it; games played in the browser are
saved under ``web-games/`` in it.  It binds to 127.0.0.1 unless ``--host`` says
otherwise.  It needs the ``[web]`` extra (``pip install -e .[web]``); ``--help`` works
without it.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``carioca serve``."""
    parser.add_argument("--records", type=Path, default=Path("."), metavar="DIR",
                        help="the folder to serve: records, tournaments and runs under it (default: the current folder)")
    parser.add_argument("--port", type=int, default=8000, help="TCP port (default 8000)")
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to bind (default 127.0.0.1: this machine only; anything else exposes the folder)")


def run(args: argparse.Namespace) -> int:
    """Start the server (blocks until interrupted)."""
    try:
        import uvicorn

        from experiments.web.app import create_app
    except ImportError as exc:
        print(f"carioca serve needs the web extra: pip install -e '.[web]' ({exc})", file=sys.stderr)
        return 2
    if not 0 < args.port < 65536:
        print(f"--port must be 1..65535, got {args.port}", file=sys.stderr)
        return 2
    try:
        app = create_app(args.records)
    except NotADirectoryError as exc:
        print(str(exc), file=sys.stderr)
        return 2
    if args.host not in ("127.0.0.1", "localhost", "::1"):
        print(f"warning: binding {args.host}: other machines can read {args.records} and play here", file=sys.stderr)
    print(f"carioca serve: http://{args.host}:{args.port}/ serving {Path(args.records).resolve()}", file=sys.stderr)
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0
