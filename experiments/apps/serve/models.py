"""The request bodies of the JSON API, validated by pydantic before anything runs."""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict, Field, field_validator

#: an agent spec: a registry name, optionally ``:ARG`` (``ppo:models/contract1``)
SPEC_PATTERN = r"^[A-Za-z_][A-Za-z0-9_]*(:[^\x00]{1,300})?$"
CARD_PATTERN = r"^(10|[2-9AJQK])[SHDC]$|^JK$"


class NewGame(BaseModel):
    """Start a game: your seat at a table of ``players`` with ``bots`` in the other seats (in turn)."""

    model_config = ConfigDict(extra="forbid")

    players: int = Field(2, ge=2, le=4, description="players at the table, 2-4")
    bots: list[str] = Field(default_factory=lambda: ["greedy"], min_length=1, max_length=3)
    seat: int = Field(0, ge=0, le=3, description="your seat")
    deals: list[int] = Field(default_factory=lambda: [1, 2, 3, 4, 5, 6, 7], min_length=1, max_length=14)
    seed: int = Field(0, ge=0, le=2**31 - 1)

    @field_validator("bots")
    @classmethod
    def _specs(cls, bots: list[str]) -> list[str]:
        for b in bots:
            if not re.match(SPEC_PATTERN, b):
                raise ValueError(f"{b!r} is not an agent spec (NAME or NAME:ARG, e.g. greedy, ppo:models/contract1)")
        return bots

    @field_validator("deals")
    @classmethod
    def _deals(cls, deals: list[int]) -> list[int]:
        bad = [d for d in deals if not 1 <= d <= 7]
        if bad:
            raise ValueError(f"contracts are numbers 1..7, got {bad}")
        return deals


class MoveRequest(BaseModel):
    """One move in the engine's notation, from the position ``version`` (moves played)."""

    model_config = ConfigDict(extra="forbid")

    version: int = Field(ge=0, description="the number of moves of the position the page shows")
    move: str = Field(min_length=1, max_length=200, description="e.g. 'draw stock', 'lay 8S 1.0'")


class OpenRequest(BaseModel):
    """An opening as the groups of cards the person selected (click order does not matter)."""

    model_config = ConfigDict(extra="forbid")

    version: int = Field(ge=0)
    groups: list[list[str]] = Field(min_length=1, max_length=3)

    @field_validator("groups")
    @classmethod
    def _cards(cls, groups: list[list[str]]) -> list[list[str]]:
        for g in groups:
            if not 1 <= len(g) <= 8:
                raise ValueError(f"a meld group holds 3 or 4 cards, got {len(g)}")
            for c in g:
                if not re.match(CARD_PATTERN, c):
                    raise ValueError(f"{c!r} is not a card in notation (8S, 10H, AC, JK)")
        return groups


class HintRequest(BaseModel):
    """Ask ``bot`` what it would play at the person's position ``version`` and why."""

    model_config = ConfigDict(extra="forbid")

    version: int = Field(ge=0, description="the number of moves of the position the page shows")
    bot: str = Field(min_length=1, max_length=300, description="an agent spec the server allows, e.g. heuristic")

    @field_validator("bot")
    @classmethod
    def _spec(cls, bot: str) -> str:
        if not re.match(SPEC_PATTERN, bot):
            raise ValueError(f"{bot!r} is not an agent spec (NAME or NAME:ARG, e.g. heuristic, search:sims=32)")
        return bot
