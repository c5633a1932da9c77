"""Hostile bots: whatever a bot does, the game stays legal, unchanged by it, and goes on."""
import enum
import threading
import time
import types
from types import MappingProxyType

import pytest

from duckcover.engine import CARDS, CHOOSING, Game, Move, Phase
from duckcover.engine.rules import LOW_BLOWS, Rules
from duckcover.players.bot import Bot
from duckcover.players.harness import play_game
from duckcover.players.safety import Fallback, Referee, add_fallbacks, fallback_move, sanitize
from duckcover.saves.record import replay, to_record
from duckcover_bots.random_bot import RandomBot

SHORT = 0.05  # hard limit (s) for the seats of the deliberately slow bots
LONG = 10.0  # for every other seat: an honest decision never comes near it, however busy the machine


def referee_game(bots, seed=3, rules=None, hard_limit=LONG, **kw):
    referee = Referee(bots, hard_limit=hard_limit)
    game = play_game(bots, rules, seed=seed, referee=referee, **kw)
    return game, referee


def plain_record(game):
    record = to_record(game)
    for player in record["players"]:
        player.pop("name")
    return record


class Raises(Bot):
    def choose(self, view):
        raise ValueError("boom")


class Hollow(Move):
    """A Move subclass with no fields at all: unpacking it fails."""

    def __new__(cls):
        return tuple.__new__(cls, ())


class Garbage(Bot):
    answers = ["e2e4", 42, (CARDS[0][1], (0, 0)), Move("5", (0, 0)), Move(CARDS[0][5], [0, 0]),
               Move(CARDS[0][5], (0.0, 1)), Move((0, 99), (0, 0)), object(), Hollow()]

    def choose(self, view):
        return self.answers[self.rng.randrange(len(self.answers))]


class Illegal(Bot):
    def choose(self, view):
        card = view.candidates[0][0] if view.candidates else CARDS[view.seat][1]
        return Move(card, (50, 50))  # far from every stack


class Silent(Bot):
    def choose(self, view):
        return None  # "pass", which the rules never allow when a card may move


class Sleeper(Bot):
    def choose(self, view):
        time.sleep(1.0)  # far past the limit: every later decision finds it still busy
        return view.legal_moves()[0]


def test_a_bot_that_raises_gets_a_fallback_and_the_game_finishes():
    game, referee = referee_game([Raises(), RandomBot(), RandomBot()])
    assert game.over
    assert referee.fallbacks and {f.seat for f in referee.fallbacks} == {0}
    assert all(f.reason == "raised ValueError: boom" for f in referee.fallbacks)
    replay(to_record(game))  # every move the game took is legal


@pytest.mark.parametrize("hostile", [Garbage, Illegal, Silent], ids=lambda c: c.__name__)
def test_malformed_or_illegal_answers_are_replaced(hostile):
    game, referee = referee_game([RandomBot(), hostile(), RandomBot()], seed=5)
    assert game.over
    seats = {f.seat for f in referee.fallbacks}
    assert seats == {1}
    reasons = " | ".join(f.reason for f in referee.fallbacks)
    expected = {Garbage: "malformed answer", Illegal: "illegal move", Silent: "illegal move None"}[hostile]
    assert expected in reasons
    replay(to_record(game))


def test_fallbacks_are_deterministic_and_are_what_the_game_played():
    first, ref1 = referee_game([Raises(), RandomBot(), RandomBot()], seed=11)
    second, ref2 = referee_game([Raises(), RandomBot(), RandomBot()], seed=11)
    assert plain_record(first) == plain_record(second)
    assert ref1.fallbacks == ref2.fallbacks
    chosen = []

    def spy(game, seat):
        move = fallback_move(game, seat)
        chosen.append((game.round_index, game.turn_number, seat, move))
        return move

    bots = [Raises(), RandomBot(), RandomBot()]
    game = play_game(bots, seed=11, referee=Referee(bots, fallback=spy))
    assert plain_record(game) == plain_record(first) and len(chosen) == len(ref1.fallbacks)
    for round_index, turn, seat, move in chosen:
        assert game.rounds[round_index].turns[turn].moves[seat] == move


