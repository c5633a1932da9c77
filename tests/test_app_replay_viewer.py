"""The replay viewer: stepping both ways, jumping between rounds, unfinished and hand-written
records, a referee's view of every stack, and `duckcover replay` choosing viewer or summary."""
from __future__ import annotations

import copy
import dataclasses
import json
import sys

import pytest
from textual.app import App
from textual.widgets import Static

from duckcover import cli
from duckcover.app.screens.replay import ReplayApp, ReplayScreen, build_timeline, move_lines
from duckcover.app.widgets.core import GridWidget
from duckcover.common import i18n
from duckcover.engine import MAX, Call, Rules, Turn
from duckcover.engine.grid import fmt_cell, sorted_stacks
from duckcover.players.harness import play_game
from duckcover.saves.record import RecordError, replay, to_record
from duckcover_bots.greedy import GreedyBot
from duckcover_bots.random_bot import RandomBot

SIZES = [(120, 40), (80, 24)]


@pytest.fixture(autouse=True)
def english():
    previous = i18n.language()
    i18n.set_language("en")
    yield
    i18n.set_language(previous)


def finished_record(seed: int = 3) -> dict:
    game = play_game([GreedyBot(), RandomBot()], seed=seed, names=["Connie", "Jackson"])
    return to_record(game, bots=["greedy", "random"])


def unfinished_record() -> dict:
    """Round 1 complete, round 2 stopped after four turns: a game in progress."""
    record = finished_record()
    record["rounds"] = record["rounds"][:2]
    record["rounds"][1]["turns"] = record["rounds"][1]["turns"][:4]
    return record


def hand_written(record: dict) -> dict:
    """The base format only: no seed, no deck, no reshuffles, no bot labels."""
    record = copy.deepcopy(record)
    record.pop("seed", None)
    record["players"] = [{"name": p["name"]} for p in record["players"]]
    for entry in record["rounds"]:
        entry.pop("deck", None)
        entry.pop("reshuffles", None)
    return record


def viewer(record: dict) -> ReplayApp:
    return ReplayApp(build_timeline(record), "game.json")


def text_of(screen: ReplayScreen) -> str:
    """Everything the viewer shows, as plain text (status, grids, turn, table, stacks)."""
    parts = [str(static.render()) for static in screen.query(Static)]
    parts += [str(grid.as_text()) for grid in screen.query(GridWidget)]
    return "\n".join(parts)


def status(screen: ReplayScreen) -> str:
    return str(screen.query_one("#replay-status", Static).render())


def turn_text(screen: ReplayScreen) -> str:
    return str(screen.query_one("#replay-turn", Static).render())


# --- the timeline ---------------------------------------------------------------------------------
def test_timeline_has_a_deal_and_every_turn_of_every_round():
    record = finished_record()
    timeline = build_timeline(record)
    turns = [len(entry["turns"]) for entry in record["rounds"]]
    assert len(timeline.steps) == sum(turns) + len(turns)
    starts = timeline.round_starts()
    assert [timeline.steps[i].round_index for i in starts] == [0, 1, 2]
    last = timeline.steps[-1]
    assert last.outcome is not None and last.totals == timeline.game.totals


def test_each_step_shows_the_table_as_it_was_after_that_turn():
    record = finished_record()
    timeline = build_timeline(record)
    game = timeline.game
    for index, log in enumerate(game.rounds):
        end = timeline.steps[timeline.round_starts()[index] + len(log.turns)]
        grids, discard, pile = game.table(index)
        assert [dict(g) for g in end.grids] == [dict(g) for g in grids]
        assert end.discard == discard and end.pile == pile
        assert end.outcome == log.outcome


def test_every_step_matches_the_record_cut_at_that_turn():
    """Snapshots share the engine's grids: none may change after it was taken."""
    record = finished_record()
    timeline = build_timeline(record)
    for step in timeline.steps[::5]:
        cut = copy.deepcopy(record)
        cut["rounds"] = cut["rounds"][: step.round_index + 1]
        cut["rounds"][-1]["turns"] = cut["rounds"][-1]["turns"][: step.turn_no]
        grids, discard, pile = replay(cut).table(step.round_index)
        assert [dict(g) for g in step.grids] == [dict(g) for g in grids], (step.round_index, step.turn_no)
        assert (step.discard, step.pile) == (discard, pile)


def test_moves_are_put_into_words_cover_duck_and_quack():
    timeline = build_timeline(finished_record())
    words = [line for step in timeline.steps for line in move_lines(timeline, step)]
    assert any(" covered " in line for line in words)
    assert any(" ducked " in line for line in words)
    assert any(line.endswith(": Quack!") for line in words)


