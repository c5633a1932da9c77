"""The arena measures truly and runs lean: a bot is charged its own time only, a view crosses the
pipe encoded once, and the built-in bots are called without a thread hand-off."""
from __future__ import annotations

import json
import statistics
import threading
import time

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from duckcover.players import sandbox
from array import array

from duckcover.engine import CHOOSING, Game, Phase
from duckcover.engine.rules import LOW_BLOWS, SURPRISES, TWO_FLIPS, Rules
from duckcover.players.arena import ArenaConfig, play_deal, time_figures
from duckcover.players.bot import Bot
from duckcover.players.safety import Referee
from duckcover.players.sandbox import BotProcess, ViewEncoder, view_data
from duckcover_bots.greedy import GreedyBot

from test_bot_protocol import views_along_a_game

pytestmark = pytest.mark.keys  # bot processes and threads timed against each other: the slow tier

SLOW = 0.3  # seconds the slow bots think per decision (a loaded machine's round trips take tens of ms)
DECISIONS = 5  # of the bot under test

PLUGINS = f"""
import time
from duckcover.players.bot import Bot

class Quick(Bot):
    def choose(self, view):
        return view.legal_moves()[0]

class Slow(Bot):
    def choose(self, view):
        time.sleep({SLOW})
        return view.legal_moves()[0]
"""


class SlowInProcess(Bot):
    name = "slow"

    def choose(self, view):
        time.sleep(SLOW)
        return view.legal_moves()[0]


def play_until(referee: Referee, game: Game, seat: int, decisions: int) -> None:
    """Drive the game as the harness does until `seat` has made `decisions` decisions."""
    referee.start_game(game)
    while len(referee.times[seat]) < decisions:
        if game.phase is Phase.ROUND_OVER:
            game.start_round()
        referee.start_round(game)
        game.flip()
        while game.phase in CHOOSING:
            game.play(referee.decide(game))
        referee.observe(game, game.last_turn)


def charged(bots, seat: int, inline=None) -> list[float]:
    referee = Referee(bots, hard_limit=10.0, inline=inline)
    try:
        play_until(referee, Game(len(bots), seed=4), seat, DECISIONS)
    finally:
        referee.close()
    assert not referee.fallbacks
    return list(referee.times[seat])


def test_a_process_bot_beside_a_slow_bot_in_this_process_is_charged_its_own_time(tmp_path):
    path = tmp_path / "plugins.py"
    path.write_text(PLUGINS)
    for inline in ([False, False], [False, True]):  # the slow bot on a worker thread, then inline
        quick_times = charged([BotProcess(f"{path}:Quick"), SlowInProcess()], 0, inline)
        # The old Referee read the answer after the slow bot had run: at least SLOW each time.
        assert max(quick_times) < SLOW / 2, (inline, quick_times)
        assert statistics.median(quick_times) < SLOW / 6, (inline, quick_times)
    slow_times = charged([BotProcess(f"{path}:Quick"), SlowInProcess()], 1)
    assert min(slow_times) >= SLOW  # and the slow bot is charged its own thinking


def test_of_two_process_bots_the_quick_one_is_not_charged_for_the_slow_one(tmp_path):
    path = tmp_path / "plugins.py"
    path.write_text(PLUGINS)
    # The slow bot sits first: its answer is awaited while the quick one's is already there.
    bots = [BotProcess(f"{path}:Slow"), BotProcess(f"{path}:Quick"), GreedyBot()]
    referee = Referee(bots, hard_limit=10.0)
    try:
        play_until(referee, Game(3, seed=6), 1, DECISIONS)
    finally:
        referee.close()
    assert not referee.fallbacks
    assert max(referee.times[1]) < SLOW / 2, list(referee.times[1])
    # The slow one is charged its sleep (its first clock starts when its start-up answer is read: a hair late).
    assert min(referee.times[0]) >= SLOW * 0.9




@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32), players=st.integers(2, 5),
       variants=st.sampled_from([(), (LOW_BLOWS,), (TWO_FLIPS, SURPRISES)]))
