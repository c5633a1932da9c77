"""Whole games played through the app by keys: a human seat and seeded bots, speed instant."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from duckcover.app import AppOptions, SeatSpec, create_app, quick_seats
from autoplay import play_to_end, settle, step, table_of
from duckcover.app.screens.core import GameOverScreen, winner_text
from duckcover.engine import MAX, REPEAT, Rules
from duckcover.engine.game import START_CELLS, Phase
from duckcover.saves.record import loads, replay
from duckcover.saves.storage import games_dir, unfinished_paths

HUMAN = "Connie"


def duck_outside_once():
    """Take the cursor's first offer, except: duck outside the starting 4x3 the first time it is legal."""
    done = []

    def strategy(table, marks, cursor):
        outside = sorted(c for c, kind in marks.items() if kind == "duck" and c not in START_CELLS)
        if outside and not done and table.stage == "dest":
            done.append(outside[0])
            return outside[0]
        return cursor

    return strategy


def options(tmp_path, seed, bots=2, **kw):
    return AppOptions(seats=quick_seats(bots, HUMAN), seed=seed, speed="instant", lang="en",
                      data_dir=tmp_path, stats=False, **kw)


async def test_a_whole_game_by_keys_with_quack_max_repeat_and_an_outside_duck(tmp_path):
    app = create_app(options(tmp_path, seed=74))
    async with app.run_test(size=(120, 40)) as pilot:
        actions = await play_to_end(pilot, duck_outside_once())
        game = app.controller.game
        log = "\n".join(table_of(app).log_lines)
        assert isinstance(app.screen, GameOverScreen)
        assert game.phase is Phase.GAME_OVER and len(game.results) == 3
        assert actions.count("round-end") == 3  # a scorepad after every round
        turns = [turn for log_ in game.rounds for turn in log_.turns]
        # The human quacked (a number called, their card covered) and the log says so.
        assert any(t.call.kind == "move" and t.moves[0] is None for t in turns)
        assert f"{HUMAN}: Quack!" in log
        # A Max and a Repeat were flipped and the human moved on each, with the explanation shown.
        assert any(MAX in t.flips and t.moves[0] is not None for t in turns)
        assert any(REPEAT in t.flips and t.call.kind == "move" and t.moves[0] is not None for t in turns)
        assert "Max: everyone moves their visible card with the highest number" in log
        assert "Repeat: the previous call again" in log
        # The human ducked outside the starting grid.
        assert f"{HUMAN} ducked" in log and "outside the starting grid" in log
        assert any(t.moves[0] is not None and t.moves[0].to not in START_CELLS for t in turns)
        # Seed 74 ends in a tie on total decided by the fewest visible cards: the screen says why.
        outcome = game.outcome()
        assert outcome.decided_by == "fewest-cards"
        assert "tie-break" in winner_text(app.controller)
    app.flush_saves()
    # The finished game is archived as a record that replays to the same result.
    finished = list((games_dir(tmp_path) / "finished").glob("*.json"))
    assert len(finished) == 1 and not unfinished_paths(tmp_path)
    record = loads(finished[0].read_text())
    assert record["players"][0] == {"name": HUMAN} and record["players"][1]["bot"] == "medium"
    assert replay(record).totals == game.totals


def state_of(game):
    return {
        "round": game.round_index,
        "turn": game.turn_number,
        "totals": game.totals,
        "captain": game.captain,
        "grids": [dict(game.grid(seat)) for seat in range(game.n)],
        "discard": game.discard,
        "pile": game.pile,
        "draw": game.draw_size,
    }


async def test_a_killed_game_resumes_identically(tmp_path):
    seed = 1
    # Resuming, not the length of a game: the cooperative variant's two rounds (the kill is in
    # the first, so the resumed game still crosses a round end and a new deal).
    rules = Rules(variants=frozenset({"cooperative"}))
    # The uninterrupted game, for reference (at 80x24: the size changes no choice the keys make).
    straight = create_app(options(tmp_path / "straight", seed, rules=rules))
    async with straight.run_test(size=(80, 24)) as pilot:
        await play_to_end(pilot)
        reference = straight.controller.record()
    # The same game, killed mid-round while the human is choosing (bots have already decided).
    first = create_app(options(tmp_path / "killed", seed, rules=rules))
    async with first.run_test(size=(120, 40)) as pilot:
        for _ in range(9):
            await step(pilot)
        while table_of(first).chooser is None:
            await step(pilot)
        before = state_of(first.controller.game)
        flips, draw = first.controller.game.flips, first.controller.game.draw_size
        first.flush_saves()
        # No quit, no goodbye: the process would just die here.
    saved = json.loads(unfinished_paths(tmp_path / "killed")[0].read_text())
    assert saved["seed"] == seed and "bot" not in saved["players"][0]
    resumed = create_app(AppOptions(resume=True, speed="instant", lang="en", data_dir=tmp_path / "killed", stats=False))
    async with resumed.run_test(size=(120, 40)) as pilot:
        game = resumed.controller.game
        assert [s.human for s in resumed.controller.seats] == [True, False, False]
        # Same grids, same turn, same totals; the flip in progress was not saved, so the deck
        # still holds it ...
        assert {**state_of(game), "draw": game.draw_size - 1} == before
        lines = table_of(resumed).log_lines
        at = next(i for i, line in enumerate(lines) if line.startswith("Game resumed"))
        assert lines[at].startswith(f"Game resumed: round 1, after flip {game.turn_number}")
        # The log first retells the game so far: the deal, then every flip and what each seat did.
        assert lines[0] == "Round 1 begins."  # in the words of live play (test_app_history_words.py)
        assert sum(line.startswith("Round 1, flip ") for line in lines[:at]) == game.turn_number
        log = table_of(resumed).query_one("#log")  # ... and shows its end, where play goes on
        assert await settle(pilot, lambda: 0 < log.top and log.at_end)
        action = await step(pilot)  # ... and the Captain (the human, round 1) flips the same card again
        assert action == "flip" and game.flips == flips and game.draw_size == draw
        await play_to_end(pilot)
        assert resumed.controller.record()["rounds"] == reference["rounds"]
        assert len(reference["rounds"]) == 2 and game.totals == tuple(replay(reference).totals)


