"""Torch threads where the project builds or loads a network (carioca_agents.threads)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from carioca_agents.threads import ENV_VAR, limit_torch_threads, torch_threads

ROOT = Path(__file__).resolve().parents[1]


def test_the_default_is_one_thread_and_the_variable_overrides_it(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv(ENV_VAR, raising=False)
    assert torch_threads() == 1
    monkeypatch.setenv(ENV_VAR, "3")
    assert torch_threads() == 3
    monkeypatch.setenv(ENV_VAR, "0")  # torch's own setting
    assert torch_threads() is None


@pytest.mark.parametrize("raw", ["x", "-1", "1.5", "two"])
def test_a_malformed_variable_is_refused_and_changes_nothing(monkeypatch: pytest.MonkeyPatch, raw: str):
    import torch

    before = torch.get_num_threads()
    monkeypatch.setenv(ENV_VAR, raw)
    with pytest.raises(ValueError, match=ENV_VAR):
        limit_torch_threads()
    assert torch.get_num_threads() == before


def _threads_after_loading(env_value: str | None) -> str:
    env = {k: v for k, v in os.environ.items() if k != ENV_VAR}
    if env_value is not None:
        env[ENV_VAR] = env_value
    code = ("import torch; torch.set_num_threads(2)\n"
            "from carioca_agents.ppo_agent import load_model\n"
            "load_model('contract1')\n"
            "print(torch.get_num_threads())\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, env=env, timeout=300)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip().splitlines()[-1]


def test_loading_a_model_for_play_sets_one_thread_unless_told_otherwise():
    assert _threads_after_loading(None) == "1"
    assert _threads_after_loading("0") == "2"


def test_the_cli_refuses_a_malformed_variable_in_one_line(tmp_path: Path):
    env = {**os.environ, ENV_VAR: "many"}
    out = subprocess.run([sys.executable, "-m", "carioca_experiments.cli", "train", "--steps", "64", "--out", str(tmp_path / "r"),
                          "--no-progress", "--no-tensorboard"], capture_output=True, text=True, cwd=ROOT, env=env,
                         timeout=300)
    assert out.returncode == 2 and out.stderr.strip().splitlines() == [
        f"carioca train: error: {ENV_VAR} must be a whole number of threads (0: torch's default), got 'many'"]
    assert not (tmp_path / "r").exists()