@pytest.mark.parametrize("variant", ["low-blows", "two-flips", "madness"])
def test_variant_records_step_to_the_same_table(variant):
    rules = Rules(variants=frozenset([variant]))
    game = play_game([GreedyBot(), RandomBot(), GreedyBot()], rules=rules, seed=7, names=["Ann", "Bob", "Cid"])
    timeline = build_timeline(to_record(game))
    for index, log in enumerate(game.rounds):
        end = timeline.steps[timeline.round_starts()[index] + len(log.turns)]
        assert [dict(g) for g in end.grids] == [dict(g) for g in game.table(index)[0]]
    words = [line for step in timeline.steps for line in move_lines(timeline, step)]
    if variant == "low-blows":
        assert any(" gave " in line for line in words) and any(" placed " in line for line in words)
    if variant == "madness":
        assert not any("Quack" in line for line in words)
        assert any(line.startswith("Ann: Moo!") for line in words)


def test_nobody_quacks_on_max():
    """Under Constraints a player showing only 1-3 does nothing on a Max: no Quack."""
    timeline = build_timeline(finished_record())
    step = timeline.steps[1]
    max_turn = Turn((MAX,), Call("move", (MAX,)), (None, None))
    number_turn = Turn((5,), Call("move", (5,)), (None, None), discarded=True)
    assert move_lines(timeline, dataclasses.replace(step, turn=max_turn)) == [
        "Connie: nothing to move", "Jackson: nothing to move"]
    assert move_lines(timeline, dataclasses.replace(step, turn=number_turn))[:2] == [
        "Connie: Quack!", "Jackson: Quack!"]


def test_a_broken_record_is_refused_before_any_viewer():
    record = finished_record()
    record["rounds"][0]["turns"][0]["moves"] = [None, None]
    with pytest.raises(RecordError):
        build_timeline(record)


# --- the screen -----------------------------------------------------------------------------------
@pytest.mark.parametrize("size", SIZES)
async def test_stepping_forward_and_back(size):
    record = finished_record()
    app = viewer(record)
    turns = len(record["rounds"][0]["turns"])
    async with app.run_test(size=size) as pilot:
        screen = app.screen
        assert isinstance(screen, ReplayScreen)
        start = text_of(screen)
        assert f"Round 1/3  Turn 0/{turns}" in status(screen)
        await pilot.press("right")
        assert f"Turn 1/{turns}" in status(screen)
        first = turn_text(screen)
        assert first.startswith("Turn 1: ") and "(Captain Connie)" in first.splitlines()[0]
        await pilot.press("l")
        assert f"Turn 2/{turns}" in status(screen)
        assert turn_text(screen).startswith("Turn 2:") and turn_text(screen) != first
        await pilot.press("left")
        assert turn_text(screen) == first
        await pilot.press("h")
        assert text_of(screen) == start
        await pilot.press("left")  # nothing before the deal
        assert text_of(screen) == start


async def test_the_turns_moves_are_listed_by_name():
    record = finished_record()
    timeline = build_timeline(record)
    app = ReplayApp(timeline)
    async with app.run_test(size=(80, 24)) as pilot:
        for _ in range(3):
            await pilot.press("right")
        shown = turn_text(app.screen)
        for line in move_lines(timeline, timeline.steps[3]):
            assert line in shown
        assert "Connie" in shown and "Jackson" in shown


@pytest.mark.parametrize("size", SIZES)
async def test_jumping_between_rounds(size):
    record = finished_record()
    app = viewer(record)
    async with app.run_test(size=size) as pilot:
        screen = app.screen
        await pilot.press("3")
        assert f"Round 3/3  Turn 0/{len(record['rounds'][2]['turns'])}" in status(screen)
        await pilot.press("pageup")
        assert "Round 2/3  Turn 0/" in status(screen)
        await pilot.press("pagedown", "pagedown")  # the last round has no next: stays
        assert "Round 3/3  Turn 0/" in status(screen)
        await pilot.press("1")
        assert "Round 1/3  Turn 0/" in status(screen)
        await pilot.press("end")
        assert f"Round 3/3  Turn {len(record['rounds'][2]['turns'])}/" in status(screen)
        assert "Winner:" in turn_text(screen)
        await pilot.press("home")
        assert "Round 1/3  Turn 0/" in status(screen)


async def test_stepping_across_a_round_end_shows_the_scores():
    record = finished_record()
    timeline = build_timeline(record)
    app = ReplayApp(timeline)
    end_of_first = timeline.round_starts()[1] - 1
    async with app.run_test(size=(80, 24)) as pilot:
        app.screen.index = end_of_first
        await pilot.pause()
        shown = turn_text(app.screen)
        assert "Round 1 over:" in shown and "Scores: Connie" in shown
        await pilot.press("right")
        assert "Round 2/3  Turn 0/" in status(app.screen)
        assert "Round 2: the cards are dealt" in turn_text(app.screen)


async def test_stacks_panel_lists_covered_cards_bottom_to_top():
    record = finished_record()
    timeline = build_timeline(record)
    app = ReplayApp(timeline)
    last = timeline.steps[timeline.round_starts()[1] - 1]
    async with app.run_test(size=(120, 40)) as pilot:
        app.screen.index = timeline.round_starts()[1] - 1
        await pilot.pause()
        shown = str(app.screen.query_one("#replay-stacks", Static).render())
        tall = [(cell, stack) for grid in last.grids for cell, stack in sorted_stacks(grid) if len(stack) > 1]
        assert tall, "a finished round has covered cards"
        for cell, stack in tall:
            assert f"{fmt_cell(cell)}: {' '.join(str(card.number) for card in stack)}" in shown
        await pilot.press("s")  # every stack, single cards too
        every = str(app.screen.query_one("#replay-stacks", Static).render())
        count = sum(len(grid) for grid in last.grids)
        assert sum(1 for line in every.splitlines() if line.startswith("  (")) == count