async def test_several_humans_choose_in_turn_and_nothing_applies_before_the_reveal(tmp_path):
    seats = [SeatSpec("Ann"), SeatSpec("Bob"), SeatSpec("Jackson", "medium")]
    # Without the hand-over screens (test_app_passplay.py plays with them).
    app = create_app(AppOptions(seats=seats, seed=2, speed="instant", lang="en", data_dir=tmp_path, stats=False,
                                handover=False))
    async with app.run_test(size=(120, 40)) as pilot:
        game = app.controller.game
        table = table_of(app)
        for _ in range(40):  # until a call both humans must answer
            await step(pilot)
            if table.chooser == 0 and 1 in app.controller.views:
                break
        assert table.chooser == 0
        grids = [dict(game.grid(seat)) for seat in range(3)]
        await step(pilot)  # Ann chooses ...
        assert table.chooser == 1  # ... then Bob, from his own view
        assert [dict(game.grid(seat)) for seat in range(3)] == grids  # nothing revealed yet
        assert 0 in app.controller.chosen
        turns = game.turn_number
        await step(pilot)  # Bob chooses: all moves are revealed together (once the bot has chosen too)
        assert await settle(pilot, lambda: game.turn_number == turns + 1 or bool(game.results))
        assert game.turn_number == turns + 1
        lines = table.log_lines[-3:]
        assert any(line.strip().startswith("Ann") for line in lines)
        assert any(line.strip().startswith("Bob") for line in lines)


@pytest.mark.parametrize(
    ("variants", "max_by", "seed", "stage"),
    [
        ({"low-blows"}, "number", 3, "gift"),  # give one of the two lowest ducks, then place a gift
        ({"two-flips"}, "number", 3, "pick"),  # pick which of the two called cards to move
        (set(), "splashes", 5, "pick"),  # Max by splashes with a tie: pick which card
    ],
)
async def test_choices_under_the_variants_are_made_by_keys(tmp_path, variants, max_by, seed, stage):
    # To Game over, in the two rounds of the cooperative variant (the choices, not the length).
    rules = Rules(max_by=max_by, variants=frozenset({*variants, "cooperative"}))
    app = create_app(options(tmp_path, seed=seed, rules=rules))
    async with app.run_test(size=(80, 24)) as pilot:
        actions = await play_to_end(pilot)
        assert f"choose-{stage}" in actions
        if "low-blows" in variants:
            assert "choose-place" in actions
            assert any(t.gifts is not None for r in app.controller.game.rounds for t in r.turns)
        assert app.controller.game.over and actions.count("round-end") == 2


CHILD = """
import asyncio, json, pathlib, sys, time
from duckcover.app import AppOptions, create_app, quick_seats
sys.path.insert(0, sys.argv[2])  # the tests folder, for autoplay
from autoplay import step, table_of
async def main():
    app = create_app(AppOptions(seats=quick_seats(2, "Connie"), seed=1, speed="instant", lang="en",
                                data_dir=pathlib.Path(sys.argv[1]), stats=False))
    async with app.run_test(size=(120, 40)) as pilot:
        for _ in range(11):
            await step(pilot)
        while table_of(app).state != "await-flip":
            await step(pilot)
        game = app.controller.game
        grids = [sorted((list(c), [card.number for card in s]) for c, s in game.grid(p).items()) for p in range(game.n)]
        print(json.dumps({"turn": game.turn_number, "totals": game.totals, "grids": grids}), flush=True)
        time.sleep(60)  # the parent kills us here: no shutdown, no flush
asyncio.run(main())
"""


async def test_a_game_killed_with_sigkill_loses_nothing(tmp_path):
    import signal
    import subprocess
    import sys

    child = subprocess.Popen([sys.executable, "-c", CHILD, str(tmp_path), str(Path(__file__).parent)], stdout=subprocess.PIPE, text=True)
    try:
        seen = json.loads(child.stdout.readline())
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
    app = create_app(AppOptions(resume=True, speed="instant", lang="en", data_dir=tmp_path, stats=False))
    async with app.run_test(size=(120, 40)):
        game = app.controller.game
        grids = [sorted((list(c), [card.number for card in s]) for c, s in game.grid(p).items()) for p in range(game.n)]
        now = json.loads(json.dumps({"turn": game.turn_number, "totals": game.totals, "grids": grids}))
        assert now == seen  # same turn, same totals, every stack where it was