def test_fallback_move_is_legal_and_prefers_the_best_cover():
    game = Game(2, seed=4)
    while True:
        game.flip()
        if game.phase is Phase.MOVE and game.candidates(0):
            break
        while game.phase in CHOOSING:
            game.play([fallback_move(game, seat) for seat in range(game.n)])
    move = fallback_move(game, 0)
    game.check(0, move)
    assert move == fallback_move(game, 0)


def test_sanitize_rebuilds_moves_from_engine_values():
    card = CARDS[2][7]
    assert sanitize(Move(card, (1, -1))) == Move(card, (1, -1))
    assert sanitize(Move(card, (1, -1))).card is card
    assert sanitize(None) is None
    for bad in ("x", (card, (0, 0)), Move(card, (0, 0, 0)), Move(card, (True, 0)), Move((9, 1), (0, 0))):
        with pytest.raises(ValueError):
            sanitize(bad)


def test_a_bot_that_sleeps_past_the_hard_limit_is_cut_off():
    game, referee = referee_game([Sleeper(), RandomBot()], seed=2, hard_limit=[SHORT, LONG])
    assert game.over
    assert any("no answer within the hard limit of 0.05 s" in f.reason for f in referee.fallbacks)
    assert any("still busy" in f.reason for f in referee.fallbacks)  # a sleeping bot is not asked twice at once
    assert {f.seat for f in referee.fallbacks} == {0}
    replay(to_record(game))


def test_a_bot_that_never_returns_cannot_stop_the_game():
    release = threading.Event()  # only so the test can free the CPU afterwards

    class Forever(Bot):
        calls = 0

        def choose(self, view):
            Forever.calls += 1
            while not release.is_set():  # a busy loop: nothing but the end of the test stops it
                pass
            return None

    try:
        game, referee = referee_game([RandomBot(), Forever(), RandomBot()], seed=8, hard_limit=[LONG, SHORT, LONG])
        assert game.over
        assert Forever.calls == 1  # asked once; every later decision fell back without asking
        first, *rest = [f for f in referee.fallbacks if f.seat == 1]
        assert "no answer within the hard limit" in first.reason
        assert rest and all("still busy" in f.reason for f in rest)
    finally:
        release.set()


def test_a_bot_that_overran_plays_again_once_its_call_returns():
    gate = threading.Event()

    class SlowOnce(RandomBot):
        waited = False

        def choose(self, view):
            if not SlowOnce.waited:
                SlowOnce.waited = True
                gate.wait(10)
            return super().choose(view)

    bots = [SlowOnce(), RandomBot()]
    referee = Referee(bots, hard_limit=[0.5, LONG])  # 0.5 s: room for its honest decisions later
    turns_when_freed = []

    def on_turn(game, turn):
        if referee.fallbacks and not gate.is_set():
            gate.set()
            deadline = time.monotonic() + 10
            while referee._busy[0] and time.monotonic() < deadline:
                time.sleep(0.001)
            turns_when_freed.append((game.round_index, game.turn_number))

    game = play_game(bots, seed=6, referee=referee, on_turn=on_turn)
    assert game.over and turns_when_freed
    freed = turns_when_freed[0]
    assert all((f.round, f.turn) < freed for f in referee.fallbacks)  # none after it was free again


def test_a_failing_hook_is_an_incident_not_a_crash():
    class BadHooks(RandomBot):
        def start_round(self, view):
            raise RuntimeError("no round for me")

        def observe(self, view, turn):
            raise KeyError("what")

    game, referee = referee_game([BadHooks(), RandomBot()], seed=1)
    assert game.over and not referee.fallbacks
    hooks = {f.reason.split(":")[0] for f in referee.incidents}
    assert hooks == {"start_round", "observe"}


class Vandal(RandomBot):
    """Tries every way to change what it was given, then plays like RandomBot."""

    def attempt(self, action):
        try:
            action()
        except Exception:  # noqa: BLE001 - most attempts are refused; that is the point
            pass

    def choose(self, view):
        other = (view.seat + 1) % view.players
        self.attempt(lambda: setattr(view, "seat", other))
        self.attempt(lambda: view.grid.cells.__setitem__((9, 9), (CARDS[0][1],)))
        self.attempt(lambda: view.grids[other].cells.clear())
        self.attempt(lambda: setattr(view.grids[other], "cells", MappingProxyType({})))
        # Past GridView's read-only __setattr__: only the Referee's private copy stops these.
        self.attempt(lambda: object.__setattr__(view.grids[other], "cells", MappingProxyType({})))
        self.attempt(lambda: object.__setattr__(view.rules, "splashes", (50,) * 12))
        self.attempt(lambda: object.__setattr__(view.rules, "variants", frozenset({LOW_BLOWS})))
        self.attempt(lambda: view.history.__iadd__((None,)))
        self.attempt(lambda: list(view.history).clear())
        move = super().choose(view)
        self.rng = None  # the harness reinstates its RNG before the next decision
        return move


