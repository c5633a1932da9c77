"""The app asks bots through one door: a bot that hangs, crashes or cheats costs a fallback move."""
import threading

from duckcover.app.bots import bot_decision
from duckcover.bot import Bot
from duckcover.game import Game

RELEASE = threading.Event()


class Hangs(Bot):
    time_limit = 0.05  # cut off at 2 x 0.05 + 0.5 s

    def choose(self, view):
        RELEASE.wait(30)  # "never" answers; released at the end so no thread outlives the test
        return None


class Crashes(Bot):
    def choose(self, view):
        raise RuntimeError("boom")


class Cheats(Bot):
    def choose(self, view):
        return "cover everything"


def a_game_with_a_choice() -> tuple[Game, int]:
    game = Game(3, seed=4)
    while not game.awaiting:
        game.flip()
    return game, game.awaiting[0]


def test_a_bot_that_never_answers_gets_a_legal_fallback():
    game, seat = a_game_with_a_choice()
    try:
        move, reason = bot_decision(Hangs(), game.view(seat), game.seed, game)
    finally:
        RELEASE.set()
    assert move in game.legal_moves(seat)
    assert "no answer" in reason
    game.play([move if s == seat else (game.legal_moves(s) or [None])[0] for s in range(game.n)])


def test_a_crashing_or_cheating_bot_gets_a_legal_fallback():
    game, seat = a_game_with_a_choice()
    for bot, words in ((Crashes(), "boom"), (Cheats(), "malformed")):
        move, reason = bot_decision(bot, game.view(seat), game.seed, game)
        assert move in game.legal_moves(seat)
        assert words in reason
