"""Bots you did not write, each in its own process: whatever one does, the game completes, the
honest seats play exactly as they would beside a passive bot, the offender is named and
nothing reaches the terminal.

Every hostile bot below either fails on every decision (so each of its moves is the Referee's
fallback) or, when its mischief does not stop it answering, answers with the fallback move
itself (PassiveBot). Either way the whole game must equal the game with PassiveBot in that
seat, on the same deal and the same key.
"""
from __future__ import annotations

import textwrap

import pytest

from duckcover.players.harness import play_game
from duckcover.players.plugins import resolve_bot
from duckcover.players.safety import PassiveBot, Referee
from duckcover.players.sandbox import BotProcess
from duckcover.saves.record import replay, to_record

pytestmark = pytest.mark.keys  # the slow tier: bots in processes of their own, killed and restarted

LIMIT = 0.3  # seconds: the Referee's cut-off for the hostile seat (honest answers take about 1 ms)
HONEST_LIMIT = 30.0
SEED, KEY = 2**100 + 12345, bytes(range(16))

HEADER = """\
import gc, os, sys, time
from types import MappingProxyType
from duckcover.engine.cards import CARDS
from duckcover.engine.moves import Move
from duckcover.players.bot import Bot
from duckcover.players.safety import PassiveBot, passive_move
"""

HOSTILE = {
    "raises": ("raised ValueError: boom", """
        class Evil(Bot):
            name = "Evil"
            def choose(self, view):
                raise ValueError("boom")
    """),
    "base_exception": ("raised KeyboardInterrupt", """
        class Evil(Bot):
            def choose(self, view):
                raise KeyboardInterrupt
    """),
    "sys_exit": ("raised SystemExit: 3", """
        class Evil(Bot):
            def choose(self, view):
                sys.exit(3)
    """),
    "os_exit": ("exit status 0", """
        class Evil(Bot):
            def choose(self, view):
                os._exit(0)
    """),
    "raising_properties": (None, """
        class Evil(PassiveBot):
            @property
            def rng(self):
                raise RuntimeError("no rng for you")
            @rng.setter
            def rng(self, value):
                pass  # (a setter that raises would only stop the bot being made: tested below)
            @property
            def time_limit(self):
                raise RuntimeError("no limit either")
            @property
            def name(self):
                raise RuntimeError("nameless")
    """),
    "garbage": ("malformed answer", """
        class Evil(Bot):
            answers = ["e2e4", 42, {}, (CARDS[0][1], (0, 0)), Move("5", (0, 0)), Move(CARDS[0][5], (0.5, 1)),
                       Move((0, 99), (0, 0)), object(), float("nan")]
            calls = 0
            def choose(self, view):
                Evil.calls += 1
                return self.answers[Evil.calls % len(self.answers)]
    """),
    "illegal": ("illegal move", """
        class Evil(Bot):
            def choose(self, view):
                card = view.candidates[0][0] if view.candidates else CARDS[view.seat][1]
                return Move(card, (50, 50))
    """),
    "sleeps": ("no answer within the hard limit of 0.3 s", """
        class Evil(Bot):
            def choose(self, view):
                time.sleep(60)
    """),
    "endless_loop": ("no answer within the hard limit of 0.3 s", """
        class Evil(Bot):
            def choose(self, view):
                while True:
                    pass
    """),
    "huge_time_limit": ("no answer within the hard limit of 0.3 s", """
        class Evil(Bot):
            time_limit = 1e6
            def choose(self, view):
                time.sleep(60)
    """),
    "infinite_time_limit": ("no answer within the hard limit of 0.3 s", """
        class Evil(Bot):
            time_limit = float("inf")
            def choose(self, view):
                time.sleep(60)
    """),
    "four_gib": ("raised MemoryError", """
        class Evil(Bot):
            def choose(self, view):
                hoard = bytearray(4 << 30)
                return None
    """),
    "prints": (None, """
        class Evil(PassiveBot):
            def choose(self, view):
                print("\\x1b[2J\\x1b]0;pwned\\x07 I print")
                sys.stdout.flush()
                os.write(1, b"\\x1b[?1049l raw to fd 1\\n")
                os.write(2, b"raw to fd 2\\n")
                return super().choose(view)
    """),
    "writes_into_the_view": (None, """
        class Evil(PassiveBot):
            def choose(self, view):
                move = super().choose(view)
                for attempt in (
                    lambda: object.__setattr__(view.rules, "splashes", (0,) * 12),
                    lambda: object.__setattr__(view.rules, "values", (0,) * 13),
                    lambda: object.__setattr__(view.grids[1], "cells", MappingProxyType({})),
                    lambda: view.grid.cells.__setitem__((9, 9), (CARDS[0][1],)),
                ):
                    try:
                        attempt()
                    except Exception:
                        pass
                return move
    """),
    "gc_tricks": (None, """
        class Evil(PassiveBot):
            def choose(self, view):
                move = super().choose(view)
                for grid in view.grids:  # the dict behind each read-only mapping: ghost cards
                    for referent in gc.get_referents(grid.cells):
                        if isinstance(referent, dict):
                            referent[(7, 7)] = (CARDS[0][12],)
                for obj in gc.get_objects():  # anything that looks like a game
                    if type(obj).__name__ == "Game":
                        obj.phase = None
                return move
    """),
}