def test_a_bot_that_vandalises_its_view_changes_nothing_for_anyone_else():
    honest, _ = referee_game([RandomBot(), RandomBot(), RandomBot()], seed=21)
    game, referee = referee_game([Vandal(), RandomBot(), RandomBot()], seed=21)
    assert plain_record(game) == plain_record(honest)  # same moves by everyone, same scores
    assert game.totals == honest.totals
    assert game.rules == Rules()
    assert not referee.fallbacks


def test_view_vandalism_within_one_decision_leaves_the_game_untouched():
    game = Game(3, seed=9)
    game.flip()
    while game.phase not in CHOOSING:
        game.flip()
    before = (to_record(game), [dict(game.grid(s)) for s in range(3)], game.rules, game.draw_size, game.history)
    referee = Referee([Vandal(), Vandal(), Vandal()], hard_limit=None)
    moves = referee.decide(game)
    after = (to_record(game), [dict(game.grid(s)) for s in range(3)], game.rules, game.draw_size, game.history)
    assert before == after
    game.play(moves)


# --- what a view can reach ------------------------------------------------------------------------
OPAQUE = (type, types.ModuleType, types.FunctionType, types.BuiltinFunctionType, types.MethodType)


def reachable(root):
    """Every object reachable from `root` through data: items, attributes, slots (no gc, no frames)."""
    seen, todo = {}, [root]
    while todo:
        obj = todo.pop()
        if id(obj) in seen or isinstance(obj, (str, bytes, int, float, type(None))):
            continue
        seen[id(obj)] = obj
        if isinstance(obj, OPAQUE):
            continue
        if isinstance(obj, (tuple, list, set, frozenset)):
            todo.extend(obj)
        if isinstance(obj, (dict, MappingProxyType)):
            for key, value in obj.items():
                todo += [key, value]
        if isinstance(obj, enum.Enum):
            continue  # members reference their class; nothing of a game
        todo.extend(getattr(obj, "__dict__", {}).values())
        for cls in type(obj).__mro__:
            for slot in getattr(cls, "__slots__", ()):
                try:
                    todo.append(object.__getattribute__(obj, slot))
                except AttributeError:
                    pass
    return list(seen.values())


def views_along_a_game(rules=None, seed=13):
    game, views = Game(3, rules, seed=seed), []
    while not game.over:
        if game.phase is Phase.ROUND_OVER:
            game.start_round()
        game.flip()
        while game.phase in CHOOSING:
            views.append((game, game.view(0)))
            views.append((game, Referee([RandomBot()] * 3)._private(game.view(1))))
            game.play([fallback_move(game, seat) for seat in range(game.n)])
        if len(views) > 30:
            break
    return views


@pytest.mark.parametrize("rules", [None, Rules(variants=frozenset({LOW_BLOWS}))], ids=["standard", "low-blows"])
def test_a_view_holds_no_path_to_the_game_or_its_deck(rules):
    for game, view in views_along_a_game(rules):
        found = reachable(view)
        assert not any(obj is game or isinstance(obj, Game) for obj in found)
        assert not any(obj is game._draw for obj in found)
        draw = list(game._draw)
        assert not any(isinstance(obj, (list, tuple)) and len(obj) > 3 and list(obj) in (draw, draw[::-1]) for obj in found)
        # Nothing mutable at all: every container a bot can reach is a tuple, frozenset or read-only proxy.
        assert not any(type(obj) in (list, dict, set) for obj in found)


