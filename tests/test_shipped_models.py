"""The models shipped in ``agents/models``: loadable by name anywhere, legal on every contract, small, portable cards."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from carioca_agents.model_file import weight_dtypes
from carioca_agents.ppo_agent import SHIPPED_DIR, ModelLoadError, PPOAgent, resolve_model_path, shipped_models
from carioca_agents.registry import make_agent
from carioca_env.errors import CariocaError

from random_play import assert_plays_legally

ROOT = Path(__file__).resolve().parent.parent
NAMES = shipped_models()


def test_there_is_a_shipped_model_and_every_folder_is_named_by_the_scheme() -> None:
    assert NAMES, "agents/models ships at least one model"
    folders = sorted(p.name for p in SHIPPED_DIR.iterdir() if p.is_dir())
    assert folders == NAMES  # no folder that the names would not reach


def test_shipped_models_are_small() -> None:
    sizes = {n: (SHIPPED_DIR / n / "model.zip").stat().st_size for n in NAMES}
    assert all(s <= 4 * 2**20 for s in sizes.values()), sizes
    assert sum(sizes.values()) <= 30 * 2**20, sizes


@pytest.mark.parametrize("name", NAMES)
def test_shipped_weights_are_stored_in_float16_as_the_card_says(name: str) -> None:
    # the 30 MB budget holds only with halved weights (agents/model_file.py)
    card = json.loads((SHIPPED_DIR / name / "model.json").read_text())
    assert card["stored_weights"] == "float16"
    assert weight_dtypes(SHIPPED_DIR / name / "model.zip") == {"float16"}


def _strings(x):
    if isinstance(x, str):
        yield x
    elif isinstance(x, dict):
        for v in x.values():
            yield from _strings(v)
    elif isinstance(x, list):
        for v in x:
            yield from _strings(v)


@pytest.mark.parametrize("name", NAMES)
def test_model_card_has_no_absolute_path(name: str) -> None:
    for f in (SHIPPED_DIR / name).glob("*.json"):
        for text in _strings(json.loads(f.read_text())):
            assert not re.search(r"(^|[\s=])(/|[A-Za-z]:\\)[\w.-]+[/\\]", text), (f.name, text)


@pytest.mark.parametrize("name", NAMES)
def test_shipped_model_plays_only_legal_moves_on_every_contract(name: str) -> None:
    agent = make_agent(f"ppo:{name}", seed=1)
    assert isinstance(agent, PPOAgent) and agent.path == SHIPPED_DIR / name / "model.zip"
    assert_plays_legally(agent, agent.num_players, range(1, 8), 40)


def test_names_load_from_any_working_directory(tmp_path: Path) -> None:
    code = ("from carioca_agents.registry import make_agent; import sys; "
            f"a = make_agent('ppo:{NAMES[0]}'); print(a.path)")
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert Path(out.stdout.strip()) == SHIPPED_DIR / NAMES[0] / "model.zip"


def test_an_unshipped_name_lists_the_shipped_ones_and_paths_still_work(tmp_path: Path) -> None:
    missing = next(f"contract{k}-p3" for k in range(1, 8) if f"contract{k}-p3" not in NAMES)
    with pytest.raises(ModelLoadError, match="shipped"):
        resolve_model_path(missing)
    with pytest.raises(CariocaError):  # one class catches every refusal of the project
        resolve_model_path(missing)
    # a path (with a separator) is a path, even to a folder named like a shipped model
    folder = tmp_path / NAMES[0]
    folder.mkdir()
    for f in ("model.zip", "model.json"):
        (folder / f).write_bytes((SHIPPED_DIR / NAMES[0] / f).read_bytes())
    agent = make_agent(f"ppo:{folder}", seed=0)
    assert agent.path == folder / "model.zip"


@pytest.mark.parametrize("name", NAMES)
def test_card_says_what_the_network_is(name: str) -> None:
    """The card's features, card head and advice prior are the loaded network's (``--init``
    reads them)."""
    from carioca_agents.action_prior import AdvicePassThrough, AdvicePriorHead
    from carioca_agents.ppo_policy import CardScores
    from carioca_env.observation import obs_layout

    agent = make_agent(f"ppo:{name}", seed=0)
    settings = agent.card.get("settings") or {}
    policy = agent.model.policy
    net = policy.mlp_extractor.policy_net
    has_prior = isinstance(policy.action_net, AdvicePriorHead)
    assert bool(settings.get("action_prior")) == has_prior == isinstance(net, AdvicePassThrough), name
    has_head = isinstance(net.base if has_prior else net, CardScores)
    assert bool(settings.get("card_head")) == has_head, name
    features = agent.card.get("features", "base")
    assert agent.model.observation_space.shape[0] == obs_layout(agent.num_players, features).size
