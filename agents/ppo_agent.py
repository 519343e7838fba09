"""``ppo:PATH``: a trained MaskablePPO policy playing through the action table.

A saved model is two files side by side: ``model.zip`` (``MaskablePPO.save``) and its
model card ``model.json`` (written by ``carioca train``; see :func:`model_card`).  The
card says which observation and action layout the network was made for; a model made
for another layout (another player count, or an older encoding) is refused with a
message that says what the model was made for and what this environment has, because a
network fed the wrong vector plays nonsense without failing.

The agent plays from its seat's :class:`~carioca_env.PlayerView` only, exactly as the
environment would present it: ``encode_observation(view, pending)`` and
``action_table(n).legal_mask(legal, seat, pending)``, then the masked greedy action
(``deterministic=True``).  An opening is chosen one meld per step as in the env; the
agent loops until the contract's melds are chosen and returns the whole ``open`` move.

``make_agent("ppo:contract1")`` (a model shipped in ``agents/models/``, by name:
``contract<K>``, ``contract<K>-p4``, ``full``, ``full-p4``, from any working directory),
``make_agent("ppo:runs/c1")`` (a folder holding ``model.zip``) or
``make_agent("ppo:runs/c1/model.zip")`` builds one; loaded models are cached by
path, size and modification time, so a tournament that builds an agent per deal loads
the file once per process.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from carioca_agents.advice import register_advice
from carioca_agents.base import DeclaredChoice
from carioca_env import Move, PlayerView
from carioca_env.actions import action_table
from carioca_env.errors import CariocaError, RecordError
from carioca_env.explanations import Candidate, Explanation, forced
from carioca_env.melds import Meld
from carioca_env.observation import check_features, encode_observation, feature_sets, feature_sources, obs_layout
from carioca_env.records import read_json_file

CARD_FORMAT = "carioca-ppo-model"
CARD_VERSION = 1
MODEL_FILE = "model.zip"


class ModelLoadError(CariocaError):
    """A model file or its card is missing, unreadable or corrupt (a :class:`CariocaError`,
    so callers can catch every refusal of the project with one class)."""


class ModelMismatchError(ModelLoadError):
    """A model made for another observation / action layout than this environment's."""


class AdvisorMismatchError(ModelMismatchError):
    """A model whose observation pieces were computed by another advisor (or another
    version of it) than this code's: the layout matches, the inputs' meaning does not."""


class AdvisorChangedWarning(UserWarning):
    """Warned when a model's card names another advisor than this code's (or none) for
    pieces it reads; :func:`load_model` with ``strict_advisor=True`` refuses it instead."""


# --------------------------------------------------------------------------- layout


def layout_fingerprint(num_players: int, features: str = "base") -> str:
    """A short hash of the observation table and the action ranges for ``num_players``.

    It changes whenever a piece of the observation or a range of actions is added,
    removed, renamed, resized or moved, so a model card can tell whether the network
    was made for the vectors this code produces.
    """
    table = action_table(num_players)
    payload = {
        "obs": [[name, offset, size] for name, offset, size, _ in obs_layout(num_players, features).table()],
        "actions": [[kind.name, r.start, r.stop] for kind, r in table.ranges.items()],
    }
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()[:16]


def env_layout(num_players: int, features: str = "base") -> dict[str, Any]:
    """What this code's environment has for ``num_players`` (and an observation feature
    set): sizes and fingerprint.  ``features`` is listed only when it is not the base
    set, so the cards of models made before feature sets existed still match;
    ``advisors`` (per registered feature set, what computes its values, such as
    :data:`carioca_agents.advice.ADVISOR`) only when the set has registered pieces."""
    out: dict[str, Any] = {
        "num_players": num_players,
        "obs_size": obs_layout(num_players, features).size,
        "action_size": action_table(num_players).size,
        "layout_fingerprint": layout_fingerprint(num_players, features),
    }
    if features != "base":
        out["features"] = features
    advisors = feature_sources(features)
    if advisors:
        out["advisors"] = advisors
    return out


def _describe(d: dict[str, Any]) -> str:
    return (f"{d.get('num_players')} players, observation size {d.get('obs_size')}, "
            f"{d.get('action_size')} actions, layout {d.get('layout_fingerprint')}")


