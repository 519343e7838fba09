"""The decoding state of ``carioca_v0``: an engine game plus an opening being chosen meld
by meld, the legal-action mask, and the checks of an action id.

:class:`CariocaState` is what the environment steps (and what agents that act through
action ids use), so the mask and the decoding live in one place.  :func:`action_id` is
the one type check of an action: Python and numpy integers only.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from carioca_env.actions import ActionKind, action_table
from carioca_env.cards import NUM_CARD_TYPES
from carioca_env.errors import ArgumentTypeError, IllegalMoveError, InvalidArgumentError, described, excerpt
from carioca_env.game import Game
from carioca_env.melds import Meld
from carioca_env.moves import Move
from carioca_env.observation import GameEncoder
from carioca_env.view import Phase

#: ``bytes.translate`` table of a card count to a mask byte: 1 when any copy is held
_NONZERO = bytes([0] + [1] * 255)
#: the discard range of a mask that offers no discard
_NO_DISCARDS = bytes(NUM_CARD_TYPES)


class IllegalActionError(IllegalMoveError):
    """An action id that the mask does not offer to the acting agent."""


class ActionTypeError(ArgumentTypeError):
    """An action that is not an integer id (a float, a string, a list, a bool ...)."""


class ActionRangeError(IllegalActionError, InvalidArgumentError):
    """An integer action id outside the action space ``Discrete(N)`` (``-1``, ``10**6``).

    No mask can offer it, so it is the caller's bug, not a move to penalize: it is refused
    whatever ``illegal_action`` says, by the AEC env and the Gymnasium wrapper alike.  It
    is an :class:`IllegalActionError` (code that caught that for such ids still does) and
    an :class:`~carioca_env.errors.InvalidArgumentError` (a value outside what is allowed).
    """


def action_id(action: Any, size: int) -> int:
    """``action`` as a Python int if it is an integer action id; the type check of every
    action (cheap ``isinstance`` tests, Python ints first: this runs on every step).

    The type and the range ``0..size-1`` are checked here; the mask is the caller's.

    Raises:
        ActionTypeError: not a Python or numpy integer or a 0-d integer array (floats
            are never truncated to an id, bools are not ids).
        ActionRangeError: an integer outside ``0..size-1``.
    """
    if type(action) is int:
        value = action
    elif isinstance(action, np.integer) or (
        isinstance(action, np.ndarray) and action.shape == () and np.issubdtype(action.dtype, np.integer)
    ) or (isinstance(action, int) and not isinstance(action, bool)):
        value = int(action)
    else:
        raise ActionTypeError(
            f"an action must be an integer id 0..{size - 1} (a Python or numpy integer), got {described(action)}"
        )
    if not 0 <= value < size:
        raise ActionRangeError(
            f"action {excerpt(value)} is outside the action space 0..{size - 1} (Discrete({size})); no mask offers "
            f"it, so it is refused whatever illegal_action says",
            "mask",
        )
    return value


class CariocaState:
    """The engine game plus an opening being chosen meld by meld: what the env decodes into.

    Used by the environment and by agents that act through action ids, so the mask and
    the decoding live in one place.
    """

    def __init__(self, game: Game, features: str = "base") -> None:
        self.game = game
        self.table = action_table(game.num_players)
        self.encoder = GameEncoder(game.num_players, features)
        self.pending: list[Meld] = []
        # the position the mask was built for: moves played and melds pending (-1: none)
        self._mask_moves = -1
        self._mask_pending = -1
        # the mask kept from step to step: its bytes, an int8 numpy view of them (copied
        # out by mask()), the single ids set in it and whether its discard range holds
        # the hand.  A refresh clears just those and writes the new ones byte by byte
        # (a bytearray write costs a fraction of a numpy scalar write), instead of
        # building an array of every id at every step.
        self._buf = bytearray(self.table.size)
        self._mask = np.frombuffer(self._buf, dtype=np.int8)
        self._ids: list[int] = []
        self._held = False
        d = self.table.ranges[ActionKind.DISCARD]
        self._discards = (d.start, d.stop)
        self._melds_key = -1
        self._melds: list[Move] = []

    def __getstate__(self) -> dict[str, Any]:
        """The state without the numpy view (a copy would part it from the bytes)."""
        state = self.__dict__.copy()
        del state["_mask"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        """Restore a pickled or deep-copied state, the view made again over its own bytes."""
        self.__dict__.update(state)
        self._mask = np.frombuffer(self._buf, dtype=np.int8)

    def _refresh(self) -> None:
        game, pending = self.game, self.pending
        moves_played = len(game.moves)
        if moves_played == self._mask_moves and len(pending) == self._mask_pending:
            return
        self._mask_moves, self._mask_pending = moves_played, len(pending)
        melds = None
        if game.phase is Phase.PLAY:
            # every meld step of an opening is the same position: generate its moves once
            if self._melds_key != moves_played:
                self._melds_key = moves_played
                self._melds = game.meld_moves()
            melds = self._melds
        ids, held = self.table.game_ids(game, pending, melds)
        buf = self._buf
        for i in self._ids:
            buf[i] = 0
        for i in ids:
            buf[i] = 1
        self._ids = ids
        lo, hi = self._discards
        if held:
            # a count per card type, 0 or 1 per byte: the discards of the types held
            buf[lo:hi] = bytes(game.hands[game.current_player]).translate(_NONZERO)
        elif self._held:
            buf[lo:hi] = _NO_DISCARDS
        self._held = held

    def forget(self) -> None:
        """Drop the cached mask and melding moves (after editing ``pending`` by hand, or to
        time a mask built from scratch)."""
        self._mask_moves = self._mask_pending = -1
        self._melds_key = -1

    def mask(self) -> np.ndarray:
        """The legal-action mask of the seat to act (a fresh copy)."""
        self._refresh()
        return self._mask.copy()

    def is_legal(self, action: int) -> bool:
        """Whether the mask offers ``action`` (an int id; see :func:`action_id`)."""
        self._refresh()
        return 0 <= action < self.table.size and self._buf[action] == 1

    def illegal(self, action: int | None) -> IllegalActionError:
        """The error of an action id the mask does not offer (names it, the seat and phase)."""
        phase = "choosing an opening" if self.pending else self.game.phase.value
        if action is None:
            shown = "None is the action of an agent that is done"
        elif 0 <= action < self.table.size:
            shown = self.table.action_to_string(action)
        else:
            shown = f"outside the action space 0..{self.table.size - 1}"
        return IllegalActionError(
            f"action {excerpt(action)} ({shown}) is not legal for seat {self.game.current_player} "
            f"in phase {phase}; legal: {self.legal_strings()[:12]}",
            "mask",
        )

    def step(self, action: int) -> Move | None:
        """Play an action id for the seat to act; returns the engine move made, if any.

        Raises:
            ActionTypeError: the action is not an integer (see :func:`action_id`).
            IllegalActionError: the mask does not offer the action (names it and the phase).
        """
        action = action_id(action, self.table.size)
        if not self.is_legal(action):
            raise self.illegal(action)
        return self.play_legal(action)

    def play_legal(self, action: int) -> Move | None:
        """Play an action id that the mask offers (checked by the caller with
        :meth:`is_legal`), without checking it again; returns the engine move made, if any.

        The mask is the check: it equals the engine's legal moves (the mask checker tests),
        so the move goes to :meth:`Game.apply_unchecked`.  An id the mask does not offer
        corrupts the game: outside input goes through :meth:`step`.
        """
        decoded = self.table.to_move(action, self.game.current_player)
        if isinstance(decoded, Meld):
            self.pending.append(decoded)
            if len(self.pending) < self.game.contract.trios + self.game.contract.runs:
                return None
            decoded = Move.open(self.pending)
            self.pending = []
        self.game.apply_unchecked(decoded)
        return decoded

    def legal_strings(self) -> list[str]:
        """The legal actions in notation (for messages and people)."""
        self._refresh()
        return [self.table.action_to_string(int(a)) for a in np.flatnonzero(self._mask)]

    def observe(self, seat: int) -> np.ndarray:
        """The observation array of ``seat`` (the opening being chosen is the actor's only)."""
        pending = self.pending if seat == self.game.current_player else ()
        return self.encoder.encode(self.game, seat, pending)
