"""Registration with Gymnasium and PettingZoo works whatever the import order.

Each order runs in a fresh interpreter, since an import happens once per process.
"""

from __future__ import annotations

import itertools
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

MAKE_ALL = (
    "import gymnasium, pettingzoo, sys\n"
    "made = [gymnasium.make('Carioca-v0', num_players=2).spec.id,\n"
    "        gymnasium.make('carioca_env:Carioca-v0', num_players=3).unwrapped.config.num_players,\n"
    "        len(pettingzoo.make('aec', 'carioca/carioca-v0', num_players=4).possible_agents)]\n"
    "own = [type(sys.modules[m].__spec__.loader).__name__ for m in ('gymnasium', 'pettingzoo')]\n"
    "watching = [type(f).__name__ for f in sys.meta_path if 'Register' in type(f).__name__]\n"
    "print(made, own, watching)\n"
)


def _run(code: str) -> str:
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip().splitlines()[-1]


@pytest.mark.parametrize("order", list(itertools.permutations(("carioca_env", "gymnasium", "pettingzoo"))),
                         ids="-".join)
def test_every_import_order_registers_both(order: tuple[str, ...]):
    out = _run("".join(f"import {name}\n" for name in order) + MAKE_ALL)
    # the frameworks keep their own loaders, and nothing is left watching imports
    assert out == "['Carioca-v0', 3, 4] ['SourceFileLoader', 'SourceFileLoader'] []"


def test_a_submodule_import_registers_too():
    out = _run("import carioca_env\nfrom gymnasium.spaces import Box\n" + MAKE_ALL)
    assert out.startswith("['Carioca-v0', 3, 4]")


def test_the_package_alone_still_imports_no_framework():
    out = _run("import sys, carioca_env; print([m for m in ('gymnasium', 'pettingzoo') if m in sys.modules])")
    assert out == "[]"


@pytest.mark.parametrize("first", ["carioca_env", "stable_baselines3"])
def test_sb3_make_vec_env_by_id_in_either_order(first: str):
    imports = ["import carioca_env", "from stable_baselines3.common.env_util import make_vec_env"]
    if first != "carioca_env":
        imports.reverse()
    out = _run("\n".join(imports) + "\n"
               "from stable_baselines3.common.env_util import make_vec_env\n"
               "venv = make_vec_env('Carioca-v0', n_envs=2, seed=0)\n"
               "import gymnasium\n"
               "print(venv.num_envs, venv.reset().shape[1:] == gymnasium.make('Carioca-v0').observation_space.shape)\n")
    assert out == "2 True"
