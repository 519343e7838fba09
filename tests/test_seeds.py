"""One derive_seed for every purpose: the same seeds as the per-purpose functions it replaced.

The expected values were computed by the functions of the commit before the merge
(f81fc47: tournament/config.derive_seed, imitate/config.derive_seed,
improve/config.derive_seed, luck/fit.fit_seed, belief/records.belief_seed,
web/sessions.bot_seed and bench/units._seed), so every deck, agent seed and benchmark
workload stays what it was.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from carioca_experiments.common import seeds
from carioca_experiments.common.seeds import derive_seed

OLD_SEEDS = {
    "TOURNAMENT": [
        ((0, "deck", 1, 0), 9172991919259438687),
        ((7, "game", 3, 12), 1491924491481090895),
        ((123456789, "agent", 7, 99, 3), 7401763917984317045),
        ((1099511627776, "seating", 2, 5), 6252706173245236407),
    ],
    "IMITATE": [
        ((0, "train", "game", 0, 1), 8021796816013305561),
        ((5, "heldout", "teacher", 2, 7), 3528523514340392245),
        ((9, "network"), 3823191487173284963),
        ((1, "fit", 3), 1074823467630066633),
    ],
    "IMPROVE": [
        ((0, "train", "game", 0), 7530975682016867274),
        ((3, "heldout", "teacher", 4, 1), 590269091318498185),
        ((11, "batches", 2), 3096467592953073639),
        ((2, "train", "rollouts", 9), 4544448607784801546),
    ],
    "LUCK_FIT": [
        ((0, "deal", 2, 1, 0), 4638281389696922972),
        ((4, "agent", 4, 7, 3, 2), 7965603528317175452),
        ((1, "game", 3, 5, 149), 6360816329276664487),
    ],
    "BELIEF": [
        ((0, "deal", 2, 1, 0), 7614642001661222073),
        ((8, "agent", 3, 6, 4, 1), 3191266267429517603),
        ((2, "record", 4, 7, 10), 5253364587085884835),
        ((1, "game", 2, 2, 3), 3294504195981986610),
    ],
    "SERVE_BOT": [
        ((0, 1, 0), 903312594824179548),
        ((12345, 3, 417), 5683549188509813522),
        ((2147483648, 0, 9), 1030718186706455141),
    ],
    "BENCH": [
        ((0, "engine", 2, 1), 3550247029),
        ((1, "env", "aec", 4), 1332676594),
        ((42, "masks", 3, "opening"), 1147354556),
        ((7, "ppo", 0), 2228501235),
    ],
}


@pytest.mark.parametrize("name", sorted(OLD_SEEDS))
def test_every_namespace_gives_the_seeds_of_the_function_it_replaced(name: str) -> None:
    namespace = getattr(seeds, name)
    for args, expected in OLD_SEEDS[name]:
        assert derive_seed(namespace, *args) == expected, (name, args)


PARTS = st.lists(st.one_of(st.integers(-10**6, 10**6), st.sampled_from(["deck", "game", "agent", "fit"])),
                 max_size=4)


@given(seed=st.integers(0, 2**63), parts=PARTS)
def test_seeds_fit_their_width_and_namespaces_differ(seed: int, parts: list[object]) -> None:
    tagged = [derive_seed(getattr(seeds, n), seed, *parts) for n in sorted(OLD_SEEDS) if n != "BENCH"]
    assert all(0 <= s < 2**63 for s in tagged)
    assert len(set(tagged)) == len(tagged)  # no two purposes share a seed
    assert 0 <= derive_seed(seeds.BENCH, seed, *parts) < 2**32
