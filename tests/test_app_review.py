"""The Review screen (issue 20): the figures of duckcover.players.review on screen, by Pilot and in
snapshots at 80x24 and 120x40; cancel; the cache; the ways in.

The golden game is judged once per module (`judged`, the review's own function with its store)
and its kept review is laid in a test's data directory where the test is about what the screen
shows, not about the judging (`keep`): the screen opens a kept review through the same `finish`
as one it has just judged. The judging itself, its progress, cancel and resume, its processes
and its cache are tested where they happen, against that one expected review: with the kept
review laid but for a few decisions (`keep_all_but`), which the screen judges (the path of a
whole game's review: the same worker, the same cache), and whose figures must be the expected ones.
The whole game's judging, decision by decision, is tests/test_review.py's golden review.
"""
from __future__ import annotations

import shutil
import threading
from pathlib import Path

import pytest
from textual.app import App
from textual.widgets import DataTable, ProgressBar, Sparkline, Static

from duckcover.app.screens import review as review_screen
from duckcover.app.screens.review import ReviewGrid, ReviewScreen
from duckcover.players import review as rv
from duckcover.saves.record import read_file, read_players, replay

RECORD = Path(__file__).resolve().parent / "golden" / "g4_greedy_seed1.json"
SIZES = [(80, 24), (120, 40)]


@pytest.fixture(autouse=True)
def quick_reviews(monkeypatch):
    monkeypatch.setattr(review_screen, "BUDGET", 8)  # a small search: the tests check the screen
    monkeypatch.setattr(review_screen, "JOBS", 1)


def golden_game():
    data = read_file(RECORD)
    _, bots = read_players(data)
    return replay(data), bots


@pytest.fixture(scope="module")
def judged(tmp_path_factory):
    """The golden game judged once at the tests' budget: its review and the store that keeps it."""
    store = tmp_path_factory.mktemp("review") / "kept.json"
    expected = rv.review(read_file(RECORD), ["all"], budget=8, store=store)
    return expected, store


def keep(judged, game=None) -> None:
    """Lay the golden game's kept review where the screen looks for it (this test's data directory)."""
    game = golden_game()[0] if game is None else game
    target = review_screen.cache_file(game)  # at the tests' budget (quick_reviews)
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(judged[1], target)


def keep_all_but(judged, left: int | None = None) -> int:
    """Lay the golden game's kept review without its last `left` decisions (None: each seat's
    last): the screen that opens it judges those with its own worker (the path of a whole game's
    review, with its cache) and keeps them. Returns how many are left to judge."""
    game, _ = golden_game()
    kept = rv.read_store(judged[1])
    if left is None:
        missing = {max(place for place in kept if place[2] == seat) for seat in range(4)}
    else:
        missing = {point.place for point in rv.points(game)[-left:]}
    rv.write_store(review_screen.cache_file(game), rv.public_key(game), 8,
                   {place: d for place, d in kept.items() if place not in missing})
    return len(missing)


class Host(App):
    """The screen alone, as the app pushes it."""

    ENABLE_COMMAND_PALETTE = False

    def __init__(self, human: int | None = None) -> None:
        super().__init__()
        self.game, self.bots = golden_game()
        if human is not None:
            self.bots[human] = None

    def on_mount(self) -> None:
        self.push_screen(ReviewScreen(self.game, self.bots, "g4_greedy_seed1.json"))


async def reviewed(pilot) -> ReviewScreen:
    screen = pilot.app.screen
    for _ in range(2000):
        await pilot.pause(0.05)
        if isinstance(screen, ReviewScreen) and screen.result is not None:
            await pilot.pause()
            return screen
    raise AssertionError("the review never finished")


def same_figures(result: rv.Review, expected: rv.Review) -> bool:
    """The same decisions judged the same, seat by seat (who plays a seat is the record's)."""
    return [(s.seat, s.name, s.decisions) for s in result.seats] == [(s.seat, s.name, s.decisions)
                                                                      for s in expected.seats]