def bot_file(tmp_path, name: str) -> str:
    path = tmp_path / f"{name}.py"
    path.write_text(HEADER + textwrap.dedent(HOSTILE[name][1]))
    return str(path)


def play(first, seats: int = 3):
    """A refereed game: `first` at seat 0, greedy everywhere else; (game, referee)."""
    bots = [first] + [resolve_bot("greedy") for _ in range(seats - 1)]
    referee = Referee(bots, hard_limit=[LIMIT] + [HONEST_LIMIT] * (seats - 1), key=KEY)
    return play_game(bots, seed=SEED, referee=referee, names=["Evil", "Ann", "Bob"][:seats]), referee


def moves_of(game):
    return [turn.moves for log in game.rounds for turn in log.turns], game.totals


@pytest.fixture(scope="module")
def passive_game():
    game, referee = play(PassiveBot())
    assert not referee.fallbacks
    return moves_of(game)


@pytest.mark.parametrize("name", list(HOSTILE))
def test_a_hostile_bot_changes_nothing_for_the_honest_seats(name, tmp_path, capfd, passive_game):
    reason, _ = HOSTILE[name]
    game, referee = play(BotProcess(bot_file(tmp_path, name)))
    assert game.over
    assert moves_of(game) == passive_game  # every seat played as it would beside a passive bot
    replay(to_record(game))  # and every move was legal
    assert {f.seat for f in referee.fallbacks} <= {0} and {f.seat for f in referee.incidents} <= {0}
    if reason:  # the offender is named, with what it did
        assert reason in referee.failures[0]
        assert referee.fallbacks and all(f.seat == 0 for f in referee.fallbacks)
    else:
        assert not referee.fallbacks
    out, err = capfd.readouterr()
    assert out == "" and err == ""  # nothing reached the terminal


def test_what_a_bot_prints_is_kept_for_a_notice_escaped(tmp_path, capfd):
    game, referee = play(BotProcess(bot_file(tmp_path, "prints")))
    text = referee.output(0)
    assert "I print" in text and "raw to fd 1" in text and "raw to fd 2" in text
    assert "\x1b" not in text and "\\x1b" in text  # escape sequences shown, never sent
    assert capfd.readouterr() == ("", "")


def test_the_view_written_into_by_a_bot_is_its_own(tmp_path):
    game, referee = play(BotProcess(bot_file(tmp_path, "writes_into_the_view")))
    record = to_record(game)
    assert record["rules"]["splashes"] == list(game.rules.splashes) and any(game.rules.splashes)
    assert any(game.totals)


