"""The table's flow (duckcover.app.flow.TableFlow) with no app running: a fake pace runs its
timers and bot workers from a queue, and the tests read the events the flow tells its screen.
(The flow imports no Textual: pyproject.toml's flow-without-textual contract.)"""
from __future__ import annotations

from collections import deque

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from duckcover.app.controller import TurnController
from duckcover.app.flow import (BotFlips, BotsFailed, ChoiceAsked, ChoiceOpened, Flipped, FlipAwaited, GameOver, GiftsRevealed,
                                HandOver, Notices, RoundOver, RoundStarted, TableFlow, TurnRevealed, TurnState,
                                Waiting)
from duckcover.app.options import SeatSpec
from duckcover.app.remote import RemoteTable
from duckcover.engine import CHOOSING, Game, Phase, Rules, RulesError
from duckcover.engine.rules import APP_VARIANTS
from duckcover.net import protocol as p
from duckcover.players.bot import Bot
from duckcover.players.harness import play_game
from duckcover.saves.record import replay, to_record
from duckcover_bots.greedy import GreedyBot
from duckcover_bots.random_bot import RandomBot
from helpers import rules as with_variants


class FakeClock:
    """A paused or running interval (the remote table's countdown clock)."""

    def __init__(self, running: bool) -> None:
        self.running = running

    def pause(self) -> None:
        self.running = False

    def resume(self) -> None:
        self.running = True


class FakePace:
    """The flow's host without Textual: every timer, worker and after-refresh call waits in a
    queue until `step` or `run` calls it (never at once, as with the screen's)."""

    def __init__(self) -> None:
        self.queue: deque = deque()
        self.delays: list[float] = []
        self.intervals: list = []

    def later(self, callback, delay: float) -> None:
        self.delays.append(delay)
        self.queue.append(callback)

    def in_worker(self, work, done, failed) -> None:
        def worker() -> None:
            try:
                result = work()
            except Exception:  # noqa: BLE001 - as a Textual worker: the failure is reported
                failed()
                return
            done(result)
        self.queue.append(worker)

    def live(self) -> bool:
        return True

    def set_interval(self, interval: float, callback, *, pause: bool = False) -> "FakeClock":
        self.intervals.append((interval, callback))
        return FakeClock(running=not pause)

    def call_after_refresh(self, callback) -> None:
        self.queue.append(callback)

    def step(self) -> None:
        self.queue.popleft()()

    def run(self, limit: int = 20_000) -> None:
        for _ in range(limit):
            if not self.queue:
                return
            self.step()
        raise AssertionError("the flow never came to rest")


def flow_with_events(ctl: TurnController, closes_scorepad: bool = True, **options) -> tuple[TableFlow, FakePace, list]:
    """A flow whose screen stand-in closes every hand-over (and scorepad) as it opens."""
    pace = FakePace()
    flow = TableFlow(ctl, pace, speed=options.pop("speed", "normal"), **options)
    events: list = []
    flow.listen(events.append)

    def react(event) -> None:
        if isinstance(event, RoundOver) and closes_scorepad:
            pace.queue.append(flow.after_round_end)
        elif isinstance(event, HandOver):
            pace.queue.append(lambda: flow.handed_over(event.seat, event.number))
    flow.listen(react)
    return flow, pace, events


@pytest.mark.parametrize("rules, names", [(Rules(), ["Ann", "Ben"]),
                                          (with_variants("low-blows"), ["Ann", "Ben", "Cy"])])
def test_flow_a_seeded_bots_only_game_ends_in_game_over_with_the_engines_record(rules, names):
    kinds = [GreedyBot, RandomBot, GreedyBot][: len(names)]
    engine_game = play_game([kind() for kind in kinds], rules, seed=11, names=names)
    game = Game(names, rules, seed=11)
    ctl = TurnController(game, [SeatSpec(name, "bot") for name in names], bots=[kind() for kind in kinds])
    flow, pace, events = flow_with_events(ctl)
    flow.advance()
    pace.run()
    assert game.over and flow.state is TurnState.GAME_OVER and isinstance(events[-1], GameOver)
    assert to_record(game) == to_record(engine_game)
    kinds_told = [type(event) for event in events]
    assert kinds_told.count(GameOver) == 1
    assert kinds_told.count(RoundOver) == rules.rounds() == kinds_told.count(RoundStarted) + 1
    assert kinds_told.count(TurnRevealed) == sum(len(entry["turns"]) for entry in to_record(game)["rounds"])
    assert not any(isinstance(event, (FlipAwaited, ChoiceAsked)) for event in events)  # nobody plays here
    if "low-blows" in rules.variants:
        assert GiftsRevealed in kinds_told
    # every bot Captain's flip waits its pause first, every reveal stays for its own
    assert {0.8, 1.0} == set(pace.delays)
    assert kinds_told.count(BotFlips) == pace.delays.count(0.8)