async def test_the_review_screen_shows_every_seat_and_the_chosen_seats_decisions(judged):
    expected, _ = judged
    keep_all_but(judged)
    app = Host(human=2)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await reviewed(pilot)  # each seat's last decision judged here, by the screen's own worker
        assert screen.seat == 2  # the human first
        seats = screen.query_one("#review-seats", DataTable)
        assert seats.row_count == 4
        assert same_figures(screen.result, expected)  # the figures are the review's
        assert [s.bot for s in screen.result.seats] == ["greedy", "greedy", None, "greedy"]
        decisions = screen.query_one("#review-decisions", DataTable)
        mine = expected.seats[2].decisions
        assert decisions.row_count == len(mine)
        assert screen.query_one("#review-chart", Sparkline).data == [d.cost for d in mine]
        await pilot.press("s")
        assert screen.seat == 3 and decisions.row_count == len(expected.seats[3].decisions)


async def test_next_mark_shows_the_position_with_both_moves_on_the_grid(judged):
    keep(judged)
    app = Host()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await reviewed(pilot)
        seat = screen.seat_review()
        marked = [i for i, d in enumerate(seat.decisions) if d.mark]
        assert marked, "the golden game's seat 0 has marked decisions"
        table = screen.query_one("#review-decisions", DataTable)
        assert table.cursor_row == marked[0]  # opens on the first marked decision
        if len(marked) > 1:
            await pilot.press("m")
            assert table.cursor_row == marked[1]
        decision = seat.decisions[table.cursor_row]
        grid = screen.query_one("#review-grid", ReviewGrid)
        kinds = set(grid.marks.values())
        assert "called" in kinds
        assert kinds & {"played", "both"}
        if decision.played != decision.best:
            assert grid.marks[decision.played.to] == "played" and grid.marks[decision.best.to] == "best"
        drawn = grid.as_text().plain
        words = str(screen.query_one("#review-position", Static).render())
        assert f"{decision.round}, turn {decision.flip}" in words and decision.mark in words
        point = screen.points[decision.place]
        assert rv.move_words(point, decision.played) in words and rv.move_words(point, decision.best) in words
        assert rv.reason(point, decision) in words  # the mark says why
        # Words in the frames, not colour: "moved" where the card went (never "yours": the seat
        # may be a bot's), "best" where the expert puts it.
        assert ("moved" in drawn and "best" in drawn) if decision.played != decision.best else "both" in drawn
        assert "yours" not in drawn and "your" not in str(screen.query_one("#review-legend", Static).render())


