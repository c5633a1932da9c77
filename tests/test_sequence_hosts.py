"""One game, three hosts: the arena's (players.harness.play_game, inline), the app's
(app.flow.TableFlow, timers and workers in any order) and the server's (net.server.Table, on an
asyncio loop) all run the one sequencer, with the same hooks and seeding for the bots, so the
same seat specs, variants and seed make the same record, byte for byte, whatever the pacing."""
from __future__ import annotations

import asyncio
import random
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from duckcover.app.controller import TurnController
from duckcover.app.flow import TableFlow
from duckcover.app.options import SeatSpec
from duckcover.engine import Game
from duckcover.engine.rules import APP_VARIANTS
from duckcover.players.events import RoundOver
from duckcover.players.harness import bot_key_for, constructor_seed, play_game
from duckcover.players.plugins import resolve_bot
from duckcover.players.safety import Referee
from duckcover.players.sequence import SPEEDS
from duckcover.net.server import TableServer
from duckcover.net.sessions import Seat
from duckcover.net.table_host import Table
from duckcover.saves.record import dumps, to_record
from helpers import seatable_rules

CHEAP = ("easy", "novice", "casual", "medium")  # the difficulties quick enough for many games


class ShuffledPace:
    """The app's pace without Textual: timers, bot workers and after-refresh calls wait in a
    pool and run in an order `rng` picks, as a loaded machine may finish them."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.pool: list = []

    def later(self, callback, delay: float) -> None:
        self.pool.append(callback)

    def in_worker(self, work, done, failed) -> None:
        self.pool.append(lambda: done(work()))

    def live(self) -> bool:
        return True

    def run(self, limit: int = 50_000) -> None:
        for _ in range(limit):
            if not self.pool:
                return
            self.pool.pop(self.rng.randrange(len(self.pool)))()
        raise AssertionError("the game never came to rest")


def bots_for(specs, key) -> list:
    return [resolve_bot(spec, seed=constructor_seed(key, seat)) for seat, spec in enumerate(specs)]


def arena_record(specs, rules, seed, names) -> str:
    key = bot_key_for(seed)
    bots = bots_for(specs, key)
    game = play_game(bots, rules, seed=seed, names=names, referee=Referee(bots, key=key))
    return dumps(to_record(game, bots=list(specs)))


def app_record(specs, rules, seed, names, speed, order: random.Random) -> str:
    game = Game(names, rules, seed)
    ctl = TurnController(game, [SeatSpec(name, spec) for name, spec in zip(names, specs)],
                         loader=lambda spec, bot_seed: resolve_bot(spec, seed=bot_seed), key=bot_key_for(seed))
    pace = ShuffledPace(order)
    flow = TableFlow(ctl, pace, speed=speed, watch=True)
    flow.listen(lambda event: pace.pool.append(flow.after_round_end) if type(event) is RoundOver else None)
    flow.advance()
    pace.run()
    assert game.over
    return dumps(to_record(game, bots=list(specs)))


def server_record(specs, rules, seed, names, pace: float) -> str:
    """A server's table of bots (watched: somebody is there, so it plays on), on an asyncio loop,
    its bots asked each on its own in the thread pool; nothing written to disk."""

    async def play() -> Table:
        with tempfile.TemporaryDirectory() as data:
            server = TableServer(Path(data), pace=pace, stats=False, speed="fast")
            over = asyncio.Event()
            server.save = lambda table: None
            server.finished = lambda table: over.set()
            seats = [Seat("bot", bot=spec, name=name) for spec, name in zip(specs, names)]
            table = Table("t1", "hosts", seats, rules, seed, server)
            table.anyone_here = lambda: True
            table.start_game()
            await asyncio.wait_for(over.wait(), 120)
            table.close()
            return table

    table = asyncio.run(play())
    return dumps(to_record(table.game, bots=list(specs)))


tables = st.tuples(
    st.lists(st.sampled_from(CHEAP), min_size=2, max_size=7),
    st.sets(st.sampled_from(APP_VARIANTS), max_size=2),
    st.integers(0, 2**32),
)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(table=tables, speed=st.sampled_from(SPEEDS), order=st.randoms(use_true_random=False),
       pace=st.sampled_from([0.0, 0.001]))
def test_hosts_the_same_seat_specs_variants_and_seed_make_the_same_record_in_every_host(table, speed, order, pace):
    specs, variants, seed = table
    names = [f"P{seat + 1}" for seat in range(len(specs))]
    rules = seatable_rules(variants, len(names))
    if rules is None:
        return  # a variant that does not seat this many
    arena = arena_record(specs, rules, seed, names)
    assert app_record(specs, rules, seed, names, speed, order) == arena
    assert server_record(specs, rules, seed, names, pace) == arena
