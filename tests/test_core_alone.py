"""The core stands alone: ``carioca_env`` imports nothing of ``agents`` or ``experiments``,
runs every feature set it owns where those cannot be imported, and takes extra
observation pieces only through its registry."""

from __future__ import annotations

import ast
import random
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from carioca_env import Game, GameConfig
from carioca_env.observation import (
    _REGISTERED,
    FEATURE_SETS,
    ExtraPieces,
    GameEncoder,
    check_features,
    encode_observation,
    feature_sets,
    feature_sources,
    has_pieces_of,
    obs_layout,
    register_feature_set,
)

ROOT = Path(__file__).resolve().parent.parent
UPPER = ("carioca_agents", "carioca_experiments")


def _upper_imports(path: Path) -> list[str]:
    """Every import of an upper layer in ``path``, at any depth (lazy ones included), and
    every ``import_module`` / ``__import__`` call whose argument names one."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        elif isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", "")) in (
                "import_module", "__import__"):
            names = [a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
        found += [f"{path.relative_to(ROOT)}:{node.lineno}: {n}" for n in names if n.split(".")[0] in UPPER]
    return found


def test_carioca_env_imports_no_upper_layer() -> None:
    files = sorted((ROOT / "carioca_env").rglob("*.py"))
    assert len(files) > 20
    assert [hit for f in files for hit in _upper_imports(f)] == []


def test_the_import_scan_sees_lazy_and_dynamic_imports(tmp_path: Path) -> None:
    """The scan above is not vacuous: it finds the import forms it looks for."""
    probe = ROOT / "carioca_env" / "_probe_for_test.py"
    src = ("def f():\n    from carioca_agents.heuristic import X\n    import carioca_experiments.evaluation.bench\n"
           "    importlib.import_module('carioca_agents.advice')\n")
    probe.write_text(src)
    try:
        assert len(_upper_imports(probe)) == 3
    finally:
        probe.unlink()


_BLOCKED = textwrap.dedent('''
    import sys

    class Block:
        """Refuse agents and experiments, as if they were not installed."""
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in ("carioca_agents", "carioca_experiments"):
                raise ModuleNotFoundError(f"blocked for the test: {name}")
            return None

    sys.meta_path.insert(0, Block())
''')


def _run_blocked(body: str) -> str:
    code = _BLOCKED + textwrap.dedent(body)
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def test_the_env_runs_every_core_feature_set_without_agents() -> None:
    out = _run_blocked('''
        import random
        import numpy as np
        try:
            import carioca_agents  # noqa: F401
            raise SystemExit("the block does not work")
        except ModuleNotFoundError:
            pass
        from carioca_env import Game, GameConfig, carioca_v0, register_envs
        from carioca_env.errors import InvalidConfigError
        from carioca_env.observation import FEATURE_SETS, feature_sets
        from carioca_env.wrappers import *  # noqa: F403
        import carioca_env.analysis, carioca_env.determinize, carioca_env.position, carioca_env.records
        assert feature_sets() == FEATURE_SETS == ("base", "planning", "discards"), feature_sets()
        for features in FEATURE_SETS:
            for n in (2, 3, 4):
                env = carioca_v0.env(num_players=n, features=features, deals=(1, 4, 7))
                env.reset(seed=n)
                rng = random.Random(n)
                for _ in range(150):
                    obs, _, term, trunc, _ = env.last()
                    if term or trunc:
                        break
                    assert obs["observation"].shape == env.observation_space(env.agent_selection)["observation"].shape
                    env.step(rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
        game = Game(GameConfig(3), seed=1)
        game.view(0), game.legal_moves(), game.clone(), game.determinize(0, random.Random(0))
        try:
            carioca_v0.env(features="advice")
            raise SystemExit("advice accepted without its registration")
        except InvalidConfigError as exc:
            assert "registered" in str(exc), exc
        import sys
        leaked = sorted(m for m in sys.modules if m.split(".")[0] in ("carioca_agents", "carioca_experiments"))
        print("ok", leaked)
    ''')
    assert out.strip() == "ok []"


# --------------------------------------------------------------------------- the registry


@pytest.fixture()
def registry():
    """Restore the registry (and the layout cache) after a test that registers."""
    saved = dict(_REGISTERED)
    yield
    _REGISTERED.clear()
    _REGISTERED.update(saved)
    obs_layout.cache_clear()


def _hand_parity(view, pending):
    """A toy piece: which card types the seat holds an odd number of, and how many
    pending melds (reads the view only)."""
    out = np.zeros(54, dtype=np.float32)
    out[:53] = [c % 2 for c in view.hand_counts]
    out[53] = len(pending) / 3.0
    return out


def test_a_registered_feature_set_extends_its_parent_everywhere(registry) -> None:
    register_feature_set(ExtraPieces("parity", "planning", lambda n: (("parity", 53, "odd counts"), ("pend", 1, "melds")),
                                     _hand_parity, {"advisor": "toy", "version": "1"}))
    assert feature_sets()[-1] == "parity"
    assert has_pieces_of("parity", "planning") and has_pieces_of("parity", "base")
    assert not has_pieces_of("parity", "discards") and not has_pieces_of("planning", "parity")
    assert feature_sources("parity") == {"parity": {"advisor": "toy", "version": "1"}}
    assert feature_sources("discards") == {}
    for n in (2, 3, 4):
        plan, par = obs_layout(n, "planning"), obs_layout(n, "parity")
        assert par.table()[: len(plan.pieces)] == plan.table()
        assert par.size == plan.size + 54 and par.slices["pend"].stop == par.size
        game = Game(GameConfig(n, (2,)), seed=n)
        encoder = GameEncoder(n, "parity")
        rng = random.Random(n)
        for _ in range(60):
            seat = game.current_player
            fast = encoder.encode(game, seat)
            assert np.array_equal(fast, encode_observation(game.view(seat), (), "parity"))
            assert np.array_equal(fast[par.slices["parity"]], [c % 2 for c in game.hands[seat]])
            game.apply(rng.choice(game.legal_moves()))


def test_registration_refuses_bad_definitions(registry) -> None:
    def extra(name: str, parent: str = "base", source: dict | None = None) -> ExtraPieces:
        return ExtraPieces(name, parent, lambda n: (("x", 54, "x"),), _hand_parity, source or {})

    for bad, match in ((extra("Bad-name"), "lowercase identifier"), (extra("planning"), "core feature set"),
                       (extra("orphan", "nowhere"), "not a feature set"),
                       (extra("typed", source={"version": 1}), "strings")):  # type: ignore[dict-item]
        with pytest.raises(ValueError, match=match):
            register_feature_set(bad)
    assert feature_sets() == FEATURE_SETS + tuple(_REGISTERED)
    register_feature_set(extra("toy", source={"version": "1"}))
    register_feature_set(extra("toy", source={"version": "1"}))  # the same again: a module imported twice
    with pytest.raises(ValueError, match="already registered"):
        register_feature_set(extra("toy", source={"version": "2"}))


def test_a_piece_of_the_wrong_size_is_refused(registry) -> None:
    register_feature_set(ExtraPieces("short", "base", lambda n: (("x", 60, "x"),), _hand_parity))
    game = Game(GameConfig(2), seed=0)
    with pytest.raises(RuntimeError, match="'short' encoded shape"):
        GameEncoder(2, "short").encode(game, 0)


def test_the_same_definition_again_keeps_the_layouts_built(registry) -> None:
    """A model loader registers its feature sets at every card it reads: the same
    definition again must not throw away the layouts already built (a new definition of a
    registered name is refused, and a replaced one would clear them)."""
    parity = ExtraPieces("parity2", "base", lambda n: (("parity", 53, "odd counts"), ("pend", 1, "melds")),
                         _hand_parity, {"version": "1"})
    register_feature_set(parity)
    obs_layout.cache_clear()
    layout = obs_layout(2, "parity2")
    register_feature_set(parity)
    assert obs_layout(2, "parity2") is layout and obs_layout.cache_info().hits == 1


def test_the_advice_sets_register_once_and_through_their_entry_points(registry) -> None:
    from importlib import metadata

    names = {ep.name: ep.value for ep in metadata.entry_points(group="carioca_env.feature_sets")}
    assert names == {"advice": "carioca_agents.advice:register_advice",
                     "advice_play": "carioca_agents.advice:register_advice"}
    _REGISTERED.pop("advice_play", None)
    _REGISTERED.pop("advice", None)
    assert "advice_play" not in feature_sets()
    layout = obs_layout(2, check_features("advice_play"))  # the core asks the entry point
    assert {"advice", "advice_play"} <= set(feature_sets())
    from carioca_agents.advice import register_advice

    register_advice()
    assert obs_layout(2, "advice_play") is layout