async def test_escape_stops_a_review_which_resumes_where_it_stopped(monkeypatch, judged):
    """Stopped part way, deterministically: the fourth decision's judging waits until Escape has
    been pressed (one size: the work and its cache do not depend on the screen's size; both
    sizes of the finished screen are in the snapshots)."""
    expected, _ = judged
    judged_now, waiting, escaped = [], threading.Event(), threading.Event()
    real = rv.judge

    def judge(*args, **kwargs):
        if len(judged_now) == 3:
            waiting.set()
            escaped.wait(60)  # a bound, not a pace: the test sets it as soon as Escape is in
        judged_now.append(1)
        return real(*args, **kwargs)

    ended = threading.Event()  # the screen's review has returned (or raised Cancelled)
    real_review = rv.review

    def review(*args, **kwargs):
        try:
            return real_review(*args, **kwargs)
        finally:
            ended.set()

    monkeypatch.setattr(rv, "judge", judge)
    monkeypatch.setattr(rv, "review", review)
    left = keep_all_but(judged, 10)  # the game's last ten decisions are judged here
    app = Host()
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            screen = app.screen
            for _ in range(2000):  # until three decisions are judged and the fourth is under way
                await pilot.pause(0.02)
                if waiting.is_set():
                    break
            assert isinstance(screen, ReviewScreen) and screen.running
            assert screen.query_one("#review-progress", ProgressBar).display
            await pilot.press("escape")
            await pilot.pause()
            assert screen.cancel.is_set() and not isinstance(app.screen, ReviewScreen)
            escaped.set()
            for _ in range(3000):  # the worker's thread finishes the decision under way, then stops
                await pilot.pause(0.02)
                if ended.is_set():
                    break
            assert ended.is_set()
    finally:
        escaped.set()
    kept = rv.read_store(review_screen.cache_file(app.game))
    done = len(kept)
    total = len(rv.points(app.game))
    assert done == total - left + len(judged_now) and len(judged_now) == 4  # what was judged is kept, the one under way too
    assert done < total
    judged_now.clear()
    escaped.set()  # the resumed review is never held
    shown = []
    real_show = ReviewScreen.show_progress
    monkeypatch.setattr(ReviewScreen, "show_progress", lambda self, d, t: shown.append((d, t)) or real_show(self, d, t))
    async with Host().run_test(size=(80, 24)) as pilot:
        screen = await reviewed(pilot)
        assert [d for d, t in shown if t == total][0] == done  # the bar starts where the review stopped
        assert len(judged_now) == total - done  # only the rest is judged
        assert screen.result.to_json() == expected.to_json()  # the same figures as in one go


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_question_mark_opens_the_reviews_own_help(size, judged):
    from duckcover.app.screens.core import HelpScreen

    keep(judged)
    async with Host().run_test(size=size) as pilot:
        await reviewed(pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        help_screen = pilot.app.screen
        assert isinstance(help_screen, HelpScreen)
        text = "\n".join(str(w.render()) for w in help_screen.query(Static))
        assert "The review" in text and "mistake from 1.0" in text and "next marked decision" in text
        assert "flip (when you are the Captain)" not in text  # not the table's help
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(pilot.app.screen, ReviewScreen)


async def test_the_screen_names_moves_in_words_never_coordinates(judged):
    import re

    keep(judged)
    async with Host(human=1).run_test(size=(120, 40)) as pilot:
        screen = await reviewed(pilot)
        table = screen.query_one("#review-decisions", DataTable)
        coordinates = re.compile(r"\(-?\d+, ?-?\d+\)|-?\d+,-?\d+|\u2192")
        for row in range(table.row_count):
            table.move_cursor(row=row)
            await pilot.pause()
            played = str(table.get_row_at(row)[2])
            position = str(screen.query_one("#review-position", Static).render())
            assert played.startswith(("cover ", "duck ")) and not coordinates.search(played + position)
            assert position.split(": ")[0].endswith("greedy 2")  # the seat named, a bot's too


async def test_a_second_opening_reads_the_kept_review(monkeypatch, judged):
    keep_all_but(judged)
    judged_here = []
    real = rv.judge
    monkeypatch.setattr(rv, "judge", lambda *a, **k: judged_here.append(1) or real(*a, **k))
    async with Host().run_test(size=(80, 24)) as pilot:
        first = (await reviewed(pilot)).result.to_json()  # the rest judged here, and kept
    assert first == judged[0].to_json() and len(judged_here) == 4
    monkeypatch.setattr(rv, "judge", lambda *a, **k: (_ for _ in ()).throw(AssertionError("searched again")))
    async with Host().run_test(size=(80, 24)) as pilot:
        screen = await reviewed(pilot)
        assert screen.result.to_json() == first


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_snapshot_of_the_review_screen(snap_compare, size, judged):
    keep(judged)

    async def finished(pilot):
        await reviewed(pilot)
        await pilot.wait_for_scheduled_animations()  # the tables' cursors settle before the picture
        await pilot.pause()

    assert snap_compare(Host(human=0), terminal_size=size, run_before=finished)


# --- the ways in ------------------------------------------------------------------------------------
class Opener(App):
    ENABLE_COMMAND_PALETTE = False

    def __init__(self, make) -> None:
        super().__init__()
        self.make = make

    def on_mount(self) -> None:
        self.push_screen(self.make())


async def opens_the_review(app, keys=("v",)) -> ReviewScreen:
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press(*keys)
        screen = await reviewed(pilot)
        assert isinstance(app.screen, ReviewScreen)
        result = screen.result
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, ReviewScreen)
        return result


async def test_v_in_the_replay_viewer_opens_the_review(judged):
    from duckcover.app.screens.replay import ReplayScreen, build_timeline

    keep(judged)
    timeline = build_timeline(read_file(RECORD))
    result = await opens_the_review(Opener(lambda: ReplayScreen(timeline, "g4")))
    assert [s.seat for s in result.seats] == [0, 1, 2, 3]


async def test_v_on_a_saved_game_in_the_games_screen_opens_its_review(judged):
    from duckcover.app.screens.games import GamesScreen
    from duckcover.saves import storage

    keep(judged)
    storage.save_finished(read_file(RECORD))
    result = await opens_the_review(Opener(GamesScreen))
    assert [s.name for s in result.seats] == ["greedy 1", "greedy 2", "greedy 3", "greedy 4"]