def test_add_fallbacks_writes_the_turn_extension_and_the_record_still_replays():
    game, referee = referee_game([Raises(), RandomBot()], seed=4)
    record = add_fallbacks(to_record(game), referee.fallbacks)
    marked = [
        (r, t) for r, rnd in enumerate(record["rounds"]) for t, turn in enumerate(rnd["turns"]) if "fallbacks" in turn
    ]
    assert marked == sorted({(f.round, f.turn) for f in referee.fallbacks})
    assert all(turn.get("fallbacks", [0]) == [0] for rnd in record["rounds"] for turn in rnd["turns"])
    assert replay(record).totals == game.totals
    assert add_fallbacks(record, [Fallback(1, 99, 0, "a turn that never finished")]) is record


def test_trusted_inline_referee_still_catches_exceptions():
    game, referee = referee_game([Raises(), RandomBot()], seed=4, hard_limit=None)
    assert game.over and referee.fallbacks


def test_seats_without_a_bot_are_left_to_the_caller():
    game = Game(3, seed=2)
    referee = Referee([None, Raises(), RandomBot()], hard_limit=None)
    referee.start_game(game)
    while not game.over:
        if game.phase is Phase.ROUND_OVER:
            game.start_round()
        game.flip()
        while game.phase in CHOOSING:
            moves = referee.decide(game)
            assert moves[0] is None  # the person's move: the app fills it in
            moves[0] = fallback_move(game, 0) if 0 in game.awaiting else None
            game.play(moves)
        referee.observe(game, game.last_turn)
    assert {f.seat for f in referee.fallbacks} == {1}
    count = len(referee.fallbacks)
    assert referee.decide(game, seats=[1]) == [None, None, None]  # nothing to decide after the game
    assert len(referee.fallbacks) == count  # and the bot was not asked


def test_the_hard_limit_follows_a_bots_own_time_limit():
    from duckcover.players.safety import hard_limit_for

    bot = RandomBot()
    assert hard_limit_for(bot, 10.0) == 10.0 and hard_limit_for(bot, None) is None
    bot.time_limit = 0.25
    assert hard_limit_for(bot, 10.0) == 1.0  # 2 * 0.25 + 0.5 s of grace
    assert hard_limit_for(None, 3.0) == 3.0


@pytest.mark.parametrize("hard_limit", [None, LONG], ids=["inline", "worker"])
def test_a_bot_that_exits_the_interpreter_only_loses_its_move(hard_limit):
    class Quitter(Bot):
        def choose(self, view):
            raise SystemExit(3)

    game, referee = referee_game([Quitter(), RandomBot()], seed=7, hard_limit=hard_limit)
    assert game.over and referee.fallbacks
    assert {f.reason for f in referee.fallbacks} == {"raised SystemExit: 3"}


def test_a_bots_time_limit_can_only_lower_the_cut_off():
    from duckcover.players.safety import hard_limit_for

    class Asks(RandomBot):
        pass

    for asked in (1e6, float("inf"), float("nan"), -1, 0, True, "5", None):
        bot = Asks()
        bot.time_limit = asked
        assert hard_limit_for(bot, 10.0) == 10.0, asked
    bot = Asks()
    bot.time_limit = 1.0
    assert hard_limit_for(bot, 10.0) == 2.5 and hard_limit_for(bot, 2.0) == 2.0

    class Raising(RandomBot):
        @property
        def time_limit(self):
            raise RuntimeError("no")

    assert hard_limit_for(Raising(), 3.0) == 3.0
    referee = Referee([Raising(), RandomBot()], hard_limit=3.0)  # used to crash here
    assert referee._limits == [3.0, 3.0]


def test_a_keyboard_interrupt_raised_by_a_bot_in_a_worker_is_its_own_failure():
    class Interrupts(Bot):
        def choose(self, view):
            raise KeyboardInterrupt

    game, referee = referee_game([Interrupts(), RandomBot()], seed=7)
    assert game.over and {f.reason for f in referee.fallbacks} == {"raised KeyboardInterrupt"}


def test_a_bot_whose_rng_is_a_raising_property_still_plays():
    class NoRng(RandomBot):
        @property
        def rng(self):
            raise RuntimeError("no rng")

        @rng.setter
        def rng(self, value):
            raise RuntimeError("keep it")

        def __init__(self):
            pass

        def choose(self, view):
            moves = view.legal_moves()
            return moves[0] if moves else None

    game, referee = referee_game([NoRng(), RandomBot()], seed=7)
    assert game.over and not referee.fallbacks
