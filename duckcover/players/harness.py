"""Driving a game with bots: views built before any move applies, one joint move per step."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from ..engine.game import Game, Phase, new_seed  # noqa: F401 - new_seed: its old home, re-exported
from ..engine.moves import Turn
from ..engine.rules import Rules
from .bot import Bot
from .sequence import play
from .table import Table
from .seeding import (  # noqa: F401 - their old home: re-exported for callers and bot authors
    KEY_BYTES, DecisionRandom, bot_key_for, constructor_seed, decision_key, new_bot_key,
)

if TYPE_CHECKING:
    from .safety import Referee


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


class TrustedHooks:
    """The hooks of trusted bots (one per seat), called directly: the fast path simulations use."""

    def __init__(self, bots: Sequence[Bot]) -> None:
        self.bots = bots
        # Most bots ignore observe; skipping their views keeps simulations fast.
        self.observers = [(seat, bot) for seat, bot in enumerate(bots) if type(bot).observe is not Bot.observe]

    def start_game(self, game: Game) -> None:
        for seat, bot in enumerate(self.bots):
            bot.start_game(game.view(seat))

    def start_round(self, game: Game) -> None:
        for seat, bot in enumerate(self.bots):
            bot.start_round(game.view(seat))

    def observe(self, game: Game, turn: Turn) -> None:
        for seat, bot in self.observers:
            bot.observe(game.view(seat), turn)


class _TurnHook:
    """`on_turn(game, turn)` after the bots' own observe: what the arena's callers watch."""

    def __init__(self, hooks, on_turn: Callable[[Game, Turn], None]) -> None:
        self.hooks, self.on_turn = hooks, on_turn
        self.start_game, self.start_round = hooks.start_game, hooks.start_round

    def observe(self, game: Game, turn: Turn) -> None:
        self.hooks.observe(game, turn)
        self.on_turn(game, turn)


def _with_turn_hook(hooks, on_turn: Callable[[Game, Turn], None] | None):
    return _TurnHook(hooks, on_turn) if on_turn else hooks


def _bots_table(game: Game, decide) -> Table:
    """A table of bots only, nobody looking (the views are the bots' business). Who is a person
    and who a bot are asked every turn: C-level membership tests, not Python calls."""
    return Table(game, is_human=frozenset().__contains__, bot_plays=frozenset(range(game.n)).__contains__,
                 decide=decide, keep_views=False)


def play_game(
    bots: Sequence[Bot],
    rules: Rules | None = None,
    seed: int = 0,
    names: Sequence[str] | None = None,
    on_turn: Callable[[Game, Turn], None] | None = None,
    referee: Referee | None = None,
    key: bytes | None = None,
) -> Game:
    """Play a whole game among `bots` (one per seat) and return it, finished, on the one
    sequencer (players.sequence) with no pauses.

    Without a `referee` the bots are trusted (the fast path simulations use). With one
    (duckcover.players.safety.Referee, built on the same bots) every hook and decision runs under
    its guard: failures become fallback moves, listed in `referee.fallbacks`.
    `key` is the secret the bots' randomness comes from (default: derived from `seed`).
    """
    key = bot_key_for(seed) if key is None else key
    if referee is not None:
        names = list(names) if names else [f"{referee.label(i)} {i + 1}" for i in range(len(bots))]
        game = Game(names, rules, seed)
        if referee.key is None:
            referee.key = key
        play(_bots_table(game, referee.decide), _with_turn_hook(referee, on_turn))
        referee.close()
        return game
    prepare(bots)
    game = Game(list(names) if names else [f"{bot.name} {i + 1}" for i, bot in enumerate(bots)], rules, seed)
    return play(_bots_table(game, lambda game, seats: decide(game, bots, key)), _with_turn_hook(TrustedHooks(bots), on_turn))