def model_card(num_players: int, features: str = "base", **extra: Any) -> dict[str, Any]:
    """A model card: the layout fields for ``num_players`` and ``features`` plus ``extra``
    (training facts)."""
    return {"format": CARD_FORMAT, "version": CARD_VERSION, "algorithm": "MaskablePPO",
            **env_layout(num_players, features), **extra}


#: bytes a model card may have (a card is under 2 kB)
MAX_CARD_BYTES = 1024 * 1024


def card_features(card: dict[str, Any]) -> str:
    """The observation feature set a model was made for (``"base"`` when the card names none)."""
    return str(card.get("features", "base"))


def card_path(model_path: str | Path) -> Path:
    """The card beside a model file: ``model.zip`` -> ``model.json``."""
    return Path(model_path).with_suffix(".json")


#: The models shipped with the package: ``agents/models/<name>/model.zip`` (+ ``model.json``)
SHIPPED_DIR = Path(__file__).resolve().parent / "models"
#: A shipped model's name: ``contract<K>`` (2 players) or ``full``, with ``-p3`` / ``-p4``
#: for 3 or 4 players.
SHIPPED_NAME = re.compile(r"^(contract[1-7]|full)(-p[34])?$")


def shipped_models() -> list[str]:
    """The names of the models shipped with the package (``ppo:NAME`` loads one)."""
    if not SHIPPED_DIR.is_dir():
        return []
    return sorted(p.name for p in SHIPPED_DIR.iterdir() if (p / MODEL_FILE).exists() and SHIPPED_NAME.match(p.name))


def resolve_model_path(path: str | Path) -> Path:
    """A model file from a spec argument: a shipped model's name (``contract3``,
    ``contract3-p4``, ``full``, ``full-p4``: from the package, whatever the working
    directory), a ``.zip``, a folder holding ``model.zip``, or a path without the
    ``.zip`` suffix.

    Raises:
        ModelLoadError: a shipped-model name that is not shipped (the message lists those
            that are).
    """
    if isinstance(path, str) and SHIPPED_NAME.match(path):
        shipped = SHIPPED_DIR / path / MODEL_FILE
        if not shipped.exists():
            raise ModelLoadError(f"no shipped model named {path!r}; shipped: {', '.join(shipped_models()) or 'none'} "
                                 f"(or give a path: ppo:PATH)")
        return shipped
    p = Path(path).expanduser()
    if p.is_dir():
        return p / MODEL_FILE
    if p.suffix != ".zip" and not p.exists() and p.with_suffix(".zip").exists():
        return p.with_suffix(".zip")
    return p


def read_card(model_path: str | Path) -> dict[str, Any]:
    """Read and check the card of a model (format, version, layout fields).

    Raises:
        ModelLoadError: the card is missing, not JSON, or not a model card.
    """
    cp = card_path(model_path)
    if not cp.exists():
        raise ModelLoadError(
            f"model card {cp} is missing: a model needs the JSON card written beside it by "
            f"`carioca train` (it records the layout the network was made for)"
        )
    try:  # read bounded: a card is a few hundred bytes, never deep
        card = read_json_file(cp, max_bytes=MAX_CARD_BYTES, what="a model card")
    except RecordError as exc:
        raise ModelLoadError(f"model card {cp} is unreadable or corrupt: {exc}") from None
    if not isinstance(card, dict) or card.get("format") != CARD_FORMAT:
        fmt = card.get("format") if isinstance(card, dict) else None
        raise ModelLoadError(f"{cp} is not a carioca PPO model card (format {fmt!r})")
    if card.get("version") != CARD_VERSION:
        raise ModelLoadError(f"model card {cp} has version {card.get('version')!r}; this code reads version {CARD_VERSION}")
    missing = [k for k in ("num_players", "obs_size", "action_size", "layout_fingerprint") if k not in card]
    if missing:
        raise ModelLoadError(f"model card {cp} lacks {', '.join(missing)}")
    # the heuristic's advice pieces, which most shipped models read, are registered when a
    # card is read (once per load, not per move), rather than by importing a package
    register_advice()
    return card


