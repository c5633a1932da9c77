"""Where a stack may go: the Cover and Duck rules as pure functions of one player's grid.

A grid maps a cell `(x, y)` to its stack, a tuple of cards from bottom to top. x grows
right, y grows down, and the grid is unbounded (negative coordinates are normal).
"""
from __future__ import annotations

from collections.abc import Mapping
from itertools import chain

from .cards import Card
from .errors import Refusal

Cell = tuple[int, int]
Stack = tuple[Card, ...]
Grid = Mapping[Cell, Stack]


class _CellTable(dict):
    """cell -> something derived from it, made once per cell. Finding duck targets is the
    hottest loop of a simulation, and building neighbour tuples and sort keys was most of it."""

    LIMIT = 1 << 16  # grids drift, but no game visits this many cells; a bound all the same

    def __init__(self, derive) -> None:
        super().__init__()
        self.derive = derive

    def __missing__(self, cell: Cell):
        if len(self) >= self.LIMIT:
            self.clear()
        found = self[cell] = self.derive(*cell)
        return found


# The four orthogonal neighbours, in a fixed order: up, left, right, down.
_NEIGHBOURS = _CellTable(lambda x, y: ((x, y - 1), (x - 1, y), (x + 1, y), (x, y + 1)))
# Reading order (top row first, left to right) as one int: comparing ints is cheap.
_READING_RANK = _CellTable(lambda x, y: (y << 32) + x)  # |x| stays far below 2**31


def neighbours(cell: Cell) -> tuple[Cell, Cell, Cell, Cell]:
    """The four orthogonal neighbours (never diagonal), in a fixed order: the one adjacency
    of the game. Cover, Duck, the bots and the hints all ask it."""
    return _NEIGHBOURS[cell]


def reading_order(cell: Cell) -> tuple[int, int]:
    return cell[1], cell[0]


def cover_targets(grid: Grid, origin: Cell) -> list[Cell]:
    """Occupied cells orthogonally adjacent to `origin`, in reading order."""
    return [cell for cell in _NEIGHBOURS[origin] if cell in grid]


def duck_targets(grid: Grid, origin: Cell | None) -> list[Cell]:
    """Empty cells that touch a stack other than the one at `origin`, in reading order.

    `origin` is None when the stack comes from outside the grid (a low-blows gift).
    """
    near = _NEIGHBOURS
    found = set(chain.from_iterable([near[cell] for cell in grid if cell != origin]))
    found.difference_update(grid)
    return sorted(found, key=_READING_RANK.__getitem__)


def is_cell(value: object) -> bool:
    """An (x, y) pair of ints (1.0 would hash like 1, so the type is checked, not the value)."""
    return type(value) is tuple and len(value) == 2 and type(value[0]) is int and type(value[1]) is int


def why_illegal(grid: Grid, origin: Cell | None, to: Cell) -> str | None:
    """None if moving the stack at `origin` to the cell `to` is a legal cover or duck, else why not.

    The one statement of the Cover and Duck rules. The engine checks every move of every
    turn with it, so a legal move returns after a dict lookup or two; only a refusal
    builds its Refusal (English text, plus a code and values the app translates).
    """
    if to in grid:  # Cover: onto an orthogonally adjacent stack
        if origin is not None and to in _NEIGHBOURS[origin]:
            return None
        if to == origin:
            return Refusal("must-move", "a called card must move; it cannot stay where it is")
        if origin is None:
            return Refusal("gift-on-stack", f"a gift is placed by the Duck rule; {fmt_cell(to)} is occupied", cell=fmt_cell(to))
        return Refusal("cover-not-adjacent", f"cannot cover {fmt_cell(to)}: a cover goes onto an orthogonally adjacent stack", cell=fmt_cell(to))
    for near in _NEIGHBOURS[to]:  # Duck: an empty cell beside one of the player's other stacks
        if near != origin and near in grid:
            return None
    return Refusal("duck-not-touching", f"cannot duck to {fmt_cell(to)}: it touches none of the player's other stacks", cell=fmt_cell(to))


def costliest_cover(grid: Grid, candidates, values) -> tuple[Card, Cell] | None:
    """Cover the costliest neighbour: the (card, cell) that puts one of `candidates` (card,
    origin) onto the adjacent stack whose top card is worth most (`values[number]`); the first
    of equals wins, candidates in order, then up, left, right, down. None if no cover exists.
    The greedy bot, the expert's rollouts and the Referee's fallback all play it."""
    best_card = best_to = None
    best = -1
    stack_at = grid.get
    for card, origin in candidates:
        for to in _NEIGHBOURS[origin]:
            stack = stack_at(to)
            if stack is not None:
                worth = values[stack[-1].number]
                if worth > best:
                    best_card, best_to, best = card, to, worth
    return None if best_to is None else (best_card, best_to)


def sorted_stacks(grid: Grid) -> list[tuple[Cell, Stack]]:
    return sorted(grid.items(), key=lambda item: reading_order(item[0]))


def fmt_cell(cell: Cell) -> str:
    return f"({cell[0]}, {cell[1]})"
