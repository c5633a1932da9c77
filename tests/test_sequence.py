"""The one game sequencer (duckcover.players.sequence): deal to Game over on the shared turn,
paced by a fake host that keeps every "later" with its delay, and the events it tells."""
from __future__ import annotations

import re
from collections import deque
from pathlib import Path

import duckcover

from duckcover.engine import Game, Phase, Rules
from duckcover.players.events import (BY_TIME, BotFlips, ChoiceOpened, Chosen, FlipAwaited, Flipped, GameOver,
                                      Revealed, RoundOver, RoundStarted, TurnOver)
from duckcover.players.harness import bot_key_for, decide, play_game, prepare
from duckcover.players.safety import fallback_move
from duckcover.players.sequence import PAUSES, InlinePacing, Sequencer, Step
from duckcover.players.table import Table
from duckcover.saves.record import to_record
from duckcover_bots.greedy import GreedyBot
from duckcover_bots.random_bot import RandomBot

NAMES = ["Ann", "Ben", "Cy"]


class QueuePacing:
    """Every "later" waits with its delay until `step`; bots answer at once."""

    def __init__(self) -> None:
        self.queue: deque = deque()
        self.delays: list[float] = []
        self.now = 0.0

    def later(self, delay, callback) -> None:
        self.delays.append(delay)
        self.queue.append((delay, callback))

    def run(self, work, done) -> None:
        done(work())

    def clock(self) -> float:
        return self.now

    def cancel(self) -> None:
        pass

    def step(self) -> float:
        delay, callback = self.queue.popleft()
        self.now += delay
        callback()
        return delay

    def run_all(self, limit: int = 50_000) -> None:
        for _ in range(limit):
            if not self.queue:
                return
            self.step()
        raise AssertionError("the sequence never came to rest")


class Hooks:
    def __init__(self) -> None:
        self.calls: list[str] = []

    def start_game(self, game) -> None:
        self.calls.append("start_game")

    def start_round(self, game) -> None:
        self.calls.append(f"start_round {game.round_index}")

    def observe(self, game, turn) -> None:
        self.calls.append("observe")


def bot_table(game: Game, humans=(), **options) -> Table:
    bots = [GreedyBot() if seat % 2 else RandomBot() for seat in range(game.n)]
    prepare(bots)
    key = bot_key_for(game.seed)
    return Table(game, is_human=lambda seat: seat in humans,
                 decide=lambda game, seats: decide(game, bots, key), **options)


def test_sequence_a_bots_only_game_waits_each_pause_of_the_table_and_ends_as_the_harness_game():
    game = Game(NAMES, Rules(), seed=5)
    pacing, hooks, events = QueuePacing(), Hooks(), []
    sequencer = Sequencer(bot_table(game), pacing, pauses=PAUSES["normal"], hooks=hooks)
    sequencer.listen(events.append)
    sequencer.start()
    pacing.run_all()
    assert game.over and sequencer.step is Step.GAME_OVER and events[-1] == GameOver()
    bots = [GreedyBot() if seat % 2 else RandomBot() for seat in range(3)]
    assert to_record(game) == to_record(play_game(bots, Rules(), seed=5, names=NAMES))
    kinds = [type(event) for event in events]
    turns = sum(len(entry["turns"]) for entry in to_record(game)["rounds"])
    assert kinds.count(TurnOver) == turns == hooks.calls.count("observe")
    assert kinds.count(RoundOver) == 3 == kinds.count(RoundStarted) + 1
    assert hooks.calls[:2] == ["start_game", "start_round 0"]
    assert [c for c in hooks.calls if c.startswith("start_round")] == ["start_round 0", "start_round 1", "start_round 2"]
    normal = PAUSES["normal"]
    assert pacing.delays.count(normal.flip) == kinds.count(BotFlips) == kinds.count(Flipped)
    assert pacing.delays.count(normal.reveal) == turns and pacing.delays.count(normal.round) == 3


def test_sequence_a_human_captain_is_awaited_and_her_flip_opens_the_choice():
    game = Game(NAMES, Rules(), seed=2)
    pacing, events = QueuePacing(), []
    sequencer = Sequencer(bot_table(game, humans={game.captain}), pacing)
    sequencer.listen(events.append)
    sequencer.start()
    assert sequencer.step is Step.AWAIT_FLIP and events == [FlipAwaited(game.captain)]
    assert not pacing.queue  # nothing happens until she flips
    assert sequencer.flip() and isinstance(events[1], Flipped)
    assert not sequencer.flip()  # one flip per turn
    if game.phase is not Phase.FLIP:
        assert any(type(e) is ChoiceOpened for e in events)


def test_sequence_a_human_seat_is_revealed_with_everyone_once_she_has_chosen():
    game = Game(NAMES, Rules(), seed=3)
    table = bot_table(game, humans={0})
    pacing, events = QueuePacing(), []
    sequencer = Sequencer(table, pacing, flips_itself=lambda seat: True)
    sequencer.listen(events.append)
    sequencer.start()
    while not (sequencer.step is Step.CHOOSING and 0 in table.waiting()):
        pacing.step()
    assert not any(type(e) is Revealed for e in events)  # the bots have chosen; she has not
    assert sequencer.choose(0, table.views[0].legal_moves()[0]) is None
    assert type(events[-2]) is Revealed and type(events[-1]) is TurnOver
    assert events[-3] == Chosen(0, "player")