def check_card(card: dict[str, Any], where: str, num_players: int | None = None) -> None:
    """Refuse a card whose layout is not this code's (for ``num_players``, if given).

    Raises:
        ModelMismatchError: naming what the model was made for and what the env has.
    """
    made = {k: card.get(k) for k in ("num_players", "obs_size", "action_size", "layout_fingerprint")}
    n = made["num_players"] if num_players is None else num_players
    if n not in (2, 3, 4):
        raise ModelMismatchError(f"{where}: the card names {made['num_players']!r} players; carioca has 2-4")
    features = card_features(card)
    try:
        check_features(features)
    except ValueError:
        raise ModelMismatchError(f"{where}: the card names observation features {features!r}; this code has "
                                 f"{', '.join(feature_sets())}") from None
    have = {k: v for k, v in env_layout(n, features).items() if k in made}
    if made != have:
        if num_players is not None and made["num_players"] != num_players:
            why = "it was trained for another number of players"
        else:
            why = "the observation or action layout of this code has changed since it was trained (retrain it)"
        raise ModelMismatchError(
            f"{where}: model made for {_describe(made)}; this environment has {_describe(have)}: {why}"
        )


def check_advisor(card: dict[str, Any], where: str, strict: bool = False) -> None:
    """Flag a card whose advice pieces were computed by another advisor than this code's.

    The layout fingerprint cannot see it (the pieces keep their names and sizes), so the
    card records, per registered feature set it reads, the advisor's name, version and
    fingerprint (:func:`env_layout`); a card without that record predates it.  By default
    a difference is an :class:`AdvisorChangedWarning` (the model still loads, and plays
    on inputs that no longer mean what it learned); ``strict`` refuses it.

    Raises:
        AdvisorMismatchError: with ``strict``, naming the recorded and the current advisor.
    """
    have = feature_sources(card_features(card))
    made = card.get("advisors")
    if made == have or (made is None and not have):
        return
    recorded = "no advisor record" if made is None else f"advisors {made}"
    message = (f"{where}: the model's observation pieces were made by {recorded}; this code computes them with "
               f"{have or 'no advisor'}: its inputs may have changed meaning (retrain it, or check its strength)")
    if strict:
        raise AdvisorMismatchError(message)
    warnings.warn(message, AdvisorChangedWarning, stacklevel=3)


# --------------------------------------------------------------------------- loading

_CACHE: dict[tuple[str, int, int, int], Any] = {}


@contextmanager
def _rng_preserved() -> Iterator[None]:
    """Restore the global ``random``, numpy and torch generators afterwards (SB3's load
    calls ``set_random_seed``, which would otherwise reset a training process's streams)."""
    import random

    import torch

    states = (random.getstate(), np.random.get_state(), torch.get_rng_state())
    try:
        yield
    finally:
        random.setstate(states[0])
        np.random.set_state(states[1])
        torch.set_rng_state(states[2])


def load_model(path: str | Path, num_players: int | None = None,
               strict_advisor: bool = False) -> tuple[Any, dict[str, Any]]:
    """Load ``(MaskablePPO model, card)`` from a model file (cached per process).

    Checks the card against this code's layout and advisor (:func:`check_advisor`:
    a warning, or with ``strict_advisor`` a refusal) and the model's own spaces against
    the card.

    Raises:
        ModelLoadError: missing or corrupt file or card.
        ModelMismatchError: a model made for another layout.
        AdvisorMismatchError: with ``strict_advisor``, a model made with another advisor.
    """
    mp = resolve_model_path(path)
    try:
        st = os.stat(mp)
    except OSError:
        raise ModelLoadError(f"no model file at {mp} (give ppo:PATH with a model .zip or its folder)") from None
    card = read_card(mp)
    check_card(card, str(mp), num_players)
    check_advisor(card, str(mp), strict_advisor)
    key = (str(mp.resolve()), st.st_ino, st.st_mtime_ns, st.st_size)
    model = _CACHE.get(key)
    if model is None:
        from carioca_agents.model_file import load_maskable
        from carioca_agents.threads import limit_torch_threads

        limit_torch_threads()  # a small network: one thread plays faster (carioca_agents.threads)

        try:
            with _rng_preserved():  # loading reseeds the global generators with the model's seed
                model = load_maskable(mp)
        except Exception as exc:  # zipfile.BadZipFile, KeyError, RuntimeError, pickle errors ...
            raise ModelLoadError(
                f"cannot load the model {mp}: {type(exc).__name__}: {exc} (corrupt or not a MaskablePPO file)"
            ) from None
        if len(_CACHE) >= 16:
            _CACHE.clear()
        _CACHE[key] = model
    obs_shape = tuple(getattr(model.observation_space, "shape", ()) or ())
    n_actions = getattr(model.action_space, "n", None)
    if obs_shape != (card["obs_size"],) or n_actions != card["action_size"]:
        raise ModelMismatchError(
            f"{mp}: the network has observation shape {obs_shape} and {n_actions} actions, but its card "
            f"says {card['obs_size']} and {card['action_size']}: the card does not belong to this model"
        )
    return model, card