def test_the_encoded_view_is_the_protocol_view(seed, players, variants):
    encoder = ViewEncoder()  # one for the whole game and every seat, as a Referee has
    for view in views_along_a_game(Rules(variants=frozenset(variants)), seed, players):
        assert json.loads(encoder.encode(view)) == view_data(view)


def test_each_turn_of_the_history_is_encoded_once_for_every_seat_and_request(monkeypatch):
    encoded = []
    original = sandbox.turn_data
    monkeypatch.setattr(sandbox, "turn_data", lambda turn: encoded.append(turn) or original(turn))
    encoder = ViewEncoder()
    views = list(views_along_a_game(Rules(), seed=9, players=4))
    for view in views:
        encoder.encode(view)
        encoder.encode(view)  # a second request of the same turn (observe, then choose)
    distinct = {id(turn): turn for view in views for turn in view.history}
    assert sum(len(view.history) for view in views) > 10 * len(distinct)  # a view repeats the history
    assert len(encoded) == len(distinct)


class WhereCalled(GreedyBot):
    threads: set = set()

    def choose(self, view):
        WhereCalled.threads.add(threading.current_thread().name)
        return super().choose(view)


def test_a_bot_marked_inline_is_called_in_this_thread_even_under_a_limit():
    WhereCalled.threads = set()
    play_until(Referee([WhereCalled(), GreedyBot()], hard_limit=10.0, inline=[True, True]), Game(2, seed=1), 0, 3)
    assert WhereCalled.threads == {threading.current_thread().name}
    WhereCalled.threads = set()
    play_until(Referee([WhereCalled(), GreedyBot()], hard_limit=10.0), Game(2, seed=1), 0, 3)
    assert WhereCalled.threads == {"duckcover-bot"}  # a bot not known to return gets a worker thread


def test_an_inline_answer_after_the_limit_is_replaced_by_a_fallback():
    slow = SlowInProcess()
    referee = Referee([slow, GreedyBot()], hard_limit=SLOW / 3, inline=[True, True])
    play_until(referee, Game(2, seed=1), 0, 2)
    assert len(referee.fallbacks) >= 2 and {item.seat for item in referee.fallbacks} == {0}
    assert all(item.reason.startswith("no answer within the hard limit") for item in referee.fallbacks)


def test_the_arena_calls_its_built_in_bots_inline(monkeypatch):
    seen = set()
    original = GreedyBot.choose

    def choose(self, view):
        seen.add(threading.current_thread().name)
        return original(self, view)

    monkeypatch.setattr(GreedyBot, "choose", choose)
    play_deal(ArenaConfig(("greedy", "greedy"), deals=1, seed=2), 0)
    assert seen == {threading.current_thread().name}


@given(st.lists(st.lists(st.floats(1e-6, 100.0), max_size=40), max_size=6))
def test_the_median_and_max_of_decision_times_without_a_list_of_them_all(lists):
    arrays = [array("f", times) for times in lists]  # as the arena keeps them
    every = sorted(t for times in arrays for t in times)
    median, top = time_figures(iter(arrays))
    if not every:
        assert (median, top) == (None, None)
        return
    assert top == every[-1]
    upper_middle = every[len(every) // 2]
    assert abs(median - upper_middle) <= 0.001 * upper_middle


class Keeper(GreedyBot):
    def choose(self, view):
        self.seen = view
        return super().choose(view)


def test_only_a_bot_marked_inline_is_handed_the_engines_view_uncopied():
    game = Game(2, seed=3)
    bots = [Keeper(), Keeper()]
    referee = Referee(bots, hard_limit=10.0, inline=[True, False])
    game.flip()
    referee.decide(game)
    engine = game.view(0).grids
    assert all(mine is theirs for mine, theirs in zip(bots[0].seen.grids, engine))  # built in: no copy needed
    assert not any(mine is theirs for mine, theirs in zip(bots[1].seen.grids, engine))  # a private copy
    assert dict(bots[1].seen.grids[0].cells) == dict(engine[0].cells)
    referee.close()