def test_sequence_the_next_deal_waits_for_the_host_when_it_holds_the_round_end():
    game = Game(NAMES, Rules(), seed=4)
    pacing, events = QueuePacing(), []
    sequencer = Sequencer(bot_table(game), pacing, deal_waits=True)
    sequencer.listen(events.append)
    sequencer.start()
    pacing.run_all()
    assert sequencer.step is Step.ROUND_OVER and events[-1] == RoundOver(1) and game.round_index == 0
    sequencer.deal()
    assert events[events.index(RoundOver(1)) + 1] == RoundStarted(2) and game.round_index == 1


def test_sequence_a_persons_time_runs_out_for_the_flip_and_for_the_choice():
    game = Game(NAMES, Rules(), seed=6)
    table = bot_table(game, humans={0, 1, 2})
    pacing, events = QueuePacing(), []
    sequencer = Sequencer(table, pacing, turn_seconds=30.0)
    sequencer.listen(events.append)
    sequencer.start()
    assert sequencer.deadline == 30.0 and pacing.delays == [30.0]
    pacing.step()  # nobody flipped: the flip is made when the time is up
    assert any(type(e) is Flipped for e in events)
    while game.phase is Phase.FLIP:  # (everyone quacked: the next flip's time)
        pacing.step()
    waiting = table.waiting()
    expected = {seat: fallback_move(game, seat) for seat in waiting}
    pacing.step()  # nobody chose: each gets the fallback move
    assert [e for e in events if type(e) is Chosen] == [Chosen(seat, BY_TIME) for seat in waiting]
    revealed = next(e for e in events if type(e) is Revealed)
    assert all(revealed.moves[seat] == move for seat, move in expected.items())


def test_sequence_a_late_timer_does_nothing_once_the_step_it_was_for_is_over():
    game = Game(NAMES, Rules(), seed=7)
    table = bot_table(game, humans={game.captain})
    pacing = QueuePacing()
    sequencer = Sequencer(table, pacing, turn_seconds=30.0)
    sequencer.start()
    sequencer.flip()  # she flips in time: the time-out's call is left in the queue
    flips = len(game.history) + (1 if game.phase is not Phase.FLIP else 0)
    _, timeout = pacing.queue[0]
    timeout()
    assert len(game.history) + (1 if game.phase is not Phase.FLIP else 0) == flips


def test_sequence_inline_pacing_plays_a_low_blows_game_to_the_end_without_recursion():
    rules = Rules(variants=frozenset({"low-blows"}))
    game = Game(NAMES, rules, seed=8)
    pacing = InlinePacing()
    sequencer = Sequencer(bot_table(game, keep_views=False), pacing)
    sequencer.start()
    pacing.drain()
    assert game.over and sequencer.step is Step.GAME_OVER


# --- one place decides ----------------------------------------------------------------------------
SEQUENCE_DECISION = re.compile(r"\.phase (?:is not|is|not in|in) \(?Phase\.(?:FLIP|ROUND_OVER|GAME_OVER)")
MOVES_ON = re.compile(r"\.(?:flip|start_round)\(")
# Files that move a game on by what a record says came next, not by its phase.
REPLAYS = {"duckcover/saves/record.py", "duckcover/app/screens/replay.py"}


def test_one_file_decides_the_sequence_of_a_game_from_its_phase():
    """What comes after a flip, when a round ends, when the next deal comes: outside the engine,
    only the sequencer reads the phase to flip or deal (the app, the server, the arena, the
    learning environment and the guest's client are its hosts)."""
    root = Path(duckcover.__file__).parent
    deciding = []
    for path in sorted(root.rglob("*.py")):
        name = path.relative_to(root.parent).as_posix()
        text = path.read_text(encoding="utf-8")
        if not name.startswith("duckcover/engine/") and SEQUENCE_DECISION.search(text) and MOVES_ON.search(text):
            deciding.append(name)
    assert [name for name in deciding if name not in REPLAYS] == ["duckcover/players/sequence.py"]


def test_a_game_nobody_listens_to_builds_no_events(monkeypatch):
    """The arena's games have no listener: neither the sequence nor the table builds an event (one
    costs more than a cheap bot's decision), and the game is the one a listened game plays."""
    import duckcover.players.sequence as sequence_module
    import duckcover.players.table as table_module

    heard = []
    listened = Game(NAMES, Rules(), seed=4)
    sequencer = Sequencer(bot_table(listened, keep_views=False), pacing := InlinePacing())
    sequencer.listen(heard.append)
    sequencer.start()
    pacing.drain()
    assert {type(event) for event in heard} >= {Flipped, ChoiceOpened, Chosen, Revealed, BotFlips, TurnOver}

    def no_event(*args):
        raise AssertionError("an event was built with nobody listening")

    for module in (sequence_module, table_module):
        for name in ("Flipped", "ChoiceOpened", "Chosen", "Revealed", "BotFlips", "FlipAwaited", "TurnOver",
                     "RoundOver", "RoundStarted", "GameOver"):
            if hasattr(module, name):
                monkeypatch.setattr(module, name, no_event)
    alone = Game(NAMES, Rules(), seed=4)
    pacing = InlinePacing()
    Sequencer(bot_table(alone, keep_views=False), pacing).start()
    pacing.drain()
    assert alone.over and to_record(alone) == to_record(listened)
