"""Driving a game with bots: views built before any move applies, one joint move per step."""
from __future__ import annotations

import hashlib
import random
import secrets
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from .bot import Bot
from .game import CHOOSING, Game, Phase, new_seed  # noqa: F401 - new_seed: its old home, re-exported
from .moves import Turn
from .rules import Rules

if TYPE_CHECKING:
    from .safety import Referee


KEY_BYTES = 16  # a per-game secret: 128 bits


def new_bot_key() -> bytes:
    """A fresh secret for the bots' randomness (kept in the record as `bot_key`, never in a view)."""
    return secrets.token_bytes(KEY_BYTES)


def bot_key_for(seed: int) -> bytes:
    """The bots' key derived from a seed that was given (`--seed`, the arena's deals), so that
    seed alone reproduces the whole game. It tells nothing the seed does not: a keyed hash
    cannot be run backwards, and whoever knows the seed knows the deal anyway."""
    return hashlib.blake2b(str(seed).encode(), digest_size=KEY_BYTES, person=b"duckcover-bots").digest()


def decision_key(key: bytes | int, seat: int, round_index: int, turn: int, step: int) -> int:
    """The seed of one decision's RNG: a keyed hash (BLAKE2b) of where the decision is.

    Without the key nothing can be learnt from it, however many a bot collects; with the key
    (which the record keeps) a replay or a resumed game makes exactly the same draws. An int
    key is a seed (see bot_key_for)."""
    if not isinstance(key, bytes):
        key = bot_key_for(key)
    data = b"%d:%d:%d:%d" % (seat, round_index, turn, step)
    return int.from_bytes(hashlib.blake2b(data, digest_size=16, key=key).digest(), "big")


def constructor_seed(key: bytes | int, seat: int) -> int:
    """The `seed` a bot is constructed with: from the key too, so it reveals nothing."""
    return decision_key(key, seat, -1, -1, -1)


class DecisionRandom(random.Random):
    """A bot's RNG, reseeded for every decision from the game's secret key and (seat, round, turn, step).

    The seed is applied lazily, on first use, because most decisions never draw a number.
    That keeps a bot reproducible decision by decision, so a resumed game plays on as the
    uninterrupted one would have.
    """

    _pending: tuple | None = None

    def reseed(self, key: bytes | int, *where: int) -> None:
        """Seed from decision_key(key, seat, round, turn, step) before the next draw (the hash
        is computed only then); with `key` alone, seed from that int."""
        self._pending = (key, *where)

    def _apply(self) -> None:
        where, self._pending = self._pending, None
        super().seed(decision_key(*where) if len(where) > 1 else where[0])

    def random(self) -> float:
        if self._pending is not None:
            self._apply()
        return super().random()

    def getrandbits(self, k: int) -> int:
        if self._pending is not None:
            self._apply()
        return super().getrandbits(k)


def prepare(bots: Sequence[Bot]) -> None:
    for bot in bots:
        if not isinstance(bot.rng, DecisionRandom):
            bot.rng = DecisionRandom()


def decide(game: Game, bots: Sequence[Bot], key: bytes | int | None = None) -> list:
    """Every seat's choice, each from a view built before any of them applies."""
    key = game.seed if key is None else key
    choosing = game.awaiting
    views = {seat: game.view(seat) for seat in choosing}
    step = 1 if game.phase is Phase.PLACE else 0
    moves: list = [None] * game.n
    for seat in choosing:
        bot = bots[seat]
        bot.rng.reseed(key, seat, game.round_index, game.turn_number, step)
        moves[seat] = bot.choose(views[seat])
    return moves


def play_game(
    bots: Sequence[Bot],
    rules: Rules | None = None,
    seed: int = 0,
    names: Sequence[str] | None = None,
    on_turn: Callable[[Game, Turn], None] | None = None,
    referee: Referee | None = None,
    key: bytes | None = None,
) -> Game:
    """Play a whole game among `bots` (one per seat) and return it, finished.

    Without a `referee` the bots are trusted (the fast path simulations use). With one
    (duckcover.safety.Referee, built on the same bots) every hook and decision runs under
    its guard: failures become fallback moves, listed in `referee.fallbacks`.
    `key` is the secret the bots' randomness comes from (default: derived from `seed`).
    """
    key = bot_key_for(seed) if key is None else key
    if referee is not None:
        names = list(names) if names else [f"{referee.label(i)} {i + 1}" for i in range(len(bots))]
        game = Game(names, rules, seed)
        if referee.key is None:
            referee.key = key
        return _refereed(game, referee, on_turn)
    prepare(bots)
    game = Game(list(names) if names else [f"{bot.name} {i + 1}" for i, bot in enumerate(bots)], rules, seed)
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
                game.play(decide(game, bots, key))
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
