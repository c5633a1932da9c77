"""Every fact a player at the physical table sees stays on screen at 80x24 and 100x30 (issue 19):
each visible card's family, number, splashes and stack height, in every grid, late in a round
with an opponent's grid spread over five columns and a stack of eleven."""
import re
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from autoplay import step, table_of
from duckcover.app import AppOptions, create_app, quick_seats
from duckcover.app.table.screen import SeatPanel, SeatTitle
from duckcover.app.widgets.cards import FAMILY_LETTERS, MARKED_SIZES, SIZES, line_text
from duckcover.common.i18n import t
from duckcover.engine import CARDS

SIZES_COMPACT = [(80, 24), (100, 30)]
# Seed 1, you and four bots: at flip 23 of round 1, Jackson's grid spans five columns and
# Gwen has a stack of eleven (found by playing; the test checks both before it reads the screen).
SEED, BOTS, FLIP = 1, 4, 23
# A one-line card: an optional family letter, the number, the drop and the splashes, the height.
CARD = re.compile(r"(?P<letter>[A-I])? ?(?P<number>\d{1,2})●(?P<splashes>\d)(?:x(?P<height>\d{1,2}))?")


def make(tmp_path):
    return create_app(AppOptions(seats=quick_seats(BOTS, "Connie"), seed=SEED, speed="instant", lang="en",
                                 data_dir=tmp_path, stats=False, save=False))


async def late_in_the_round(pilot):
    for _ in range(200):
        await step(pilot)
        table = table_of(pilot.app)
        if table is not None and table.chooser is not None and table.ctl.game.turn_number + 1 >= FLIP:
            await pilot.pause()
            return
    raise AssertionError("flip 23 never came")


def screen_lines(app) -> list[str]:
    strips = app.screen._compositor.render_strips()
    return ["".join(segment.text for segment in strip) for strip in strips]


def grid_text(app, panel: SeatPanel) -> str:
    """The characters on screen inside a grid's region (what the player sees of it)."""
    region = panel.grid.region
    lines = screen_lines(app)[region.y:region.bottom]
    return "\n".join(line[region.x:region.right] for line in lines)


def expected_cards(game, seat) -> Counter:
    splashes = game.rules.splashes
    return Counter((FAMILY_LETTERS[stack[-1].family], stack[-1].number, splashes[stack[-1].number - 1], len(stack))
                   for stack in game.grid(seat).values())


def shown_cards(text: str, seat: int) -> Counter:
    """The cards read off the screen; a card without its letter is of the seat's own family."""
    return Counter((match["letter"] or FAMILY_LETTERS[seat], int(match["number"]), int(match["splashes"]),
                    int(match["height"] or 1)) for match in CARD.finditer(text))