async def test_an_unfinished_game_replays_to_where_it_stopped():
    record = unfinished_record()
    app = viewer(record)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        assert "(game in progress)" in status(screen)
        await pilot.press("end")
        assert "Round 2/3  Turn 4/4" in status(screen)
        before = text_of(screen)
        await pilot.press("right", "pagedown", "3")  # nothing after the last recorded turn
        assert text_of(screen) == before
        await pilot.press("left")
        assert "Round 2/3  Turn 3/4" in status(screen)


async def test_a_hand_written_record_without_extensions():
    record = hand_written(unfinished_record())
    app = viewer(record)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("pagedown", "right")
        assert "Round 2/3  Turn 1/4" in status(app.screen)
        assert turn_text(app.screen).startswith("Turn 1:")


async def test_a_record_without_rounds_shows_a_message():
    record = finished_record()
    record["rounds"] = []
    app = viewer(record)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("right", "end")
        assert "no round yet" in turn_text(app.screen)


async def test_q_closes_the_standalone_viewer():
    app = viewer(finished_record())
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("q")
        await pilot.pause()
    assert app.return_code == 0


async def test_the_screen_can_be_pushed_onto_another_app_and_closed():
    timeline = build_timeline(finished_record())

    class Host(App):
        pass

    app = Host()
    async with app.run_test(size=(80, 24)) as pilot:
        app.push_screen(ReplayScreen(timeline))
        await pilot.pause()
        assert isinstance(app.screen, ReplayScreen)
        await pilot.press("escape")
        assert not isinstance(app.screen, ReplayScreen)
        assert app.is_running


# --- the command ----------------------------------------------------------------------------------
def write(tmp_path, record) -> str:
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    return str(path)


def test_replay_on_a_terminal_opens_the_viewer(tmp_path, monkeypatch):
    path = write(tmp_path, unfinished_record())
    opened = []
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True, raising=False)
    monkeypatch.setattr(sys.stdin, "isatty", lambda: True, raising=False)
    monkeypatch.setattr(ReplayApp, "run", lambda self: opened.append(self.timeline))
    assert cli.main(["replay", path]) == 0
    assert len(opened) == 1 and not opened[0].game.over


def test_replay_of_a_broken_record_fails_before_the_viewer(tmp_path, monkeypatch, capsys):
    record = finished_record()
    record["rounds"][0]["layouts"][0][0][0] = 99
    path = write(tmp_path, record)
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True, raising=False)
    monkeypatch.setattr(sys.stdin, "isatty", lambda: True, raising=False)
    monkeypatch.setattr(ReplayApp, "run", lambda self: pytest.fail("the viewer must not start"))
    assert cli.main(["replay", path]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"{path}: round 1, seat 0:")


def test_replay_summary_and_json_print_without_the_viewer(tmp_path, monkeypatch, capsys):
    path = write(tmp_path, finished_record())
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True, raising=False)
    monkeypatch.setattr(sys.stdin, "isatty", lambda: True, raising=False)
    monkeypatch.setattr(ReplayApp, "run", lambda self: pytest.fail("the viewer must not start"))
    assert cli.main(["replay", path, "--summary"]) == 0
    assert "Scorepad" in capsys.readouterr().out
    assert cli.main(["replay", path, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["winners"] is not None


# --- snapshots ------------------------------------------------------------------------------------
def test_snapshot_replay_viewer_mid_round(snap_compare):
    app = viewer(finished_record())
    assert snap_compare(app, terminal_size=(80, 24), press=["right"] * 6)


def test_snapshot_replay_viewer_round_end(snap_compare):
    timeline = build_timeline(finished_record())
    app = ReplayApp(timeline, "game.json")

    async def to_round_end(pilot):
        app.screen.index = timeline.round_starts()[1] - 1
        await pilot.pause()

    assert snap_compare(app, terminal_size=(80, 24), run_before=to_round_end)


async def test_a_grid_wider_than_its_panel_scrolls_sideways():
    timeline = build_timeline(finished_record())
    widest = max(range(len(timeline.steps)), key=lambda i: max(
        max(x for x, _ in grid) - min(x for x, _ in grid) for grid in timeline.steps[i].grids))
    app = ReplayApp(timeline)
    async with app.run_test(size=(80, 24)) as pilot:
        app.screen.index = widest
        await pilot.pause()
        panel = app.screen.query_one("#replay-grids")
        assert panel.virtual_size.width > panel.size.width, "this record has a grid too wide for 80 columns"
        await pilot.press("shift+right")
        assert panel.scroll_x > 0
        await pilot.press("shift+left")
        assert panel.scroll_x == 0
