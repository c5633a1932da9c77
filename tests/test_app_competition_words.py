"""A round that scores card numbers (Competition) speaks of numbers, not splashes (issue 19):
the cards show no drops, the round end's column and values say numbers, and the scorepad says
beforehand which round scores numbers. What a round scores comes from the rules (the engine)."""
from autoplay import step, table_of
from duckcover.app import AppOptions, create_app, quick_seats
from duckcover.app.screens.core import RoundEndScreen, card_values, round_heading, round_table, scorepad
from duckcover.app.table.screen import SeatPanel
from duckcover.engine import Game, rules_with_variants


def test_the_rules_say_which_rounds_score_numbers():
    rules = rules_with_variants(["competition:3"])
    assert [rules.for_round(index).scores_numbers for index in range(3)] == [False, False, True]
    assert not rules_with_variants([]).scores_numbers


def test_the_scorepad_says_before_round_3_that_it_scores_numbers():
    game = Game(["Ann", "Ben"], rules_with_variants(["competition:3"]), seed=1)
    assert [round_heading(game, index) for index in range(3)] == ["Round 1", "Round 2", "Round 3\nnumbers score"]


def rendered(table) -> str:
    from rich.console import Console

    console = Console(width=100, record=True, file=open("/dev/null", "w"))
    console.print(table)
    return console.export_text()


async def test_a_competition_round_shows_numbers_without_drops(tmp_path):
    app = create_app(AppOptions(seats=quick_seats(2, "Ann"), seed=3, speed="instant", lang="en", data_dir=tmp_path,
                                stats=False, save=False, rules=rules_with_variants(["competition"])))
    async with app.run_test(size=(120, 40)) as pilot:
        await step(pilot)
        table = table_of(app)
        for panel in table.query(SeatPanel):
            text = panel.grid.as_text().plain
            assert "●" not in text and "-" not in text.replace("─", ""), text  # no drops, no "no splashes" dash
        for _ in range(400):
            if isinstance(app.screen, RoundEndScreen):
                break
            await step(pilot)
        assert isinstance(app.screen, RoundEndScreen)
        ctl = table.ctl
        shown = rendered(round_table(ctl))
        assert "Visible cards (numbers score)" in shown and "splashes" not in shown
        for seat in range(ctl.game.n):
            values = card_values(ctl, 0, seat)
            assert "(" not in values
            assert sorted(map(int, values.split())) == sorted(s[-1].number for s in ctl.game.table(0)[0][seat].values())
        assert "numbers score" in rendered(scorepad(ctl))


async def test_the_replay_viewer_shows_drops_only_in_rounds_that_score_splashes():
    from duckcover.app.screens.replay import ReplayApp, build_timeline
    from duckcover.app.widgets.core import GridWidget
    from duckcover.players.harness import play_game
    from duckcover.saves.record import to_record
    from duckcover_bots.greedy import GreedyBot

    game = play_game([GreedyBot(), GreedyBot()], rules=rules_with_variants(["competition:2"]), seed=3,
                     names=["Connie", "Jackson"])
    timeline = build_timeline(to_record(game, bots=["greedy", "greedy"]))
    app = ReplayApp(timeline)
    async with app.run_test(size=(120, 40)) as pilot:
        for round_number, drops in ((1, True), (2, False), (3, True)):
            await pilot.press(str(round_number))
            grid = app.screen.query_one("#replay-grid-0", GridWidget)
            assert ("●" in grid.as_text().plain) is drops, round_number
