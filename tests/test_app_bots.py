"""The app asks bots through the Referee, as the arena does: private views, every hook, visible
failures, a process of its own for a bot that did not come with duckcover, and a saved game's
bot label never runs code."""
from __future__ import annotations

import json
import textwrap

import pytest

from duckcover.app import AppOptions, SeatSpec, create_app
from autoplay import play_to_end, table_of
from duckcover.app.controller import TurnController
from duckcover.engine import Game
from duckcover.players.bot import Bot
from duckcover.players.safety import PassiveBot
from duckcover.players.sandbox import BotProcess
from duckcover.saves.record import loads, read_bot_key, replay
from duckcover.saves.storage import games_dir, new_game_path, save_unfinished
from duckcover_bots.greedy import GreedyBot


class Evil(Bot):
    name = "Evil"

    def choose(self, view):
        raise ValueError("boom")


class Listener(GreedyBot):
    """Counts the hooks it hears and spoils what it is given (its own copy only)."""

    heard: list = []

    def start_game(self, view):
        Listener.heard.append(("start_game", view.round_index, len(view.history)))

    def start_round(self, view):
        Listener.heard.append(("start_round", view.round_index, len(view.history)))

    def observe(self, view, turn):
        Listener.heard.append(("observe", view.round_index, len(view.history)))

    def choose(self, view):
        object.__setattr__(view.rules, "splashes", (0,) * 12)  # the game's rules must not change
        object.__setattr__(view.rules, "values", (0,) * 13)
        return super().choose(view)


def watch_options(tmp_path, seats, **kw):
    return AppOptions(seats=seats, seed=3, speed="instant", lang="en", data_dir=tmp_path, stats=False, watch=True, **kw)


async def watch_to_end(app):
    notices = []
    original = app.notify

    def notify(message, **kw):
        notices.append(message)
        original(message, **kw)

    app.notify = notify
    async with app.run_test(size=(120, 40)) as pilot:
        await play_to_end(pilot)
        log = list(table_of(app).log_lines)
    app.flush_saves()
    return notices, log


def finished_record(tmp_path):
    (path,) = (games_dir(tmp_path) / "finished").glob("*.json")
    return loads(path.read_text())


def app_with_bot(tmp_path, name, bot):
    """A watched game whose seat 0 is played by `bot` (an instance, in the app's process)."""
    app = create_app(watch_options(tmp_path, [SeatSpec(name, "medium"), SeatSpec("Ann", "medium")]))
    original = app.make_controller

    def with_bot(game, seats, key=None, earlier_fallbacks=None):
        controller = original(game, seats, key, earlier_fallbacks)
        controller.bots[0] = bot
        return controller

    app.make_controller = with_bot
    return app


async def test_a_failing_bot_is_named_once_its_fallbacks_are_marked_and_recorded(tmp_path):
    notices, log = await watch_to_end(app_with_bot(tmp_path, "Evil", Evil()))
    failed = [n for n in notices if "failed" in n]
    assert failed == ["Evil failed (raised ValueError: boom); a fallback move was played."]
    marks = [line for line in log if "Evil's move was a fallback" in line]
    record = finished_record(tmp_path)
    fallback_turns = [turn for r in record["rounds"] for turn in r["turns"] if "fallbacks" in turn]
    assert marks and len(marks) == len(fallback_turns)
    assert all(turn["fallbacks"] == [0] for turn in fallback_turns)
    assert read_bot_key(record) is not None and replay(record).over


async def test_the_app_gives_bots_every_hook_and_a_private_view(tmp_path):
    Listener.heard = []
    app = app_with_bot(tmp_path, "Lis", Listener())
    await watch_to_end(app)
    game = app.controller.game
    heard = Listener.heard
    assert heard[0] == ("start_game", 0, 0)
    assert [h for h in heard if h[0] == "start_round"] == [("start_round", r, 0) for r in range(3)]
    turns = sum(len(log.turns) for log in game.rounds)
    assert len([h for h in heard if h[0] == "observe"]) == turns  # after every turn, the last one too
    record = finished_record(tmp_path)
    assert record["rules"]["splashes"] == list(game.rules.splashes) and any(game.rules.splashes)
    assert any(game.totals)


async def test_a_failing_bots_worker_is_said_in_a_notice_and_the_game_waits(tmp_path, monkeypatch):
    """The screen runs the flow's bot work in a Textual worker: its failure reaches the player."""
    from autoplay import settle
    from duckcover.common.i18n import t

    def broken(self, seats):
        raise RuntimeError("the referee itself broke")
    monkeypatch.setattr(TurnController, "decide_bots", broken)
    app = create_app(watch_options(tmp_path, [SeatSpec("A", "medium"), SeatSpec("B", "medium")]))
    notices = []
    original = app.notify
    app.notify = lambda message, **kw: (notices.append(message), original(message, **kw))[1]
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, lambda: t("notify.bot_failed") in notices)
        table = table_of(app)
        assert table.state == "waiting" and table.ctl.game.turn_number == 0 and not table._workers