def test_flow_a_human_captain_is_asked_to_flip_and_a_flip_typed_ahead_counts_at_once():
    game = Game(["Ann", "Ben"], Rules(), seed=4)
    ctl = TurnController(game, [SeatSpec("Ann"), SeatSpec("Ben", "greedy")], bots=[None, GreedyBot()])
    flow, pace, events = flow_with_events(ctl)
    flow.advance()
    typed_ahead = 0
    for _ in range(500):  # Ann plays first moves; during each pause she types her next flip
        if flow.state is TurnState.AWAIT_FLIP:
            assert events[-1] == FlipAwaited(game.captain) and ctl.is_human(game.captain)
            told = len(events)
            flow.press_flip()
            assert isinstance(events[told], Flipped)
        elif flow.state is TurnState.CHOOSING and events[-1] == ChoiceAsked(0):
            flow.submit(0, ctl.views[0].legal_moves()[0])
        elif flow.state is TurnState.PAUSE and flow.flip_is_next_here() and typed_ahead < 3:
            flow.flip_ahead = True  # the screen's Space during the reveal
            typed_ahead += 1
            told = len(events)
            pace.run()  # the pause ends: the flip is played at once, nobody presses again
            assert [type(e) for e in events[told:told + 2]] == [FlipAwaited, Flipped]
        elif flow.state is TurnState.PAUSE and game.phase is Phase.ROUND_OVER:
            flow.flip_ahead = True
            pace.step()  # the scorepad comes first: a flip typed before it is not carried over
            assert flow.state is TurnState.ROUND_OVER and not flow.flip_ahead
            break
        else:
            pace.step()
    assert typed_ahead == 3 and game.round_index == 0 and isinstance(events[-1], RoundOver)


def test_flow_a_human_seat_is_asked_from_the_views_fixed_at_the_opening():
    game = Game(["Ann", "Ben", "Cy"], Rules(), seed=7)
    ctl = TurnController(game, [SeatSpec("Ann"), SeatSpec("Ben", "greedy"), SeatSpec("Cy", "greedy")],
                         bots=[None, GreedyBot(), GreedyBot()])
    flow, pace, events = flow_with_events(ctl)
    flow.advance()
    for _ in range(200):  # flip (or wait for the bots' flips) until Ann is asked
        if ChoiceAsked(0) in events:
            break
        flow.press_flip()
        pace.step()
    assert flow.state is TurnState.CHOOSING and events[-1] == ChoiceAsked(0)
    opened = next(e for e in reversed(events) if isinstance(e, ChoiceOpened))
    view, grids = ctl.views[0], [dict(game.grid(seat)) for seat in range(game.n)]
    pace.run()  # the bots answer meanwhile: nothing is revealed, nothing applies
    assert flow.state is TurnState.CHOOSING and ctl.views[0] is view and opened.number == flow.number
    assert [dict(game.grid(seat)) for seat in range(game.n)] == grids
    assert not any(isinstance(e, TurnRevealed) for e in events[events.index(opened):])
    turns = game.turn_number
    flow.submit(0, view.legal_moves()[0])
    assert isinstance(events[-2], Waiting) and isinstance(events[-1], TurnRevealed)
    assert game.turn_number == turns + 1 and flow.state is TurnState.PAUSE


def test_flow_pass_and_play_hands_over_before_each_humans_choice():
    game = Game(["Ann", "Ben"], Rules(), seed=2)
    ctl = TurnController(game, [SeatSpec("Ann"), SeatSpec("Ben")])
    flow, pace, events = flow_with_events(ctl, handover=True)
    flow.advance()
    flow.press_flip()
    while game.phase not in CHOOSING:  # a flip nobody could play: the next one
        pace.run()
        flow.press_flip()
    first = next(e for e in events if isinstance(e, HandOver))
    assert flow.state is TurnState.HANDOVER and ChoiceAsked(first.seat) not in events
    flow.handed_over(first.seat, first.number - 1)  # a stale hand-over screen: nothing
    assert flow.state is TurnState.HANDOVER
    pace.run()
    assert events[-1] == ChoiceAsked(first.seat)
    flow.submit(first.seat, ctl.views[first.seat].legal_moves()[0])
    assert isinstance(events[-1], HandOver) and events[-1].seat != first.seat


