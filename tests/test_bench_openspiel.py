"""``carioca bench``'s ``python_carioca`` units: Carioca through OpenSpiel's interface,
measured in the reference section beside OpenSpiel's gin_rummy."""

from __future__ import annotations

from carioca_experiments.evaluation import bench
from carioca_experiments.evaluation.bench.openspiel_carioca import python_carioca_units
from carioca_experiments.evaluation.bench.presentation import format_table

TINY = bench.Sizes(ref_decisions=300, ref_steps=50)


def test_random_play_through_openspiel_counts_decisions_and_chance_nodes() -> None:
    plain, with_obs = python_carioca_units(TINY, 0)
    assert (plain.key, with_obs.key) == ("ref.python_carioca.decisions", "ref.python_carioca.decisions_obs")
    for unit in (plain, with_obs):
        sample = unit.fn(0)
        extra = sample.extra
        assert extra["decisions"] == TINY.ref_decisions and sample.value > 0
        assert extra["chance_actions"] >= 2 * 12 + 1  # at least one deal dealt card by card
        assert extra["all_actions_per_s"] > sample.value  # states count the chance nodes too
    # seeded: the same repetition plays the same game (the same chance nodes)
    assert plain.fn(1).extra["chance_actions"] == plain.fn(1).extra["chance_actions"]


def test_the_reference_section_puts_it_beside_gin_rummy_and_reports_states() -> None:
    doc = bench.run_bench(sections=("reference",), sizes=TINY, seed=1, repeats=1, progress=False)
    keys = set(doc["metrics"])
    assert {"ref.openspiel.decisions", "ref.python_carioca.decisions", "ref.python_carioca.decisions_obs"} <= keys
    table = format_table(doc)
    assert "python_carioca" in table and "states/s" in table