@pytest.mark.keys  # bot processes: the slow tier
def test_missing_walls_around_a_bot_process_are_said_once(tmp_path, monkeypatch):
    """An older kernel (a parameter: Landlock ABI 3, no seccomp): one notice names what bots can
    do here, however many bot processes and games follow; a full kernel says nothing."""
    from duckcover.app import controller
    from duckcover.players.confine import Protections

    bot_file = tmp_path / "bots" / "mine.py"
    bot_file.parent.mkdir()
    bot_file.write_text("from duckcover.players.safety import PassiveBot as Mine\n")
    monkeypatch.setattr(controller, "_walls_told", False)
    notices = []
    for walls in (Protections.of("linux", 7, True, True), Protections.of("linux", 3, False, True),
                  Protections.of("linux", 3, False, True)):
        def loader(spec, seed, walls=walls):
            return BotProcess(f"{bot_file}:Mine", protections=walls)

        ctl = TurnController(Game(["A", "B"], seed=5), [SeatSpec("A", "x"), SeatSpec("B", "y")], loader=loader,
                             named_bots=("x", "y"))
        ctl.referee()
        notices += ctl.load_errors
        ctl.close()
    assert notices == ["Bots you did not write run in a process of their own, but this system lacks some of the "
                       "kernel's walls: they can use the network; they can signal or stop the game; they can start "
                       "processes that outlive the game; they can change the limits and priority of the game and your "
                       "other programs; they can reach your shared memory and keys."]


def test_the_controller_seeds_bots_from_its_key_not_from_the_game_seed():
    from duckcover.players.harness import constructor_seed

    game, key, seeds = Game(["A", "B"], seed=5), bytes(range(16)), []

    def loader(spec, seed):
        seeds.append(seed)
        return PassiveBot(seed=seed)

    ctl = TurnController(game, [SeatSpec("A", "medium"), SeatSpec("B", "medium")], loader=loader, key=key)
    assert seeds == []  # no bot is loaded before the first decision
    ctl.referee()
    assert seeds == [constructor_seed(key, 0), constructor_seed(key, 1)]
    assert not {5, 6} & set(seeds)  # not the game seed plus the seat, which gave the deal away
    assert ctl.record()["bot_key"] == key.hex()


MARKER_BOT = """\
from pathlib import Path
from duckcover.players.bot import Bot
Path({marker!r}).write_text("ran at import")
class Marker(Bot):
    def choose(self, view):
        Path({marker!r}).write_text("ran")
        moves = view.legal_moves()
        return moves[0] if moves else None
"""


def saved_game_naming(tmp_path, spec):
    game = Game(["You", "Marker"], seed=8)
    controller = TurnController(game, [SeatSpec("You", "medium"), SeatSpec("Marker", spec)])
    record = controller.record()
    record["players"][0]["bot"] = "medium"
    save_unfinished(record, new_game_path(tmp_path))
    return record


async def test_resume_never_runs_the_bot_file_a_record_names(tmp_path):
    marker = tmp_path / "marker.txt"
    bot_file = tmp_path / "evil.py"
    bot_file.write_text(MARKER_BOT.format(marker=str(marker)))
    saved_game_naming(tmp_path, f"{bot_file}:Marker")
    app = create_app(AppOptions(resume=True, speed="instant", lang="en", data_dir=tmp_path, stats=False, watch=True))
    notices, _ = await watch_to_end(app)
    assert app.controller.game.over
    assert not marker.exists()  # the file was never imported, let alone run
    assert any("not installed; a medium bot takes the seat" in n for n in notices)
    assert isinstance(app.controller.bots[1], GreedyBot)


PRINTING_BOT = """\
from duckcover.players.bot import Bot
class Marker(Bot):
    def choose(self, view):
        print("ran")  # a bot process may write no file (duckcover.players.confine): it says so instead
        moves = view.legal_moves()
        return moves[0] if moves else None
"""


async def test_a_bot_file_named_on_the_command_line_plays_in_its_own_process(tmp_path):
    bot_file = tmp_path / "mine.py"
    bot_file.write_text(PRINTING_BOT)
    spec = f"{bot_file}:Marker"
    app = create_app(watch_options(tmp_path, [SeatSpec("Me", spec), SeatSpec("Ann", "medium")], named_bots=(spec,)))
    notices, _ = await watch_to_end(app)
    assert isinstance(app.controller.bots[0], BotProcess)
    assert "Me printed: ran" in notices  # it played ...
    record = finished_record(tmp_path)
    assert not [turn for r in record["rounds"] for turn in r["turns"] if "fallbacks" in turn]  # ... never failing
    assert app.controller.bots[0].restarts == 0  # its process lived through the game
    assert not [n for n in notices if "failed" in n]


async def test_resume_keeps_the_key_and_the_fallbacks_of_the_record(tmp_path):
    game = Game(["A", "B"], seed=8)
    controller = TurnController(game, [SeatSpec("A", "medium"), SeatSpec("B", "medium")], bots=[PassiveBot(), Evil()])
    while game.turn_number < 5:
        controller.flip()
        while controller.game.phase.value in ("move", "gift", "place"):
            controller.open_choice()
            controller.chosen.update(controller.decide_bots(controller.bot_seats()))
            controller.resolve()
    record = controller.record()
    assert any("fallbacks" in turn for turn in record["rounds"][0]["turns"])
    save_unfinished(json.loads(json.dumps(record)), new_game_path(tmp_path))
    app = create_app(AppOptions(resume=True, speed="instant", lang="en", data_dir=tmp_path, stats=False, watch=True))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        resumed = app.controller.record()
    assert resumed["bot_key"] == record["bot_key"]
    for before, after in zip(record["rounds"][0]["turns"], resumed["rounds"][0]["turns"]):
        assert before.get("fallbacks") == after.get("fallbacks")


async def test_without_a_seed_the_app_draws_128_bits_and_a_separate_key(tmp_path):
    from duckcover.players.harness import bot_key_for

    options = AppOptions(seats=[SeatSpec("A", "medium"), SeatSpec("B", "medium")], speed="instant", lang="en",
                         data_dir=tmp_path, stats=False, watch=True)
    app = create_app(options)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        game, record = app.controller.game, app.controller.record()
    assert game.seed.bit_length() > 64 and record["seed"] == game.seed
    assert read_bot_key(record) != bot_key_for(game.seed)  # a secret of its own, kept in the record