def test_flow_a_failing_bots_worker_is_told_after_its_notices_and_an_answer_for_an_old_choice_is_dropped():
    game = Game(["Ann", "Ben"], Rules(), seed=3)
    ctl = TurnController(game, [SeatSpec("Ann", "bot"), SeatSpec("Ben", "bot")], bots=[GreedyBot(), GreedyBot()])
    answers = ctl.decide_bots

    def broken(seats):
        ctl.load_errors.append("a plugin could not load")
        raise RuntimeError("the referee itself broke")
    ctl.decide_bots = broken
    flow, pace, events = flow_with_events(ctl, speed="instant")
    flow.advance()
    pace.run()
    assert events[-2:] == [Notices(["a plugin could not load"]), BotsFailed()]
    assert flow.state is TurnState.WAITING and not ctl.load_errors and game.turn_number == 0
    old = flow.number
    moves = answers(ctl.bot_seats())
    flow.number += 1  # as if another choice had opened since
    flow.bots_answered(old, moves)
    assert flow.state is TurnState.WAITING and game.turn_number == 0  # nothing of it was taken
    flow.number -= 1
    flow.bots_answered(old, moves)
    assert isinstance(events[-1], TurnRevealed) and game.turn_number == 1


class FirstLegal(Bot):
    """What the property's humans play (through the flow's keys), as a bot for the engine's game."""

    name = "first-legal"

    def choose(self, view):
        moves = view.legal_moves()
        return moves[0] if moves else None


@settings(max_examples=30)
@given(seed=st.integers(0, 2**32), humans=st.lists(st.booleans(), min_size=2, max_size=5),
       variants=st.sets(st.sampled_from(APP_VARIANTS), max_size=2), handover=st.booleans())
def test_flow_property_any_table_plays_to_game_over_as_the_engine_plays_it(seed, humans, variants, handover):
    """Whoever sits where: every step is a legal transition (go() raises otherwise), a human is
    asked only for a seat that is human, from the view fixed when the choice opened, and the
    game the flow plays is the engine's own game among the same players."""
    names = [f"P{seat}" for seat in range(len(humans))]
    try:
        rules = with_variants(*sorted(variants))
        rules.check_players(len(names))
    except RulesError:
        return  # a variant that does not seat this many
    players = [FirstLegal() if human else GreedyBot() for human in humans]
    engine_game = play_game(players, rules, seed=seed, names=names)
    game = Game(names, rules, seed=seed)
    ctl = TurnController(game, [SeatSpec(name, None if human else "bot") for name, human in zip(names, humans)],
                         bots=[None if human else GreedyBot() for human in humans])
    flow, pace, events = flow_with_events(ctl, handover=handover)
    opened: dict = {}
    flow.listen(lambda event: opened.update(ctl.views) if isinstance(event, ChoiceOpened) else None)
    flow.advance()
    for _ in range(20_000):
        if flow.state is TurnState.GAME_OVER:
            break
        if flow.state is TurnState.AWAIT_FLIP:
            flow.press_flip()
        elif flow.state is TurnState.CHOOSING and isinstance(events[-1], ChoiceAsked):
            seat = events[-1].seat
            assert humans[seat] and ctl.views[seat] is opened[seat]
            flow.submit(seat, FirstLegal().choose(ctl.views[seat]))
        else:
            pace.step()
    assert flow.state is TurnState.GAME_OVER and game.over
    assert to_record(game) == to_record(engine_game)
    assert any(isinstance(event, HandOver) for event in events) == (handover and sum(humans) > 1)


# --- the remote flow: the server's messages go through the same flow ---------------------------
def remote_flow(my_seat: int | None, closes_scorepad: bool = True):
    server_game = Game(["Ann", "Ben"], Rules(), seed=5)
    mirror = replay(to_record(server_game), unseen=True)
    sent: list = []
    table = RemoteTable(mirror, [SeatSpec("Ann"), SeatSpec("Ben")], my_seat, sent.append)
    flow, pace, events = flow_with_events(table, watch=my_seat is None, closes_scorepad=closes_scorepad)
    table.attach(flow)
    flow.advance()
    pace.run()  # the first frame: the table is up (a watcher's own flip timer does nothing)
    return server_game, table, flow, pace, events, sent