@pytest.mark.parametrize("size", SIZES_COMPACT, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_every_card_shows_its_number_splashes_and_height(tmp_path, size):
    app = make(tmp_path)
    async with app.run_test(size=size) as pilot:
        await late_in_the_round(pilot)
        table = table_of(app)
        game = table.ctl.game
        spans = [max(x for x, _ in game.grid(s)) - min(x for x, _ in game.grid(s)) + 1 for s in range(1, game.n)]
        assert max(spans) >= 5, "the position no longer has a grid over five columns"
        assert max(len(stack) for s in range(game.n) for stack in game.grid(s).values()) >= 10
        for panel in table.query(SeatPanel):
            assert shown_cards(grid_text(app, panel), panel.seat) == expected_cards(game, panel.seat), panel.seat
        # What a one-line card means is said on screen.
        assert "B12●5x2: family B, card 12, 5 splashes, stack of 2" in "\n".join(screen_lines(app))


@pytest.mark.parametrize("size", SIZES_COMPACT, ids=lambda s: f"{s[0]}x{s[1]}")
def test_snapshot_late_in_a_round(snap_compare, tmp_path, size):
    assert snap_compare(make(tmp_path), terminal_size=size, run_before=late_in_the_round)


@given(family=st.integers(0, 8), number=st.integers(1, 12), splashes=st.integers(0, 5), height=st.integers(1, 12))
def test_a_one_line_card_keeps_every_fact_in_the_widths_the_table_uses(family, number, splashes, height):
    """The narrowest one-line cell (a gap and 6 characters) holds every fact of a card of the
    grid's own family; a wider one (7) every fact of any card."""
    card = CARDS[family][number]
    for width, home in ((6, family), (7, None), (7, family)):
        if height >= 10 and number >= 10 and (width == 6 or home is None):
            continue  # `12●5x10` is 7 characters, `B12●5x10` 8: such a stack leaves at most 3 in the grid
        text = line_text(card, splashes, height, "●", width, home)
        assert len(text) == width
        match = CARD.fullmatch(text.strip())
        assert match, text
        assert (match["letter"] or FAMILY_LETTERS[home], int(match["number"]), int(match["splashes"]),
                int(match["height"] or 1)) == (FAMILY_LETTERS[family], number, splashes, height)


def test_short_cells_are_between_line_and_tiny():
    assert [size.width for size in SIZES if not size.boxed] == [8, 7, 6, 4]
    assert [size.width for size in MARKED_SIZES if not size.boxed] == [9, 8, 7, 5]


def test_a_round_scoring_numbers_shows_no_drops():
    card = CARDS[1][12]
    assert line_text(card, None, 3, "●") == "B12x3  "


def test_a_seat_title_keeps_a_long_name_whole_beside_captain():
    title = SeatTitle()
    line = title.line(("Abcdefghijklmnop", "medium", True, 5, 21, -13), 39)
    assert line.plain.startswith("Abcdefghijklmnop Captain")
    assert "21" in line.plain and "-13" in line.plain and line.cell_len <= 39


async def test_the_discard_line_names_every_discarded_card_at_80_columns(tmp_path):
    app = create_app(AppOptions(seats=quick_seats(1, "Connie"), seed=5, speed="instant", lang="en",
                                data_dir=tmp_path, stats=False, save=False))
    async with app.run_test(size=(80, 24)) as pilot:
        await step(pilot)
        table = table_of(app)
        game = table.ctl.game
        game._discard = (11, 11, 5, 4, 4, 12, 12, 10)  # 8 of the 9 a two-player round allows (as if played)
        line = table.heaps_line(78).plain
        assert len(line) <= 78
        assert "11 11 5 4 4 12 12 10" in line and "8/9" in line


async def test_the_round_end_says_what_to_press_at_80x24_with_seven_players(tmp_path):
    from duckcover.app.screens.core import RoundEndScreen

    app = create_app(AppOptions(seats=quick_seats(6, "Connie"), seed=2, speed="instant", lang="en",
                                data_dir=tmp_path, stats=False, save=False))
    async with app.run_test(size=(80, 24)) as pilot:
        for _ in range(300):
            await step(pilot)
            if isinstance(app.screen, RoundEndScreen):
                break
        await pilot.pause()
        assert isinstance(app.screen, RoundEndScreen)
        # Which round's box this is depends on how fast the bots were (a step may close one):
        # the last round's says "for the result", the others' "for the next round".
        said = t("round_end.final") if app.screen.ctl.game.over else t("round_end.next")
        assert any(said in line for line in screen_lines(app)), screen_lines(app)


# --- 120x40: one drawing style for every opponent -----------------------------------------
async def when_one_grid_spreads_out(pilot):
    """Seed 2, you and three bots: at flip 9 Gwen's grid is too wide for boxed cards, the
    others are not (checked by the test)."""
    for _ in range(200):
        await step(pilot)
        table = table_of(pilot.app)
        if table is not None and table.chooser is not None and table.ctl.game.turn_number + 1 >= 9:
            await pilot.pause()
            return
    raise AssertionError("flip 9 never came")


def make_four(tmp_path):
    return create_app(AppOptions(seats=quick_seats(3, "Connie"), seed=2, speed="instant", lang="en",
                                 data_dir=tmp_path, stats=False, save=False))


async def test_opponents_are_drawn_in_one_style_when_one_grid_spreads_out(tmp_path):
    app = make_four(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await when_one_grid_spreads_out(pilot)
        table = table_of(app)
        panels = list(table.query(".opponent").results(SeatPanel))
        assert len({panel.grid.fitting_card_size().boxed for panel in panels}) == 2  # alone, they would differ
        assert len({panel.grid.card_size() for panel in panels}) == 1
        for panel in panels:  # one-line cards, and every fact of every card still there
            assert not panel.grid.card_size().boxed
            assert shown_cards(grid_text(app, panel), panel.seat) == expected_cards(table.ctl.game, panel.seat)
            assert not {"╭", "╰", "│"} & set(grid_text(app, panel))  # nothing left of a boxed frame


def test_snapshot_opponents_in_one_style(snap_compare, tmp_path):
    assert snap_compare(make_four(tmp_path), terminal_size=(120, 40), run_before=when_one_grid_spreads_out)
