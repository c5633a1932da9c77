"""What a game at a table says as it goes, in one vocabulary for every host.

The shared turn (`players.table.Table`) says the first four; the sequencer
(`players.sequence.Sequencer`) says the rest, and passes the table's on. Whoever shows a game
(the app's table screen, a server's clients, a test) reads these and nothing else: words are
the reader's business (an event carries facts, never a sentence).
"""
from __future__ import annotations

from typing import NamedTuple

from ..engine.game import Phase
from ..engine.moves import Turn

# Who made a seat's choice (the `by` of `Chosen`).
BY_PLAYER = "player"  # the seat's own player (or its own bot)
BY_STANDIN = "standin"  # a bot, for a human seat whose player is away
BY_TIME = "time"  # the fallback move: the seat's time ran out


# --- the turn (players.table.Table) ---------------------------------------------------------------
class Flipped(NamedTuple):
    codes: tuple[int, ...]  # every card flipped for this call
    resolved: bool  # nobody could play: the turn resolved at the flip


class ChoiceOpened(NamedTuple):
    number: int  # counts the choices of the game: an answer for an older one is ignored
    seats: tuple[int, ...]  # the seats that choose


class Chosen(NamedTuple):
    seat: int
    by: str  # BY_PLAYER, BY_STANDIN or BY_TIME


class Revealed(NamedTuple):
    moves: list  # Move | None per seat
    turn: Turn | None  # None after low-blows gifts: the placing follows
    phase: Phase  # the phase the moves were chosen in
    standins: list[int]  # seats whose move a stand-in bot chose


# --- the game (players.sequence.Sequencer) ---------------------------------------------------------
class FlipAwaited(NamedTuple):
    seat: int  # the Captain flips when its player says (Sequencer.flip), or when the time is up


class BotFlips(NamedTuple):
    seat: int  # the Captain flips by itself, after `pause` seconds
    pause: float


class TurnOver(NamedTuple):
    turn: Turn  # the turn just played (at the flip, or revealed); the bots have been told


class RoundOver(NamedTuple):
    round: int  # the round that ended, counted from 1


class RoundStarted(NamedTuple):
    round: int  # counted from 1


class GameOver(NamedTuple):
    pass


TableEvent = Flipped | ChoiceOpened | Chosen | Revealed
Event = TableEvent | FlipAwaited | BotFlips | TurnOver | RoundOver | RoundStarted | GameOver