async def test_v_on_the_game_over_screen_reviews_the_game_just_played():
    from duckcover.app.screens.core import GameOverScreen
    from helpers import finished_controller

    ctl = finished_controller()
    result = await opens_the_review(Opener(lambda: GameOverScreen(ctl)))
    assert [s.name for s in result.seats] == ["Ann", "Jackson", "Gwen"]
    assert [s.bot for s in result.seats] == [None, "medium", "medium"]


async def test_the_replay_viewer_draws_a_marked_decision_once_the_game_is_reviewed(judged):
    from duckcover.app.screens.replay import ReplayScreen, build_timeline

    timeline = build_timeline(read_file(RECORD))
    app = Opener(lambda: ReplayScreen(timeline, "g4"))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        viewer = app.screen
        assert viewer.marked == {}  # not reviewed yet: the plain viewer
        keep(judged)  # reviewed now (the Review screen opens it as if it had just judged it)
        await pilot.press("v")
        result = (await reviewed(pilot)).result
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is viewer
        marked = [(d.round, d.flip, d.seat, d) for s in result.seats for d in s.decisions if d.mark]
        assert marked and set(viewer.marked) == {m[:3] for m in marked}
        round_no, flip, seat, decision = min(marked, key=lambda m: m[:3])
        viewer.go(timeline.steps.index(next(s for s in timeline.steps
                                            if (s.round_index + 1, s.turn_no) == (round_no, flip))))
        await pilot.pause()
        grid = viewer.query_one(f"#replay-grid-{seat}")
        step = viewer.step
        assert grid.cells == step.before[seat]  # the position the seat decided in
        assert set(grid.marks.values()) & {"played", "both"}
        words = str(viewer.query_one("#replay-turn", Static).render())
        assert f"{decision.mark} (" in words and "the expert" in words
        assert rv.reason(result.points[decision.place], decision) in words  # why, in one line


async def test_the_screen_speaks_the_players_language(judged):
    from duckcover.common.i18n import set_language

    keep(judged)
    set_language("de")
    async with Host().run_test(size=(80, 24)) as pilot:
        screen = await reviewed(pilot)
        table = screen.query_one("#review-decisions", DataTable)
        played = [str(table.get_row_at(row)[2]) for row in range(table.row_count)]
        assert all(words.endswith(("verdecken", "ducken")) for words in played), played
        costs = [str(table.get_row_at(row)[3]) for row in range(table.row_count)]
        assert costs and all("," in cost and "." not in cost for cost in costs), costs  # 1,8±0,2
        assert "der Experte:" in str(screen.query_one("#review-position", Static).render())


async def test_names_and_titles_are_shown_as_plain_text(judged):
    game, bots = golden_game()
    names = ["[bold red]Eve[/]", "x\x1b[2Jy", "greedy 3", "greedy 4"]
    game.names = tuple(names)
    # The names are part of what the review is keyed by: the golden game's judged decisions are
    # laid under these names' key (what is shown here is the names, not the figures).
    keep(judged, game)

    class Hostile(App):
        ENABLE_COMMAND_PALETTE = False

        def on_mount(self) -> None:
            self.push_screen(ReviewScreen(game, bots, "[link=http://127.0.0.1/]file[/link].json"))

    async with Hostile().run_test(size=(120, 40)) as pilot:
        screen = await reviewed(pilot)
        assert "[link=http://127.0.0.1/]file[/link].json" in str(screen.query_one("#review-title", Static).render())
        table = screen.query_one("#review-seats", DataTable)
        shown_names = [str(table.get_row_at(i)[0]) for i in range(table.row_count)]
        assert shown_names[0].startswith("[bold red]Eve[/]")
        assert "\x1b" not in shown_names[1]
        assert "[bold red]Eve[/]" in str(screen.query_one("#review-chart-title", Static).render())


async def test_the_screen_spreads_the_work_over_processes_with_the_same_figures(monkeypatch, judged):
    monkeypatch.setattr(review_screen, "JOBS", 2)  # the app's own path: a process pool under a worker thread
    keep_all_but(judged)  # four decisions for the two processes
    async with Host().run_test(size=(80, 24)) as pilot:
        screen = await reviewed(pilot)
        assert screen.result.to_json() == judged[0].to_json()  # the figures of one process
