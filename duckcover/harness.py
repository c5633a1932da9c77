"""Driving a game with bots: views built before any move applies, one joint move per step."""
from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from .bot import Bot
from .game import CHOOSING, Game, Phase
from .moves import Turn
from .rules import Rules

if TYPE_CHECKING:
    from .safety import Referee


class DecisionRandom(random.Random):
    """A bot's RNG, reseeded for every decision from (game seed, seat, round, turn, step).

    The seed is applied lazily, on first use, because most decisions never draw a number.
    That keeps a bot reproducible decision by decision, so a resumed game plays on as the
    uninterrupted one would have.
    """

    _pending: int | None = None

    def reseed(self, key: int) -> None:
        self._pending = key

    def _apply(self) -> None:
        key, self._pending = self._pending, None
        super().seed(key)

    def random(self) -> float:
        if self._pending is not None:
            self._apply()
        return super().random()

    def getrandbits(self, k: int) -> int:
        if self._pending is not None:
            self._apply()
        return super().getrandbits(k)


def decision_key(seed: int, seat: int, round_index: int, turn: int, step: int) -> int:
    # Hashes of tuples of ints are not randomised per process: stable everywhere.
    return hash((seed, seat, round_index, turn, step)) & 0xFFFFFFFFFFFF


def prepare(bots: Sequence[Bot]) -> None:
    for bot in bots:
        if not isinstance(bot.rng, DecisionRandom):
            bot.rng = DecisionRandom()


def decide(game: Game, bots: Sequence[Bot]) -> list:
    """Every seat's choice, each from a view built before any of them applies."""
    choosing = game.awaiting
    views = {seat: game.view(seat) for seat in choosing}
    step = 1 if game.phase is Phase.PLACE else 0
    moves: list = [None] * game.n
    for seat in choosing:
        bot = bots[seat]
        bot.rng.reseed(decision_key(game.seed, seat, game.round_index, game.turn_number, step))
        moves[seat] = bot.choose(views[seat])
    return moves


def play_game(
    bots: Sequence[Bot],
    rules: Rules | None = None,
    seed: int = 0,
    names: Sequence[str] | None = None,
    on_turn: Callable[[Game, Turn], None] | None = None,
    referee: Referee | None = None,
) -> Game:
    """Play a whole game among `bots` (one per seat) and return it, finished.

    Without a `referee` the bots are trusted (the fast path simulations use). With one
    (duckcover.safety.Referee, built on the same bots) every hook and decision runs under
    its guard: failures become fallback moves, listed in `referee.fallbacks`.
    """
    prepare(bots)
    game = Game(list(names) if names else [f"{bot.name} {i + 1}" for i, bot in enumerate(bots)], rules, seed)
    if referee is not None:
        return _refereed(game, referee, on_turn)
    for seat, bot in enumerate(bots):
        bot.start_game(game.view(seat))
    # Most bots ignore the hooks; skipping their views keeps simulations fast.
    observers = [(seat, bot) for seat, bot in enumerate(bots) if type(bot).observe is not Bot.observe]
    while not game.over:
        if game.phase is Phase.ROUND_OVER:
            game.start_round()
        for seat, bot in enumerate(bots):
            bot.start_round(game.view(seat))
        while game.phase is Phase.FLIP:
            game.flip()
            while game.phase in CHOOSING:
                game.play(decide(game, bots))
            turn = game.last_turn
            for seat, bot in observers:
                bot.observe(game.view(seat), turn)
            if on_turn:
                on_turn(game, turn)
    return game


def _refereed(game: Game, referee: Referee, on_turn: Callable[[Game, Turn], None] | None) -> Game:
    referee.start_game(game)
    while not game.over:
        if game.phase is Phase.ROUND_OVER:
            game.start_round()
        referee.start_round(game)
        while game.phase is Phase.FLIP:
            game.flip()
            while game.phase in CHOOSING:
                game.play(referee.decide(game))
            turn = game.last_turn
            referee.observe(game, turn)
            if on_turn:
                on_turn(game, turn)
    referee.close()
    return game