# --------------------------------------------------------------------------- policies


def masked_logits(model: Any, obs: np.ndarray) -> np.ndarray:
    """The policy's action logits on one observation (before masking)."""
    import torch

    from carioca_agents.ppo_policy import action_logits

    with torch.no_grad():
        return action_logits(model.policy, torch.as_tensor(np.asarray(obs, dtype=np.float32)[None]))[0].numpy()


def masked_action(model: Any, obs: np.ndarray, mask: np.ndarray, deterministic: bool = True,
                  rng: np.random.Generator | None = None) -> int:
    """The model's action on one observation, over the mask only.

    Deterministic: the legal action of highest logit, which is what
    ``model.predict(obs, action_masks=mask, deterministic=True)`` returns, computed
    without its per-call overhead.  Otherwise a sample of
    the masked distribution drawn with ``rng`` (never torch's global generator, which a
    training process uses for its own actions).
    """
    legal = np.flatnonzero(mask)
    logits = masked_logits(model, obs)[legal].astype(np.float64)
    if deterministic:
        return int(legal[np.argmax(logits)])
    p = np.exp(logits - logits.max())
    p /= p.sum()
    gen = rng if rng is not None else np.random.default_rng()
    return int(legal[gen.choice(len(legal), p=p)])


def play_view(model: Any, view: PlayerView, legal: Sequence[Move], deterministic: bool = True,
              on_step: Any = None, rng: np.random.Generator | None = None, features: str = "base") -> Move:
    """A move for ``view``'s seat chosen through the action table (openings meld by meld),
    on the observation variant ``features`` the model was made for.

    ``on_step(obs, mask, action)`` is called for each id chosen (tests use it).
    """
    table = action_table(view.num_players)
    pending: list[Meld] = []
    need = view.contract.trios + view.contract.runs
    while True:
        obs = encode_observation(view, pending, features)
        mask = table.legal_mask(legal, view.seat, pending)
        if not mask.any():
            raise RuntimeError(f"no legal action for seat {view.seat} with pending melds {pending} "
                               f"(legal: {list(map(str, legal))[:8]})")
        action = masked_action(model, obs, mask, deterministic, rng)
        if on_step is not None:
            on_step(obs, mask, action)
        decoded = table.to_move(action, view.seat)
        if isinstance(decoded, Meld):
            pending.append(decoded)
            if len(pending) < need:
                continue
            return Move.open(pending)
        return decoded


