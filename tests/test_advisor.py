"""The advice pieces' advisor is recorded on model cards and checked at load time."""

from __future__ import annotations

import json
import shutil
import warnings
from pathlib import Path

import pytest

import carioca_agents.advice as advice
from carioca_agents.ppo_agent import (
    SHIPPED_DIR,
    AdvisorChangedWarning,
    AdvisorMismatchError,
    card_features,
    check_advisor,
    env_layout,
    load_model,
    model_card,
    shipped_models,
)
from carioca_env.observation import feature_sources


def test_the_advice_sets_name_the_heuristic_as_their_advisor() -> None:
    want = {"advisor": "heuristic", "version": advice.ADVISOR_VERSION, "fingerprint": advice.advisor_fingerprint()}
    assert feature_sources("advice_play") == {"advice": want, "advice_play": want}
    assert model_card(2, "advice")["advisors"] == {"advice": want}
    assert "advisors" not in model_card(2, "discards")


def test_the_fingerprint_follows_the_heuristics_weights(monkeypatch: pytest.MonkeyPatch) -> None:
    before = advice.advisor_fingerprint()
    monkeypatch.setitem(advice.DEFAULT_PARAMS, "w_def", advice.DEFAULT_PARAMS["w_def"] + 1.0)
    assert advice.advisor_fingerprint() != before
    monkeypatch.undo()
    assert advice.advisor_fingerprint() == before


@pytest.mark.parametrize("name", shipped_models())
def test_every_shipped_card_records_the_current_advisor(name: str) -> None:
    card = json.loads((SHIPPED_DIR / name / "model.json").read_text())
    assert card["advisors"] == env_layout(card["num_players"], card_features(card))["advisors"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_advisor(card, name, strict=True)


def _copy_shipped(tmp_path: Path, edit) -> Path:
    folder = tmp_path / "model"
    shutil.copytree(SHIPPED_DIR / "contract2", folder)
    card = json.loads((folder / "model.json").read_text())
    edit(card)
    (folder / "model.json").write_text(json.dumps(card))
    return folder / "model.zip"


def _other_version(card: dict) -> None:
    for record in card["advisors"].values():
        record["version"] = "0"


@pytest.mark.parametrize("edit", [_other_version, lambda card: card.pop("advisors"),
                                  lambda card: card["advisors"]["advice"].update(fingerprint="0" * 16)])
def test_a_model_whose_advisor_changed_is_flagged_or_refused(tmp_path: Path, edit) -> None:
    path = _copy_shipped(tmp_path, edit)
    with pytest.warns(AdvisorChangedWarning, match="inputs may have changed meaning"):
        model, card = load_model(path)
    assert card_features(card) == "advice_play" and model is not None
    with pytest.raises(AdvisorMismatchError, match="this code computes them with"):
        load_model(path, strict_advisor=True)


def test_a_model_without_advice_pieces_needs_no_advisor() -> None:
    check_advisor(model_card(2, "discards"), "x", strict=True)
    with pytest.raises(AdvisorMismatchError, match="no advisor"):
        check_advisor({**model_card(2, "discards"), "advisors": {"advice": {"advisor": "heuristic"}}}, "x", strict=True)
