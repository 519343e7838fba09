"""Shipped model files keep their weights in float16: smaller, loadable as before, and
playing what the float32 network plays."""

from __future__ import annotations

import zipfile
from pathlib import Path

import numpy as np
import pytest
import torch

from carioca_agents.model_file import compact_model_file, is_model_file, weight_dtypes
from carioca_env.observation import obs_layout
from carioca_experiments.training.imitate.config import ImitateConfig
from carioca_experiments.training.imitate.learn import _forward, build_model


def _saved(tmp_path: Path, card_head: bool = True) -> Path:
    model = build_model(ImitateConfig(contract=5, players=2, features="discards", net_arch=(64, 64),
                                      card_head=card_head))
    path = tmp_path / "model.zip"
    model.save(path)
    return path


@pytest.mark.parametrize("card_head", [False, True])
def test_a_compacted_file_is_half_the_size_and_loads_with_float32_parameters(tmp_path: Path, card_head: bool) -> None:
    from sb3_contrib import MaskablePPO

    src = _saved(tmp_path, card_head)
    size = compact_model_file(src, tmp_path / "half.zip")
    assert size == (tmp_path / "half.zip").stat().st_size
    assert size < 0.6 * src.stat().st_size, (size, src.stat().st_size)
    assert weight_dtypes(src) == {"float32"} and weight_dtypes(tmp_path / "half.zip") == {"float16"}
    loaded = MaskablePPO.load(tmp_path / "half.zip", device="cpu")
    assert {p.dtype for p in loaded.policy.parameters()} == {torch.float32}


def test_a_compacted_policy_acts_as_the_original_within_float16_rounding(tmp_path: Path) -> None:
    from sb3_contrib import MaskablePPO

    src = _saved(tmp_path)
    compact_model_file(src, tmp_path / "half.zip")
    full, half = MaskablePPO.load(src, device="cpu"), MaskablePPO.load(tmp_path / "half.zip", device="cpu")
    for a, b in zip(full.policy.state_dict().values(), half.policy.state_dict().values()):
        # each weight moved by at most float16's half-ulp (relative 2**-11)
        assert torch.all((a - b).abs() <= a.abs() * 2.0**-11 + 1e-7)
    rng = np.random.default_rng(0)
    obs = torch.as_tensor(rng.random((256, obs_layout(2, "discards").size), dtype=np.float32))
    masks = torch.as_tensor(rng.random((256, full.policy.action_net.out_features)) < 0.1)
    masks[:, 0] = True
    lf, vf = _forward(full.policy, obs, masks)
    lh, vh = _forward(half.policy, obs, masks)
    assert not torch.equal(lf, lh)  # the weights really were rounded
    assert torch.allclose(lf[masks], lh[masks], atol=1e-2) and torch.allclose(vf, vh, atol=1e-2)


def test_compacting_in_place_and_refusing_a_file_that_is_no_model(tmp_path: Path) -> None:
    src = _saved(tmp_path, card_head=False)
    before = src.stat().st_size
    assert compact_model_file(src, src) < before and weight_dtypes(src) == {"float16"}
    assert is_model_file(src)
    other = tmp_path / "notes.zip"
    with zipfile.ZipFile(other, "w") as z:
        z.writestr("data", "{}")
    assert not is_model_file(other) and not is_model_file(tmp_path / "missing.zip")
    (tmp_path / "text.zip").write_text("not a zip")
    assert not is_model_file(tmp_path / "text.zip")
    with pytest.raises(ValueError, match="policy.pth"):
        compact_model_file(other, tmp_path / "out.zip")
    assert not (tmp_path / "out.zip").exists()
