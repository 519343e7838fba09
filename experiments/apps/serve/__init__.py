"""``carioca serve``: a local web app to watch games and play against the bots.

The package is an optional extra (``pip install -e .[web]``: FastAPI, uvicorn, Jinja2).
Its modules, each one job:

- :mod:`~carioca_experiments.apps.serve.cli`: the ``carioca serve`` sub-command (needs no web
  package to print its ``--help``).
- :mod:`~carioca_experiments.apps.serve.app`: the FastAPI application and its routes.
- :mod:`~carioca_experiments.apps.serve.safepath`: every file name a request carries is resolved
  inside the served folder or refused.
- :mod:`~carioca_experiments.apps.serve.discovery`: finds records, tournaments, training runs and
  models under the folder.
- :mod:`~carioca_experiments.apps.serve.frames`: a position as JSON for the browser (from a
  ``PlayerView``; every hand only in the all-hands mode).
- :mod:`~carioca_experiments.apps.serve.replays`: records replayed once and stepped to any move.
- :mod:`~carioca_experiments.apps.serve.sessions`: games a person plays, saved atomically after every
  move, with a lock and a version per game.
- :mod:`~carioca_experiments.apps.serve.clicks`: the openings that cards grouped by clicks can mean.
- :mod:`~carioca_experiments.apps.serve.policy`: a ``ppo:`` model's probabilities over the legal moves.
- ``templates/`` and ``static/``: the pages and a small vanilla-JS front end, served
  from the package (no CDN).
"""

from carioca_experiments.apps.serve.cli import add_arguments, run

__all__ = ["add_arguments", "run"]
