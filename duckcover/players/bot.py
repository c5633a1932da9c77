"""The bot contract. A bot sees exactly what its seat sees (a PlayerView) and answers with a Move.

    class MyBot(Bot):
        name = "mine"
        description = "Covers whenever it can."

        def choose(self, view):
            moves = view.legal_moves()
            return moves[0] if moves else None

`choose` is asked for every decision: a move on a call (the Move's card settles Max ties
and two-flips choices), a low-blows gift (`Move(card, None)`) and a gift's placement.
It returns None only when `view.candidates` is empty (Quack).

`self.rng` is reseeded by the harness before every decision; `self.budget` is the think
budget in iterations (reproducible anywhere); `self.time_limit` an optional wall-clock
target per decision. Untrusted bots run under duckcover.players.safety.Referee, which replaces a
crash, a bad answer or a timeout by a legal fallback move. See docs/bots.md.
"""
from __future__ import annotations

import random

from ..engine.moves import Move, Turn
from ..engine.view import PlayerView


class Bot:
    name = "bot"
    description = "A duckcover bot."
    # Ratings tell a bot's versions apart (a changed bot starts afresh): bump it when the bot's
    # decisions change. None: the ratings use a hash of the bot's source file instead.
    version: str | None = None
    # Wall-clock seconds a decision may take, which the bot itself should honour (None: no
    # wall clock, `budget` alone). The harness enforces a hard limit of its own on top.
    time_limit: float | None = None

    def __init__(self, seed: int = 0, budget: int | None = None) -> None:
        # The harness reseeds `rng` before every decision from (game seed, seat, round, turn),
        # so a bot is reproducible and a resumed game plays on exactly as before.
        self.rng = random.Random(seed)
        self.budget = budget

    def start_game(self, view: PlayerView) -> None:
        """Called once before the first flip."""

    def start_round(self, view: PlayerView) -> None:
        """Called before each round's first flip (the new layouts are in the view)."""

    def observe(self, view: PlayerView, turn: Turn) -> None:
        """Called after every turn with what the whole table saw happen."""

    def choose(self, view: PlayerView) -> Move | None:
        raise NotImplementedError
