"""How the log tells a turn, in the words the table shows: cards by their number and their
neighbours, never by grid coordinates (the board shows none). The table's log and the replay
viewer both tell moves through here.

Names come from players and records, so every name goes through `shown()`. The player at the
keyboard is named "You" (`seat.you`): their lines have second-person forms (`key.you`), since
French and German verbs agree with the subject ("Vous couvrez", "Du verdeckst").
"""
from __future__ import annotations

from collections.abc import Callable, Mapping

from ..common.i18n import t, tn
from ..common.untrusted import NAME_MAX, shown
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
