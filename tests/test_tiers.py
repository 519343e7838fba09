"""The test tiers of tests/conftest.py name tests that exist, and `make test-fast` leaves them out."""

from __future__ import annotations

import ast
from pathlib import Path

from conftest import SLOW

HERE = Path(__file__).resolve().parent


def test_every_slow_name_is_a_test_of_its_file():
    for file, names in SLOW.items():
        tree = ast.parse((HERE / file).read_text())
        defined = {node.name for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)}
        assert names <= defined, f"{file}: no test named {sorted(names - defined)} (renamed? update SLOW)"


def test_the_fast_target_deselects_the_three_tiers():
    makefile = (HERE.parent / "Makefile").read_text()
    assert '-m "not slow and not browser and not ray"' in makefile
