"""Shared test set-up: the helper modules and the test tiers.

Helpers shared by several test files live next to them as plain modules (``bad_input``,
``checker``, ``plugin_agents``, ``random_play``, ``web_helpers``) and are imported by name:
pytest puts this folder, the one holding the root ``conftest.py``, on ``sys.path``
(its default ``prepend`` import mode), so no test reaches for ``sys.path`` itself.

Tiers (markers registered in ``pyproject.toml``): ``make test`` runs every test, as CI
does; ``make test-fast`` leaves out the three below.  A test file may mark its own tests;
the rules here mark the ones whose tier follows from what they use:

- ``browser``: every test of ``test_web_browser.py`` and ``test_web_explain_browser.py``
  (Playwright driving chromium);
- ``ray``: every test that starts or joins a Ray cluster (it uses the ``ray_cluster``
  fixture, or runs the ``ray`` backend);
- ``slow``: the tests listed in :data:`SLOW`, each above about 10 s on an idle 2-core
  machine (``pytest --durations=0`` shows them);
- ``study``: every test under ``tests/studies/``, the tests of the studies kept in
  ``experiments/studies/`` (not in the wheel), and every parameter of a table of command
  lines that runs a study's command (``carioca improve ...``).  CI runs them with the rest;
  ``make test-studies`` runs them alone.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from carioca_experiments.cli import STUDY_COMMANDS

HERE = Path(__file__).resolve().parent

#: test file -> names (without parameters) of its tests that take more than about 10 s
#: (measured with --durations on a loaded 2-core machine, where they took 28 s or more)
SLOW: dict[str, frozenset[str]] = {
    "test_action_prior.py": frozenset({"test_fresh_weights_and_every_logit_path_agree"}),
    "test_bad_input_records.py": frozenset({"test_fuzz_parse_card_raises_only_project_errors"}),
    "test_bench.py": frozenset({"test_document_structure"}),
    "test_docs.py": frozenset({"test_python_block_runs", "test_the_strict_site_build_renders_no_raw_rest"}),
    "test_env.py": frozenset({"test_every_engine_opening_is_reachable_and_every_step_sequence_is_legal",
                              "test_mask_is_exact_against_engine_on_random_states",
                              "test_observation_does_not_depend_on_hidden_cards"}),
    "test_imitate.py": frozenset({"test_learned_set_pipeline_runs_resumes_and_ships"}),
    "test_mask_checker.py": frozenset({"test_generator_matches_independent_checker", "test_many_swaps_and_layoffs_were_checked"}),
    "test_planning_obs.py": frozenset({"test_advice_play_is_the_heuristics_next_meld", "test_fast_planning_encoder_equals_the_view_based_reference"}),
    "test_plots.py": frozenset({"test_train_all_plots_keep_legends_off_the_data"}),
    "test_plugins.py": frozenset({"test_a_plugin_plays_in_a_local_tournament_with_two_workers"}),
    "test_ppo_policy.py": frozenset({"test_inverse_cdf_sampling_matches_the_probabilities"}),
    "test_progress.py": frozenset({"test_tournament_cli_log_has_no_carriage_returns"}),
    "test_properties.py": frozenset({"test_invariants_hold_along_random_play"}),
    "test_tournament.py": frozenset({"test_resume_after_sigkill_gives_the_same_summary"}),
    "test_train.py": frozenset({"test_short_training_beats_random_on_a_fixed_duplicate_sample", "test_train_all_quick_runs_every_stage"}),
}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark each test with the tier that follows from its file, name and fixtures."""
    for item in items:
        path = Path(str(item.fspath))
        name = getattr(item, "originalname", item.name)
        if path.name in ("test_web_browser.py", "test_web_explain_browser.py"):
            item.add_marker(pytest.mark.browser)
        params = getattr(getattr(item, "callspec", None), "params", {})
        ray_backend = any(isinstance(v, str) and v == "ray" for v in params.values())
        if "ray_cluster" in getattr(item, "fixturenames", ()) or ray_backend:
            item.add_marker(pytest.mark.ray)
        if name in SLOW.get(path.name, frozenset()):
            item.add_marker(pytest.mark.slow)
        study_command = any(isinstance(v, str) and v.split(" ", 1)[0] in STUDY_COMMANDS for v in params.values())
        if (path.parent.name == "studies" and path.parent.parent == HERE) or study_command:
            item.add_marker(pytest.mark.study)