def test_a_bot_that_cannot_be_made_plays_fallbacks_and_is_named(tmp_path):
    path = tmp_path / "unmade.py"
    path.write_text(HEADER + textwrap.dedent("""
        class Evil(PassiveBot):
            def __init__(self, seed=0, budget=None):
                raise RuntimeError("no")
    """))
    game, referee = play(BotProcess(str(path)))
    assert game.over and moves_of(game) == moves_of(play(PassiveBot())[0])
    assert referee.failures[0] == "cannot start: raised RuntimeError: no"


def test_a_bot_that_cannot_even_load_plays_fallbacks_and_is_named(tmp_path):
    path = tmp_path / "broken.py"
    path.write_text("import os\nos._exit(7)\n")
    game, referee = play(BotProcess(str(path)))
    assert game.over and referee.fallbacks
    assert "exit status 7" in referee.failures[0]


def test_a_bot_restarted_after_an_overrun_plays_the_very_next_decision(tmp_path, passive_game):
    """Its replacement starts at once and the next decision waits for its hello: one overrun
    costs one fallback, not the rest of a fast game."""
    path = tmp_path / "once.py"
    path.write_text(HEADER + textwrap.dedent("""
        class Once(PassiveBot):
            def choose(self, view):
                if view.round_index == 0 and not view.history:  # the game's first decision only
                    time.sleep(60)
                return super().choose(view)
    """))
    process = BotProcess(str(path))
    game, referee = play(process)
    assert process.restarts == 1
    assert [f.reason for f in referee.fallbacks] == ["no answer within the hard limit of 0.3 s"]
    assert moves_of(game) == passive_game  # the fallback was the passive move; every other was its own
    decisions = sum(1 for log in game.rounds for turn in log.turns if turn.moves[0] is not None)
    assert len(referee.times[0]) == decisions - 1  # it answered every decision but the first


def test_an_overrun_in_a_fast_arena_game_costs_one_fallback_in_every_game(tmp_path):
    from duckcover.players.arena import ArenaConfig, play_deal

    path = tmp_path / "once.py"
    path.write_text(HEADER + textwrap.dedent("""
        class Once(PassiveBot):
            def choose(self, view):
                if view.round_index == 0 and not view.history:
                    time.sleep(60)
                return super().choose(view)
    """))
    config = ArenaConfig((f"{path}:Once", "greedy"), deals=3, seed=4, hard_limit=LIMIT)
    processes = {}
    try:  # 6 games on one process: more overruns than MAX_RESTARTS, each game has its own restarts
        results = [play_deal(config, deal, processes) for deal in range(config.deals)]
    finally:
        for process in processes.values():
            process.close()
    assert [result.fallbacks for result in results] == [[2, 0]] * 3  # one per game (two seatings a deal)


def test_restarts_are_limited(tmp_path):
    process = BotProcess(bot_file(tmp_path, "raises"))
    try:
        assert [process.restart() for _ in range(4)] == [True, True, True, False]
        assert not process.alive
    finally:
        process.close()


def test_a_bot_given_up_on_plays_fallbacks_to_the_end(tmp_path):
    process = BotProcess(bot_file(tmp_path, "os_exit"))  # dies at every decision
    game, referee = play(process, seats=2)
    assert game.over and process.restarts == 3
    assert referee.fallbacks[-1].reason == "stopped after 3 restarts of its process"


def test_a_bot_process_dies_with_the_game(tmp_path):
    process = BotProcess(bot_file(tmp_path, "raises"))
    play(process)
    assert process.proc.poll() is not None  # ended by the Referee's close


def test_a_bot_process_outlives_the_thread_that_started_it(tmp_path):
    """The app asks bots from short-lived worker threads; the process must not die with one."""
    import threading
    import time

    box = []

    def start():
        box.append(BotProcess(bot_file(tmp_path, "prints")))
        time.sleep(0.5)  # long enough for the bot process to have set up its death signal

    worker = threading.Thread(target=start)
    worker.start()
    worker.join()
    process = box[0]
    try:
        process.start(1, None, None)
        assert [process.answer()[0] for _ in range(2)] == ["hello", "new"]
        assert process.proc.poll() is None
    finally:
        process.close()
