"""The small immutable values a turn is made of: moves, calls and the public turn record."""
from __future__ import annotations

from enum import Enum
from typing import NamedTuple

from .cards import Card
from .grid import Cell, fmt_cell


class Phase(Enum):
    FLIP = "flip"  # the Captain is about to flip
    MOVE = "move"  # seats choose which stack to move where
    GIFT = "gift"  # low blows: seats choose a duck to give to their left
    PLACE = "place"  # low blows: seats place the stack they received
    ROUND_OVER = "round-over"
    GAME_OVER = "game-over"


class Move(NamedTuple):
    """Move the stack whose top is `card` to `to`. Cover or duck follows from `to`.

    A low-blows gift is a Move with `to=None`: the giver only names the card.
    """

    card: Card
    to: Cell | None

    def __str__(self) -> str:
        return f"{self.card.number}" if self.to is None else f"{self.card.number}->{fmt_cell(self.to)}"


class Call(NamedTuple):
    """What the flip asks for. `kind` is "move", "dead" (a Repeat that goes straight to
    the Discard area), or "gift" (Max or Repeat under low blows). `options` holds the
    called numbers, MAX for "the highest visible card"; two entries under two flips."""

    kind: str
    options: tuple[int, ...] = ()


class Turn(NamedTuple):
    """One flip (two under two flips) and what every seat did: public knowledge."""

    flips: tuple[int, ...]
    call: Call
    moves: tuple[Move | None, ...]
    gifts: tuple[Move | None, ...] | None = None  # low blows: by giver; moves are then the receivers' placements
    discarded: bool = False
