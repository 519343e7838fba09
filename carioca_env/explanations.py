"""Explanations: what an agent weighed at one decision, as a typed, bounded, JSON-ready value.

An agent that explains itself (``carioca_agents.explain``) answers a decision with an
:class:`Explanation`: the candidate moves it weighed, best first by its own reckoning,
each with a score and a short note, what the score means (``meaning``; ``better`` says
whether lower or higher is better) and which candidate is the move it plays
(``chosen``).  The engine owns the type because game records carry explanations beside
their moves (the optional ``explanations`` field, :data:`EXPLANATION_VERSION`) and a
record is checked when it is loaded; nothing here knows any agent.

The size is bounded whatever the agent: at most :data:`MAX_CANDIDATES` candidates (the
rest are counted in ``omitted``; the chosen move is always listed), every text at most
:data:`MAX_TEXT` characters, scores finite and rounded to :data:`SCORE_DIGITS` decimals,
so one explanation is at most :data:`MAX_EXPLANATION_BYTES` bytes of JSON.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from carioca_env.errors import excerpt

#: The version of the explanation format (the records' ``explanation_version``).
EXPLANATION_VERSION = 1
#: Candidates listed at most (the others are counted in ``omitted``).
MAX_CANDIDATES = 6
#: Characters of any text (agent, meaning, note, move) at most.
MAX_TEXT = 160
#: Decimals kept of a score or a standard error.
SCORE_DIGITS = 3
#: What the explanation scores are (``kind``): an agent's costs, a scripted rule's keys,
#: rollout means, a policy's probabilities, a uniform draw, a forced move.
KINDS = ("cost", "rule", "rollout", "probability", "uniform", "forced")
#: Which way a score is better.
BETTER = ("lower", "higher")
#: The largest compact UTF-8 JSON of one explanation (checked when one is made; ASCII texts
#: at their bounds stay under it).
MAX_EXPLANATION_BYTES = 8192


class ExplanationError(ValueError):
    """An explanation (or its JSON) that does not have the documented shape."""


def _text(value: Any, field: str) -> str:
    if not isinstance(value, str):
        raise ExplanationError(f"'{field}' must be a string, got {excerpt(value)}")
    if len(value) > MAX_TEXT:
        raise ExplanationError(f"'{field}' is longer than {MAX_TEXT} characters ({len(value):,})")
    return value


def _number(value: Any, field: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ExplanationError(f"'{field}' must be a finite number, got {excerpt(value)}")
    return float(value)


def clip(text: str, limit: int = MAX_TEXT) -> str:
    """``text`` cut to ``limit`` characters (an ellipsis marks the cut)."""
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


@dataclass(frozen=True)
class Candidate:
    """One move an agent weighed.

    Attributes:
        move: the move in notation (``discard 8S``), or for a step of an opening chosen
            meld by meld, ``meld 8S 8H 8D``.
        score: the agent's score of it (see :attr:`Explanation.meaning`).
        note: what the score is made of, in a few words (``deficiency 3, 12 live outs``).
        se: the score's standard error, when it is an estimate (search's rollout mean).
        n: how many samples the estimate averages (search's rollouts).
    """

    move: str
    score: float
    note: str = ""
    se: float | None = None
    n: int | None = None

    def __post_init__(self) -> None:
        _text(self.move, "move")
        _number(self.score, "score")
        _text(self.note, "note")
        if self.se is not None and (_number(self.se, "se") < 0):
            raise ExplanationError(f"'se' must be >= 0, got {self.se!r}")
        if self.n is not None and (type(self.n) is not int or self.n < 0):
            raise ExplanationError(f"'n' must be a count (an int >= 0), got {excerpt(self.n)}")

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form; ``note``, ``se`` and ``n`` only when set."""
        out: dict[str, Any] = {"move": self.move, "score": round(self.score, SCORE_DIGITS)}
        if self.note:
            out["note"] = self.note
        if self.se is not None:
            out["se"] = round(self.se, SCORE_DIGITS)
        if self.n is not None:
            out["n"] = self.n
        return out

    @staticmethod
    def from_dict(d: Any) -> Candidate:
        """Inverse of :meth:`to_dict`, checked.

        Raises:
            ExplanationError: naming the field that is wrong.
        """
        if not isinstance(d, dict):
            raise ExplanationError(f"a candidate must be an object, got {excerpt(d)}")
        extra = set(d) - {"move", "score", "note", "se", "n"}
        if extra:
            raise ExplanationError(f"a candidate has unknown keys {sorted(extra)}")
        for key in ("move", "score"):
            if key not in d:
                raise ExplanationError(f"a candidate has no {key!r}")
        return Candidate(d["move"], d["score"], d.get("note", ""), d.get("se"), d.get("n"))


@dataclass(frozen=True)
class Explanation:
    """What an agent weighed at one decision (see the module docstring).

    Attributes:
        agent: the agent's name or spec.
        kind: what the scores are, one of :data:`KINDS`.
        meaning: what a score means, in words (``discard cost: lower is better``).
        better: ``"lower"`` or ``"higher"``: which scores the agent prefers.
        candidates: the moves weighed, best first by the agent's reckoning (at most
            :data:`MAX_CANDIDATES`).
        move: the move the agent plays, in notation.
        chosen: the index in ``candidates`` of the move played (``None`` when it is not
            one of them: a policy's opening, whose candidates are its first meld).
        omitted: candidates weighed but not listed.
        note: anything else worth a line (the plan the hand keeps for, a rule).
    """

    agent: str
    kind: str
    meaning: str
    better: str
    candidates: tuple[Candidate, ...]
    move: str
    chosen: int | None = None
    omitted: int = 0
    note: str = ""

    def __post_init__(self) -> None:
        for name in ("agent", "meaning", "move", "note"):
            _text(getattr(self, name), name)
        if self.kind not in KINDS:
            raise ExplanationError(f"'kind' must be one of {', '.join(KINDS)}, got {excerpt(self.kind)}")
        if self.better not in BETTER:
            raise ExplanationError(f"'better' must be 'lower' or 'higher', got {excerpt(self.better)}")
        if not isinstance(self.candidates, tuple) or not all(isinstance(c, Candidate) for c in self.candidates):
            raise ExplanationError("'candidates' must be a tuple of Candidate")
        if not 1 <= len(self.candidates) <= MAX_CANDIDATES:
            raise ExplanationError(f"an explanation lists 1 to {MAX_CANDIDATES} candidates, got {len(self.candidates)}")
        if self.chosen is not None and (type(self.chosen) is not int or not 0 <= self.chosen < len(self.candidates)):
            raise ExplanationError(f"'chosen' must index the candidates (0..{len(self.candidates) - 1}) or be null, "
                                   f"got {excerpt(self.chosen)}")
        if self.chosen is not None and self.candidates[self.chosen].move != self.move:
            raise ExplanationError(f"'chosen' names {self.candidates[self.chosen].move!r}, not the move played {self.move!r}")
        if type(self.omitted) is not int or self.omitted < 0:
            raise ExplanationError(f"'omitted' must be a count (an int >= 0), got {excerpt(self.omitted)}")
        if self.size() > MAX_EXPLANATION_BYTES:
            raise ExplanationError(f"an explanation is at most {MAX_EXPLANATION_BYTES:,} bytes of JSON, "
                                   f"this one {self.size():,}")

    @staticmethod
    def build(agent: str, kind: str, meaning: str, better: str, ranked: Sequence[Candidate], move: Any,
              note: str = "") -> Explanation:
        """An explanation from candidates already ranked best first (each checked when it
        was made): the header's texts clipped, the list
        cut to :data:`MAX_CANDIDATES` keeping the move played (``move``, a ``Move`` or its
        notation) when it is among them, ``chosen`` and ``omitted`` filled in."""
        played = str(move)
        at = next((i for i, c in enumerate(ranked) if c.move == played), None)
        shown = list(ranked[:MAX_CANDIDATES])
        if at is not None and at >= MAX_CANDIDATES:  # the move played is always listed
            shown[-1] = ranked[at]
            at = MAX_CANDIDATES - 1
        return Explanation(clip(agent), kind, clip(meaning), better, tuple(shown), clip(played), at,
                           len(ranked) - len(shown), clip(note))

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (the records' ``explanations`` entries)."""
        out: dict[str, Any] = {"agent": self.agent, "kind": self.kind, "meaning": self.meaning, "better": self.better,
                               "move": self.move, "chosen": self.chosen,
                               "candidates": [c.to_dict() for c in self.candidates]}
        if self.omitted:
            out["omitted"] = self.omitted
        if self.note:
            out["note"] = self.note
        return out

    @staticmethod
    def from_dict(d: Any) -> Explanation:
        """Inverse of :meth:`to_dict`, every field checked.

        Raises:
            ExplanationError: naming the field that is wrong.
        """
        if not isinstance(d, dict):
            raise ExplanationError(f"an explanation must be an object, got {excerpt(d)}")
        allowed = {"agent", "kind", "meaning", "better", "move", "chosen", "candidates", "omitted", "note"}
        extra = set(d) - allowed
        if extra:
            raise ExplanationError(f"unknown keys {sorted(extra)[:5]}")
        missing = [k for k in ("agent", "kind", "meaning", "better", "move", "candidates") if k not in d]
        if missing:
            raise ExplanationError(f"it has no {', '.join(map(repr, missing))}")
        cands = d["candidates"]
        if not isinstance(cands, list) or not 1 <= len(cands) <= MAX_CANDIDATES:
            raise ExplanationError(f"'candidates' must be a list of 1 to {MAX_CANDIDATES} candidates, got {excerpt(cands)}")
        parsed = tuple(Candidate.from_dict(c) for c in cands)
        return Explanation(d["agent"], d["kind"], d["meaning"], d["better"], parsed, d["move"], d.get("chosen"),
                           d.get("omitted", 0), d.get("note", ""))

    def size(self) -> int:
        """Bytes of its compact JSON (at most :data:`MAX_EXPLANATION_BYTES`)."""
        return len(json.dumps(self.to_dict(), separators=(",", ":")).encode("utf-8"))


def forced(agent: str, move: Any) -> Explanation:
    """The explanation of a move that was the only legal one."""
    return Explanation(clip(agent), "forced", "the only legal move", "higher", (Candidate(clip(str(move)), 1.0),),
                       clip(str(move)), 0)


def check_explanations(record: dict[str, Any], moves: Sequence[str]) -> list[Explanation | None] | None:
    """The explanations a game record carries beside its ``moves``, checked (``None``
    when it carries none: the field is optional).

    The record holds ``explanation_version`` (:data:`EXPLANATION_VERSION`) and
    ``explanations``: one entry per move, an explanation object or ``null`` (a person's
    move, an agent that does not explain), each naming the move it explains.

    Raises:
        ExplanationError: the field is not of that shape (the message names the move).
    """
    if "explanations" not in record:
        if "explanation_version" in record:
            raise ExplanationError("the record has an 'explanation_version' but no 'explanations'")
        return None
    version = record.get("explanation_version")
    if type(version) is not int or version != EXPLANATION_VERSION:
        raise ExplanationError(f"explanation version {excerpt(version)} is not supported (this engine reads "
                               f"{EXPLANATION_VERSION}); delete 'explanations' to load the moves alone")
    entries = record["explanations"]
    if not isinstance(entries, list) or len(entries) != len(moves):
        got = f"{len(entries)} entries" if isinstance(entries, list) else excerpt(entries)
        raise ExplanationError(f"'explanations' must be a list of one entry per move ({len(moves)}), got {got}")
    out: list[Explanation | None] = []
    for i, (entry, move) in enumerate(zip(entries, moves)):
        if entry is None:
            out.append(None)
            continue
        try:
            exp = Explanation.from_dict(entry)
        except ExplanationError as exc:
            raise ExplanationError(f"the explanation of move {i + 1} ({excerpt(move)}): {exc}") from None
        if exp.move != move:
            raise ExplanationError(f"the explanation of move {i + 1} explains {excerpt(exp.move)}, "
                                   f"but the move is {excerpt(move)}")
        out.append(exp)
    return out


def attach_explanations(record: dict[str, Any], explanations: Sequence[Explanation | None]) -> dict[str, Any]:
    """``record`` (``Game.to_record``) with ``explanations`` beside its moves (one per move).

    Raises:
        ExplanationError: not one per move, or one that explains another move.
    """
    record["explanation_version"] = EXPLANATION_VERSION
    record["explanations"] = [None if e is None else e.to_dict() for e in explanations]
    check_explanations(record, record["moves"])
    return record