def server_turn(game: Game) -> list[p.Message]:
    """The server plays one turn (every seat its first legal move): what it broadcasts."""
    game.flip()
    said: list[p.Message] = [p.Flipped(codes=tuple(game.flips))]
    if game.phase in CHOOSING:  # (a turn that resolved at the flip has no reveal)
        moves = [game.view(seat).legal_moves()[0] if seat in game.awaiting else None for seat in range(game.n)]
        game.play(moves)
        said.append(p.Reveal(moves=tuple(p.move_to_json(m) for m in moves)))
    return said


def server_messages(game: Game, until_round_end: bool = False) -> list[p.Message]:
    """The server plays on to the game's end (or the round's): every flip, reveal and deal."""
    said: list[p.Message] = []
    while not game.over:
        if game.phase is Phase.ROUND_OVER:
            if until_round_end:
                break
            game.start_round()
            said.append(p.Round(round=to_record(game)["rounds"][-1]))
        else:
            said += server_turn(game)
    return said


def turns_of(game: Game) -> list:
    return [entry["turns"] for entry in to_record(game)["rounds"]]


def test_remote_flow_applies_a_reveal_and_the_next_flip_only_after_the_pause():
    server_game, table, flow, pace, events, sent = remote_flow(None)
    first = server_turn(server_game)
    assert [m.TYPE for m in first] == ["flip", "reveal"]  # seed 5: the first flip is a choice
    for message in first:
        table.receive(message)
    assert flow.state is TurnState.PAUSE and table.game.turn_number == 1
    for message in server_turn(server_game):  # the next turn comes at once: it waits in the inbox
        table.receive(message)
    assert table.game.turn_number == 1 and table.game.phase is Phase.FLIP and table.inbox
    assert sum(isinstance(e, Flipped) for e in events) == 1
    pace.queue.popleft()()  # the reveal's pause is over
    assert table.game.turn_number == 2 and not table.inbox and flow.state is TurnState.PAUSE
    assert turns_of(table.game) == turns_of(server_game) and not sent


def test_remote_flow_the_next_deal_waits_until_the_scorepad_is_closed():
    server_game, table, flow, pace, events, sent = remote_flow(None, closes_scorepad=False)
    for message in server_messages(server_game, until_round_end=True):
        table.receive(message)
    pace.run()  # every pause: the round's last reveal, then the scorepad
    assert flow.state is TurnState.ROUND_OVER and isinstance(events[-1], RoundOver)
    server_game.start_round()
    table.receive(p.Round(round=to_record(server_game)["rounds"][-1]))
    for message in server_turn(server_game):
        table.receive(message)
    assert table.game.round_index == 0 and len(table.inbox) == 1 + 2  # the deal and the next turn wait
    flow.after_round_end()  # the scorepad is closed
    assert table.game.round_index == 1 and RoundStarted(2) in events and not sent
    pace.run()
    assert turns_of(table.game) == turns_of(server_game)


def test_remote_flow_a_watcher_sent_a_whole_game_at_once_plays_it_turn_by_turn_to_game_over():
    server_game, table, flow, pace, events, sent = remote_flow(None)
    for message in server_messages(server_game):
        table.receive(message)
    assert table.game.turn_number == 1 and flow.state is TurnState.PAUSE  # the rest waits its turn
    pace.run()
    assert flow.state is TurnState.GAME_OVER and table.game.over and isinstance(events[-1], GameOver)
    assert turns_of(table.game) == turns_of(server_game) and not table.inbox and not sent
    assert sum(isinstance(e, TurnRevealed) for e in events) == sum(map(len, turns_of(server_game)))


def test_remote_flow_sends_this_seats_flip_and_asks_sync_when_the_mirror_loses_step():
    captain = Game(["Ann", "Ben"], Rules(), seed=5).captain
    server_game, table, flow, pace, events, sent = remote_flow(my_seat=captain)
    assert flow.state is TurnState.AWAIT_FLIP
    flow.press_flip()
    assert sent == [p.Flip()] and table.game.turn_number == 0  # the server says what was flipped
    flow.press_flip()
    assert sent == [p.Flip()]  # once
    table.receive(p.Flipped(codes=(999,)))  # no such card: the mirror cannot follow
    assert sent[-1] == p.Sync() and not table.inbox