class PPOAgent:
    """A saved MaskablePPO model as an agent (see the module docstring).

    Args:
        path: the model ``.zip`` (its card ``.json`` beside it) or their folder.
        seed: seeds the sampling generator (the greedy policy uses no randomness).
        num_players: check the model against this player count at load time (otherwise
            at the first move, against the view's).
        deterministic: play the most likely legal action (default) or sample.

    When sampling, a one-step move is declared (``last_choice``, a
    :class:`carioca_agents.base.DeclaredChoice` with the masked policy's exact probabilities), so
    a luck correction can add its action term; the most likely action declares nothing.
    """

    name = "ppo"
    last_choice: DeclaredChoice | None = None

    def __init__(self, path: str | Path, seed: int = 0, num_players: int | None = None,
                 deterministic: bool = True) -> None:
        self.path = resolve_model_path(path)
        self.model, self.card = load_model(self.path, num_players)
        self.deterministic = deterministic
        self.rng = np.random.default_rng(seed)

    @property
    def num_players(self) -> int:
        """The player count the model was made for."""
        return int(self.card["num_players"])

    def reset(self, seed: int) -> None:
        """Start a new deal (reseeds the sampling generator)."""
        self.rng = np.random.default_rng(seed)
        self.last_choice = None

    def act(self, view: PlayerView, legal: Sequence[Move]) -> Move:
        """The model's masked choice; an opening is chosen meld by meld.

        Raises:
            ModelMismatchError: the view has another number of players than the model.
        """
        if view.num_players != self.num_players:
            check_card(self.card, str(self.path), view.num_players)
        self.last_choice = None
        if self.deterministic:
            return play_view(self.model, view, legal, True, rng=self.rng, features=card_features(self.card))
        steps: list[tuple[np.ndarray, np.ndarray, int]] = []
        move = play_view(self.model, view, legal, False, on_step=lambda o, m, a: steps.append((o, m, a)),
                         rng=self.rng, features=card_features(self.card))
        self.last_choice = self._declared(view, steps, move)
        return move

    # ------------------------------------------------------------------ explanations

    def act_explained(self, view: PlayerView, legal: Sequence[Move]) -> tuple[Move, Explanation]:
        """``act``'s move (the same draws from the sampling generator) and the policy's
        probabilities at its first step, most likely first (:mod:`carioca_agents.explain`):
        for an opening, chosen meld by meld, the candidates are first melds."""
        move = self.act(view, legal)
        if len(legal) == 1:
            return move, forced(self.name, move)
        table = action_table(view.num_players)
        mask = table.legal_mask(legal, view.seat, [])
        ids = np.flatnonzero(mask)
        logits = masked_logits(self.model, encode_observation(view, [], card_features(self.card)))[ids]
        p = np.exp(logits.astype(np.float64) - logits.max())
        p /= p.sum()
        cands = []
        for k in np.argsort(-p, kind="stable"):
            decoded = table.to_move(int(ids[k]), view.seat)
            text = f"meld {decoded}" if isinstance(decoded, Meld) else str(decoded)
            cands.append(Candidate(text, float(p[k])))
        how = "plays the most likely" if self.deterministic else "samples"
        return move, Explanation.build(self.name, "probability", "the policy's probability of each legal action "
                                       "(an opening: of its first meld)", "higher", cands, move,
                                       f"{how} of {len(ids)} legal actions")

    def explain(self, view: PlayerView, legal: Sequence[Move]) -> Explanation:
        """What the model would play at ``view`` and why; its sampling generator and its
        declaration are put back."""
        state, last = self.rng.bit_generator.state, self.last_choice
        try:
            return self.act_explained(view, legal)[1]
        finally:
            self.rng.bit_generator.state = state
            self.last_choice = last

    def _declared(self, view: PlayerView, steps: list[tuple[np.ndarray, np.ndarray, int]],
                  move: Move) -> DeclaredChoice | None:
        """The sampled distribution of a one-step move as a declared choice: the legal ids'
        moves and their probabilities (as :func:`masked_action` drew them).  An opening
        (several steps) or a step whose options include opening melds declares nothing: an
        option would then be only part of a move."""
        if len(steps) != 1:
            return None
        obs, mask, action = steps[0]
        ids = np.flatnonzero(mask)
        if len(ids) < 2:
            return None
        table = action_table(view.num_players)
        options = [table.to_move(int(a), view.seat) for a in ids]
        if any(isinstance(o, Meld) for o in options):
            return None
        logits = masked_logits(self.model, obs)[ids].astype(np.float64)
        p = np.exp(logits - logits.max())
        p /= p.sum()
        chosen = int(np.flatnonzero(ids == action)[0])
        moves = tuple(o for o in options if isinstance(o, Move))
        if moves[chosen] != move:
            return None
        return DeclaredChoice(moves, chosen, tuple(float(x) for x in p / p.sum()))


def make_ppo_agent(arg: str, seed: int) -> PPOAgent:
    """Registry factory: ``ppo:PATH``."""
    if not arg:
        raise ValueError("the ppo agent needs a model: ppo:PATH (a model .zip with its .json card, or their folder)")
    return PPOAgent(arg, seed)
