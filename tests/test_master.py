"""The master bot (issue 32): legal, reproducible for a seed, blind to the hidden deck, and on the
ladder above the expert."""
from __future__ import annotations

import random

import pytest
from test_review import RECORD, shuffle_unseen

from duckcover.engine.rules import VARIANTS, Rules
from duckcover.players.harness import DecisionRandom, play_game
from duckcover.players.plugins import resolve_bot
from duckcover.players.review import points
from duckcover.saves.record import read_file, replay
from duckcover_bots.greedy import GreedyBot
from duckcover_bots.master import MasterBot

TINY = 12  # samples per move: enough to exercise the search, cheap enough for the fast tier


def decide(view, key=1234, budget=60):
    bot = MasterBot(budget=budget)
    bot.rng = DecisionRandom()
    bot.rng.reseed(key)
    return bot.choose(view)


def test_never_reads_the_hidden_deck():
    """The review's record-shuffle test: the same game with every card nobody saw in another
    order gives the master the same views, so the same answers, decision by decision."""
    data = read_file(RECORD)
    shuffled = shuffle_unseen(data, random.Random(3))
    assert shuffled["rounds"] != data["rounds"]
    first, second = (points(replay(d))[:24] for d in (data, shuffled))
    assert len(first) == 24
    for one, other in zip(first, second):
        assert (one.round_index, one.turn_no, one.seat) == (other.round_index, other.turn_no, other.seat)
        assert decide(one.view) == decide(other.view)


@pytest.mark.keys  # three whole games with searches: the slow tier
def test_same_seed_same_game():
    def moves(seed):
        game = play_game([MasterBot(budget=TINY), GreedyBot(), MasterBot(budget=TINY)], seed=seed)
        return [turn.moves for log in game.rounds for turn in log.turns], game.totals

    first = moves(3)
    assert moves(3) == first
    assert moves(4) != first


@pytest.mark.keys  # whole games with searches: the slow tier
@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_plays_whole_games_legally_under_every_variant(variant):
    rules = Rules(variants=frozenset([variant]))
    seats = 8 if variant == "artists-pack" else 3
    bots = [MasterBot(budget=TINY)] + [GreedyBot() for _ in range(seats - 1)]
    game = play_game(bots, rules=rules, seed=7)  # the engine raises on any illegal move
    assert game.over and len(game.results) == rules.rounds()


def test_is_an_installed_bot_like_any_other():
    """Its file plus one entry point (the ladder's top step waits for its measured lead: #32)."""
    assert isinstance(resolve_bot("master"), MasterBot)
