"""How the log tells a turn, in the words the table shows: cards by their number and their
neighbours, never by grid coordinates (the board shows none). The table's log and the replay
viewer both tell moves through here, and the hint and the review give advice in the same words
(`advice_words`). Pure text below the app: the review's command line uses it too.

Names come from players and records, so every name goes through `shown()`. The player at the
keyboard is named "You" (`seat.you`): their lines have second-person forms (`key.you`), since
French and German verbs agree with the subject ("Vous couvrez", "Du verdeckst").
"""
from __future__ import annotations

from collections.abc import Callable, Mapping

from .i18n import t, tn
from .untrusted import NAME_MAX, shown
from ..engine.game import START_CELLS
from ..engine.grid import Cell, Stack, neighbours
from ..engine.moves import Move


def number(card) -> str:
    return str(card.number)


def is_you(name: str) -> bool:
    return name == t("seat.you")


def said(key: str, name: str, **values: object) -> str:
    """`key`'s line about `name`, in the second person for the player at the keyboard."""
    return t(f"{key}.you" if is_you(name) else key, name=shown(name, NAME_MAX), **values)


def duck_neighbour(before: Mapping[Cell, Stack], move: Move, placing: bool = False) -> Cell | None:
    """The cell a duck (or a placed gift) is told by: its first neighbour that stays, not the
    cell the moving card leaves; None if there is none."""
    origin = None if placing else next((c for c, stack in before.items() if stack[-1] == move.card), None)
    return next((c for c in neighbours(move.to) if c in before and c != origin), None)


def move_words(name: str, before: Mapping[Cell, Stack], move: Move, placing: bool,
               word: Callable[[object], str] = number) -> str:
    """A cover ("covered 4 with 7"), a duck ("ducked 7 beside 11") or a placed gift, told by
    the cards around it; `before` is the seat's grid before the move."""
    card = word(move.card)
    if move.to in before:
        return said("log.cover", name, card=card, target=word(before[move.to][-1]))
    near = duck_neighbour(before, move, placing)
    target = word(before[near][-1]) if near is not None else "?"
    key = "log.place" if placing else ("log.duck" if move.to in START_CELLS else "log.duck_outside")
    return said(key, name, card=card, target=target)


# Where a duck lands from the neighbour it is told by (y grows downwards).
SIDES = {(-1, 0): "left", (1, 0): "right", (0, -1): "above", (0, 1): "below"}


def advice_words(before: Mapping[Cell, Stack], move: Move | None, sided: bool = False) -> str:
    """A move as the hint says it, without a subject: "cover 9 with 12", "duck 12 beside 7",
    "give 11"; `sided` tells a duck by its side ("duck 12 left of 7"), so that two ducks
    beside the same card read apart (the review shows the move played beside the best)."""
    if move is None:
        return t("word.quack")
    if move.to is None:
        return t("hint.give", card=move.card.number)
    if move.to in before:
        return t("hint.cover", card=move.card.number, target=before[move.to][-1].number)
    near = duck_neighbour(before, move)
    if near is None:
        return t("hint.duck", card=move.card.number, target="?")
    side = SIDES.get((move.to[0] - near[0], move.to[1] - near[1])) if sided else None
    key = f"hint.duck_{side}" if side else "hint.duck"
    return t(key, card=move.card.number, target=before[near][-1].number)


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


# --- the events of a game: one wording, whether the log sees them live or retells them -----------
# (the table's log as play goes on, and the story it tells first after --resume, a reconnect,
# or for a watcher who joins mid-game)
def round_start_words(round_number: int) -> str:
    return t("log.round_start", round=round_number)


def flip_words(round_number: int, flip_number: int, card: str, captain: str) -> str:
    """A flip: its round, its number in the round, the card(s) and the Captain who flipped."""
    return t("log.flip", round=round_number, turn=flip_number, card=card, name=shown(captain, NAME_MAX))


def round_end_words(round_number: int, reason: str) -> str:
    return t("log.round_end", round=round_number, reason=t(f"reason.{reason}"))


def round_scores_words(round_number: int, names, scores) -> str:
    listed = ", ".join(f"{shown(name, NAME_MAX)} {score:+d}" for name, score in zip(names, scores))
    return t("log.round_scores", round=round_number, scores=listed)


def dead_repeat_words() -> str:
    """A Repeat with nothing to repeat: straight to the Discard area."""
    return t("log.repeat_dead")


def fallback_words(name: str) -> str:
    """A bot failed and the Referee's fallback move played for it."""
    return t("log.fallback", name=shown(name, NAME_MAX))


def stand_in_words(name: str) -> str:
    """A player was away past the grace period: a bot chose their move."""
    return t("log.standin", name=shown(name, NAME_MAX))
