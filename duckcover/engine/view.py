"""What one player sees at the table — all a bot (or the UI for that seat) is given.

A view holds the visible top and height of every stack, the Captain pile's top, the
whole Discard area, the draw deck's size, the scores and the public history of the
round. It never holds the deck order, and it shares nothing mutable with the game:
grids are copied into read-only mappings, everything else is tuples.
"""
from __future__ import annotations

from collections import namedtuple
from collections.abc import Iterator
from types import MappingProxyType
from typing import NamedTuple

from .cards import MAX, Card
from .grid import Cell, reading_order, sorted_stacks
from .legality import illegal_reason, legal_moves
from .moves import Call, Move, Phase, Turn
from .rules import Rules


class StackInfo(NamedTuple):
    cell: Cell
    top: Card
    height: int


class GridView:
    """One seat's grid as the table sees it: where each stack is, its top card and its height.

    It reads the engine's grid through a read-only proxy; the engine never changes a grid
    dict once stored (copy-on-write), so a view keeps showing the moment it was made.
    What lies under a top is what everyone watched being stacked this round; the view's
    methods speak of tops and heights, as a player at the table would.
    """

    # `cells`: the read-only mapping cell -> stack that the legality helpers in duckcover.engine.grid
    # take. A slot rather than a property: bots read it on every decision.
    __slots__ = ("cells",)

    def __new__(cls, grid) -> GridView:
        return grid_view(grid)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"GridView is read-only; cannot set {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"GridView is read-only; cannot delete {name!r}")

    def __len__(self) -> int:
        return len(self.cells)

    def __iter__(self) -> Iterator[Cell]:
        return iter(self.cells)

    def __contains__(self, cell: object) -> bool:
        return cell in self.cells

    def top(self, cell: Cell) -> Card:
        return self.cells[cell][-1]

    def height(self, cell: Cell) -> int:
        return len(self.cells[cell])

    def where(self, card: Card) -> Cell | None:
        """The cell of `card` if it is visible (a stack's top), else None."""
        for cell, stack in self.cells.items():
            if stack[-1] == card:
                return cell
        return None

    def find(self, number: int) -> list[Cell]:
        """Cells whose visible top has this number (two under low blows at most)."""
        return sorted((cell for cell, stack in self.cells.items() if stack[-1].number == number), key=reading_order)

    def tops(self) -> tuple[Card, ...]:
        return tuple(stack[-1] for _, stack in sorted_stacks(self.cells))

    def stacks(self) -> list[StackInfo]:
        """Every stack in reading order (top row first, left to right)."""
        return [StackInfo(cell, stack[-1], len(stack)) for cell, stack in sorted_stacks(self.cells)]

    def bounds(self) -> tuple[int, int, int, int]:
        """min x, min y, max x, max y of the occupied cells."""
        xs = [x for x, _ in self.cells]
        ys = [y for _, y in self.cells]
        return min(xs), min(ys), max(xs), max(ys)


_set_cells = GridView.cells.__set__
_new_object = object.__new__


def grid_view(grid) -> GridView:
    """GridView(grid), made the quick way: the engine makes one for every changed grid of every
    turn. The slot is set through its descriptor (GridView's own __setattr__ refuses all)."""
    view = _new_object(GridView)
    _set_cells(view, MappingProxyType(grid))
    return view


class PlayerView(NamedTuple):
    seat: int
    # --- the same all round (until the round's scores are in) ---
    names: tuple[str, ...]
    rules: Rules  # the rules in force in this round (a variant may apply to some rounds only)
    round_index: int  # 0-based
    rounds: int
    captain: int
    discard_limit: int | None
    totals: tuple[int, ...]
    round_scores: tuple[tuple[int, ...], ...]
    # --- the turn ---
    phase: Phase
    call: Call
    flips: tuple[int, ...]
    grids: tuple[GridView, ...]
    captain_pile_top: int | None
    discard: tuple[int, ...]
    draw_size: int
    history: tuple[Turn, ...]
    # --- this seat's ---
    candidates: tuple[tuple[Card, Cell | None], ...]  # the stacks this seat may move now
    received: tuple[Card, int] | None  # low blows: (top, height) of the gift to place

    @property
    def grid(self) -> GridView:
        """This seat's own grid."""
        return self.grids[self.seat]

    @property
    def players(self) -> int:
        return len(self.names)

    @property
    def must_quack(self) -> bool:
        """The called duck is covered: say Quack (never where the variant has no Quack: two flips)."""
        return self.call.kind == "move" and not self.candidates and self.rules.says_quack

    def legal_moves(self) -> list[Move]:
        stack = (self.received[0],) if self.received else None  # only the top matters for placing
        return legal_moves(self.phase, self.grid.cells, self.candidates, stack)

    def is_legal(self, move: Move | None) -> bool:
        received = (self.received[0],) if self.received else None
        return illegal_reason(self.phase, self.grid.cells, self.candidates, received, move, self.call) is None


def turn_quacks(turn: Turn, rules: Rules) -> tuple[bool, ...]:
    """What a finished turn was, seat by seat: True for a seat that said Quack (its called duck
    was covered). Nobody quacks on Max, on a Repeat that called nothing, while placing a
    gift, or under a variant without Quack; a seat that moved did not quack."""
    call = turn.call
    if call.kind != "move" or turn.gifts is not None or not rules.says_quack or MAX in call.options:
        return (False,) * len(turn.moves)
    return tuple(move is None for move in turn.moves)


# --- building views ---------------------------------------------------------------------------
# A PlayerView is (seat, *RoundFacts, *TurnFacts, candidates, received): Game.view builds it so.
# The engine names the round's facts once a round and the turn's once a turn, by keyword: a
# field added to PlayerView must be added to one of these lists (the assert below says so at
# import), and then the engine cannot build a view without giving it.
ROUND_FIELDS = ("names", "rules", "round_index", "rounds", "captain", "discard_limit", "totals", "round_scores")
TURN_FIELDS = ("phase", "call", "flips", "grids", "captain_pile_top", "discard", "draw_size", "history")
assert PlayerView._fields == ("seat", *ROUND_FIELDS, *TURN_FIELDS, "candidates", "received"), "update the lists"
RoundFacts = namedtuple("RoundFacts", ROUND_FIELDS)  # RoundFacts(names=..., rules=..., ...)
TurnFacts = namedtuple("TurnFacts", TURN_FIELDS)
