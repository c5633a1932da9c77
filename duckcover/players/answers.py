"""Checking what a bot answered: a Move rebuilt from plain engine values, or one line saying why not.

A leaf module of the players' side, so that the Referee (bots in this process) and the bot
process (bots in their own) check answers the same way without importing one another.
"""
from __future__ import annotations

from typing import Any

from ..common.untrusted import shown
from ..engine.cards import CARDS, FAMILIES, Card
from ..engine.moves import Move

REASON_MAX = 120  # characters of a failure's reason


class MalformedMove(ValueError):
    """A bot's answer that is not a Move of a real card to a cell."""


def sanitize(answer: Any) -> Move | None:
    """The answer rebuilt from plain engine values, or MalformedMove.

    Rebuilding means the game only ever sees genuine Cards and int tuples, never a bot's
    look-alike object with a custom __eq__ or __hash__.
    """
    if answer is None:
        return None
    if not isinstance(answer, Move):
        raise MalformedMove(f"{short(answer)} is not a Move")
    card, to = tuple.__getitem__(answer, 0), tuple.__getitem__(answer, 1)
    if not isinstance(card, Card):
        raise MalformedMove(f"{short(card)} is not a Card")
    family, number = tuple.__getitem__(card, 0), tuple.__getitem__(card, 1)
    if not (type(family) is int and type(number) is int and 0 <= family < FAMILIES and 1 <= number <= 12):
        raise MalformedMove(f"{short(card)} is not a real card")
    if to is not None:
        if not (isinstance(to, tuple) and len(to) == 2 and all(type(v) is int for v in to)):
            raise MalformedMove(f"{short(to)} is not a cell (x, y)")
        to = (int(to[0]), int(to[1]))
    return Move(CARDS[family][number], to)


def describe(err: BaseException) -> str:
    """`ValueError: boom`: the exception's type and the first line of its message (bounded)."""
    try:
        text = str(err).strip().splitlines()
    except Exception:  # noqa: BLE001 - a hostile __str__
        text = []
    name = type(err).__name__
    return shown(f"{name}: {text[0]}" if text else name, REASON_MAX)


def short(value: Any, width: int = 60) -> str:
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001 - a hostile __repr__
        text = f"<{type(value).__name__}>"
    return text if len(text) <= width else text[: width - 3] + "..."
