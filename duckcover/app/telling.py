"""How the log tells a turn, in the words the table shows: cards by their number and their
neighbours, never by grid coordinates (the board shows none). The table's log and the replay
viewer both tell moves through here.

Names come from players and records, so every name goes through `shown()`. The player at the
keyboard is named "You" (`seat.you`): their lines have second-person forms (`key.you`), since
French and German verbs agree with the subject ("Vous couvrez", "Du verdeckst").
"""
from __future__ import annotations

from collections.abc import Callable, Mapping

from ..game import START_CELLS
from ..grid import Cell, Stack, neighbours
from ..i18n import t, tn
from ..moves import Move
from ..untrusted import NAME_MAX, shown


def number(card) -> str:
    return str(card.number)


def is_you(name: str) -> bool:
    return name == t("seat.you")


def said(key: str, name: str, **values: object) -> str:
    """`key`'s line about `name`, in the second person for the player at the keyboard."""
    return t(f"{key}.you" if is_you(name) else key, name=shown(name, NAME_MAX), **values)


def move_words(name: str, before: Mapping[Cell, Stack], move: Move, placing: bool,
               word: Callable[[object], str] = number) -> str:
    """A cover ("covered 4 with 7"), a duck ("ducked 7 beside 11") or a placed gift, told by
    the cards around it; `before` is the seat's grid before the move."""
    card = word(move.card)
    if move.to in before:
        return said("log.cover", name, card=card, target=word(before[move.to][-1]))
    # The neighbour named is one that stays: not the cell the moving card leaves.
    origin = None if placing else next((c for c, stack in before.items() if stack[-1] == move.card), None)
    near = [before[c][-1] for c in neighbours(move.to) if c in before and c != origin]
    target = word(near[0]) if near else "?"
    key = "log.place" if placing else ("log.duck" if move.to in START_CELLS else "log.duck_outside")
    return said(key, name, card=card, target=target)


def idle_words(name: str, quack: str | None) -> str:
    """A seat that did not move: a Quack (its called card is covered) or nothing to move."""
    if quack is None:
        return t("log.nothing", name=shown(name, NAME_MAX))
    return t("log.quack", name=shown(name, NAME_MAX), quack=shown(quack))


def gift_words(name: str, card: str, other: str) -> str:
    """Low blows: `name` gives `card` to the player on their left, `other`."""
    if is_you(other):
        return t("log.gift_to_you", name=shown(name, NAME_MAX), card=card)
    return said("log.gift", name, card=card, other=shown(other, NAME_MAX))


def discard_words(count: int, limit: int | None) -> str:
    """A card to the Discard area, and how close that brings the round's end."""
    if limit is None:
        return tn("log.discarded_unlimited", count)
    if count >= limit:
        return tn("log.discarded_last", count)
    return tn("log.discarded", count, limit=limit)
