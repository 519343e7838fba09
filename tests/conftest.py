"""Shared test set-up: the helper modules and the test tiers.

Helpers shared by several test files live next to them as plain modules (``bad_input``,
``checker``, ``plugin_agents``, ``random_play``, ``web_helpers``) and are imported by name:
pytest puts this folder, the one holding the root ``conftest.py``, on ``sys.path``
(its default ``prepend`` import mode), so no test reaches for ``sys.path`` itself.

Tiers (markers registered in ``pyproject.toml``): ``make test`` runs every test, as CI
does; ``make test-fast`` leaves out the three below.  A test file may mark its own tests;
the rules here mark the ones whose tier follows from what they use:

- ``browser``: every test of ``test_web_browser.py`` (Playwright driving chromium);
- ``ray``: every test that starts or joins a Ray cluster (it uses the ``ray_cluster``
  fixture, or runs the ``ray`` backend);
- ``slow``: the tests listed in :data:`SLOW`, each above about 10 s on an idle 2-core
  machine (``pytest --durations=0`` shows them).
"""

from __future__ import annotations

from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent

#: test file -> names (without parameters) of its tests that take more than about 10 s
SLOW: dict[str, frozenset[str]] = {}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark each test with the tier that follows from its file, name and fixtures."""
    for item in items:
        path = Path(str(item.fspath))
        name = getattr(item, "originalname", item.name)
        if path.name == "test_web_browser.py":
            item.add_marker(pytest.mark.browser)
        params = getattr(getattr(item, "callspec", None), "params", {})
        ray_backend = any(isinstance(v, str) and v == "ray" for v in params.values())
        if "ray_cluster" in getattr(item, "fixturenames", ()) or ray_backend:
            item.add_marker(pytest.mark.ray)
        if name in SLOW.get(path.name, frozenset()):
            item.add_marker(pytest.mark.slow)
