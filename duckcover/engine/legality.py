"""Legality: which choices a seat has, and why a choice is refused.

Its own module so that the game (which checks every move) and the view (a bot's
`legal_moves`/`is_legal`) both import it, and neither has to import the other.
"""
from __future__ import annotations

from .cards import MAX, Card
from .errors import Refusal
from .grid import Cell, Stack, cover_targets, duck_targets, is_cell, why_illegal
from .moves import Call, Move, Phase

# Named once: an enum member lookup costs about 60 ns and this runs for every move.
MOVE, GIFT, PLACE = Phase.MOVE, Phase.GIFT, Phase.PLACE


def legal_moves(
    phase: Phase, grid, candidates: tuple[tuple[Card, Cell], ...], received: Stack | None
) -> list[Move]:
    """Every legal choice, deterministic order: per candidate card, covers then ducks, reading order."""
    if phase is GIFT:
        return [Move(card, None) for card, _ in candidates]
    if phase is PLACE:
        return [Move(received[-1], to) for to in duck_targets(grid, None)] if received else []
    moves: list[Move] = []
    for card, origin in candidates:
        moves.extend(Move(card, to) for to in cover_targets(grid, origin))
        moves.extend(Move(card, to) for to in duck_targets(grid, origin))
    return moves


def illegal_reason(
    phase: Phase,
    grid,
    candidates: tuple[tuple[Card, Cell], ...],
    received: Stack | None,
    move: Move | None,
    call: Call,
) -> str | None:
    """None if `move` is a legal choice, else a sentence a player can read.

    The one legality check: the engine runs it on every move of every turn, a view's
    `is_legal` and the record reader on theirs. The common case (a listed card moving to a
    cell) costs a scan of the seat's few candidates and `why_illegal`'s lookups.
    """
    if phase is MOVE and type(move) is Move:
        card, to = move
        for option, origin in candidates:
            if option is card or (type(card) is Card and option == card):
                if type(to) is tuple and len(to) == 2 and type(to[0]) is int and type(to[1]) is int:
                    return why_illegal(grid, origin, to)  # (is_cell, inline: this runs for every move)
                return Refusal("not-a-cell", f"{to!r} is not a cell")
    if move is None:
        if not candidates:
            return None
        if phase is MOVE:
            card = candidates[0][0]
            return Refusal("no-pass", f"card {card.number} is visible and must move (no pass)", card=card.number)
        return Refusal("choice-required", "a choice is required")
    if not isinstance(move, Move) or not isinstance(move.card, Card):
        return Refusal("not-a-move", f"{move!r} is not a move")
    if not candidates:
        return why_no_move(call, grid)
    origin = next((cell for card, cell in candidates if card == move.card), False)
    if origin is False:
        allowed = ", ".join(str(card.number) for card, _ in candidates)
        return Refusal("card-not-called", f"card {move.card.number} cannot move on this call (allowed: {allowed})",
                       card=move.card.number, allowed=tuple(card.number for card, _ in candidates))
    if phase is GIFT:
        return None if move.to is None else Refusal("gift-has-no-cell", "a gift names a card, not a destination")
    if not is_cell(move.to):
        return Refusal("not-a-cell", f"{move.to!r} is not a cell")
    return why_illegal(grid, origin, move.to)


def why_no_move(call: Call, grid) -> str:
    if call.kind == "dead":
        return Refusal("repeat-discarded", "the Repeat goes straight to the Discard area; nobody moves")
    numbers = [str(o) for o in call.options if o != MAX]
    if not numbers:
        return Refusal("max-constraints", "no duck may move on this Max (under Constraints, 1-3 only move when carried); null expected")
    return Refusal("must-quack", f"card {' or '.join(numbers)} is covered; this player must quack (null)", cards=tuple(numbers))
