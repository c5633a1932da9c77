"""Reaching a cell (issue 19): every legal cell is reached by arrows from where the cursor
starts, and by its jump key in one press, over many seeded positions (so at most 2 presses with
Enter); the keys drawn on the cells move the cursor there; Enter on the moving card says what
to do; the help lists Tab and the jump keys and scrolls by keys at 80x24."""
from __future__ import annotations

import random
from collections import deque

import pytest
from hypothesis import given
from hypothesis import strategies as st

from autoplay import keys_to, settle, step, table_of
from duckcover.app import AppOptions, create_app, quick_seats
from duckcover.app.screens.core import HelpScreen
from duckcover.app.widgets.core import DIRECTIONS, JUMP_KEYS, GridWidget, jump_tags, step_from_card
from duckcover.engine import CHOOSING, Game, Phase, Rules

MAX_PRESSES = 8  # the most arrow presses any legal cell took over these positions (most take 1-3)
MAX_PRESSES_WITH_KEYS = 2  # a cell's key, then Enter


def presses(origin, targets) -> dict:
    """Arrow presses from the moving card to each cell the arrows reach."""
    seen, queue = {origin: 0}, deque([origin])
    while queue:
        cell = queue.popleft()
        for dx, dy in DIRECTIONS.values():
            nxt = step_from_card(cell, origin, targets, dx, dy)
            if nxt not in seen:
                seen[nxt] = seen[cell] + 1
                queue.append(nxt)
    return seen


def positions(seeds: int, players: int = 4):
    """(origin, legal destinations) of seat 0's moving cards, through whole first rounds of
    random play (random play leaves ragged grids: the hard cases for arrows)."""
    for seed in range(seeds):
        rng = random.Random(seed)
        game = Game([f"p{i}" for i in range(players)], Rules(), seed)
        while game.phase is Phase.FLIP or game.phase in CHOOSING:
            if game.phase is Phase.FLIP:
                game.flip()
                continue
            moves = []
            for seat in range(game.n):
                legal = game.legal_moves(seat) if seat in game.awaiting else []
                if seat == 0 and game.phase is Phase.MOVE:
                    for card, origin in game.candidates(0):
                        yield origin, [m.to for m in legal if m.card == card]
                moves.append(rng.choice(legal) if legal else None)
            game.play(moves)


@pytest.mark.keys  # a search over many seeded positions (seconds of CPU): the slow tier
def test_every_legal_cell_is_reached_by_arrows_from_the_moving_card():
    worst, count, total = 0, 0, 0
    for origin, targets in positions(60):
        reach = presses(origin, targets)
        missing = [cell for cell in targets if cell not in reach]
        assert not missing, f"from {origin}, no arrow reaches {missing} among {sorted(targets)}"
        worst = max(worst, *(reach[cell] for cell in targets))
        count += len(targets)
        total += sum(reach[cell] for cell in targets)
    assert count > 10000  # many positions were walked
    assert worst <= MAX_PRESSES and total / count < 2.6, (worst, total / count)


@pytest.mark.keys  # a search over many seeded positions (seconds of CPU): the slow tier
def test_every_legal_cell_is_at_most_two_presses_away_by_arrows_or_its_key():
    worst, most_cells = 0, 0
    for origin, targets in positions(60):
        tags = jump_tags(targets)
        assert len(set(tags.values())) == len(tags), tags  # one cell per key
        arrows = presses(origin, targets)
        for cell in targets:
            reach = min(arrows.get(cell, len(targets)), 1 if cell in tags else len(targets))
            worst = max(worst, reach + 1)  # ... then Enter
        most_cells = max(most_cells, len(targets))
    assert worst <= MAX_PRESSES_WITH_KEYS, worst
    assert most_cells <= len(JUMP_KEYS), most_cells  # no cell was left without a key


@given(st.sets(st.tuples(st.integers(-8, 8), st.integers(-8, 8)), max_size=len(JUMP_KEYS)))
def test_jump_keys_go_one_to_a_cell_in_reading_order(cells):
    tags = jump_tags(cells)
    assert set(tags) == cells
    in_reading_order = sorted(cells, key=lambda c: (c[1], c[0]))
    assert [tags[cell] for cell in in_reading_order] == list(JUMP_KEYS[:len(cells)])


def test_the_cell_once_reached_by_no_arrow_is_reached_now():
    # A position from issue 19's kind: (4, -2) sat diagonal to its neighbours and was nobody's
    # nearest cell in any direction.
    origin = (6, -3)
    targets = [(0, -2), (1, -3), (1, -1), (2, -3), (2, 0), (3, -3), (3, -1), (4, -2), (4, 2), (5, 0), (5, 1),
               (5, 3), (6, -1), (6, 1), (6, 4), (7, 0), (7, 2), (7, 3)]
    assert (4, -2) in presses(origin, targets)


async def until_choosing_a_destination(pilot, table) -> None:
    """Play on (bounded) until the player at the keyboard chooses where a card goes."""
    for _ in range(60):
        if table.chooser is not None and table.stage == "dest":
            return
        await step(pilot)
        await settle(pilot)


async def test_enter_on_the_moving_card_says_what_to_do(tmp_path):
    app = create_app(AppOptions(seats=quick_seats(3, "Ann"), seed=7, speed="instant", lang="en",
                                data_dir=tmp_path, stats=False))
    async with app.run_test(size=(80, 24)) as pilot:
        table = table_of(app)
        await until_choosing_a_destination(pilot, table)
        grid = table.query_one("#own-grid", GridWidget)
        grid.cursor = grid.origin
        turn = app.controller.game.turn_number
        await pilot.press("enter")
        await pilot.pause()
        assert "is the card that moves" in table.prompt_text  # in the prompt: a notice would cover the log
        assert not list(app._notifications)
        assert app.controller.game.turn_number == turn and table.chooser is not None  # nothing played


async def test_the_help_lists_tab_and_page_down_scrolls_it_at_80x24(tmp_path):
    app = create_app(AppOptions(seats=quick_seats(1, "Ann"), seed=7, speed="instant", lang="en",
                                data_dir=tmp_path, stats=False))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        keys = app.screen.query("Static").results()
        assert any("Shift+Tab" in str(s.render()) for s in keys)
        assert any("a b c" in str(s.render()) for s in app.screen.query("Static").results())  # the jump keys
        scroll = app.screen.query_one("#help")
        assert scroll.max_scroll_y > 0  # longer than the screen: it must scroll
        await pilot.press("pagedown")
        await pilot.pause()
        assert scroll.scroll_y > 0
        await pilot.press("end")
        await pilot.pause()
        assert scroll.scroll_y == scroll.max_scroll_y


def drawn_at(grid: GridWidget, cell) -> str:
    """The characters of the top line of `cell` as the grid draws it."""
    region = grid.cell_region(cell)
    line = grid.as_text().plain.split("\n")[region.y]
    return line[max(0, region.x):region.right]


@pytest.mark.parametrize("size", [(80, 24), (100, 30), (120, 40)])
async def test_a_cells_key_moves_the_cursor_there_and_enter_plays_it(tmp_path, size):
    app = create_app(AppOptions(seats=quick_seats(3, "Ann"), seed=7, speed="instant", lang="en",
                                data_dir=tmp_path, stats=False))
    async with app.run_test(size=size) as pilot:
        table = table_of(app)
        await settle(pilot)
        # Before any choice, no jump key is bound at the table: none shadows another key.
        assert not set(JUMP_KEYS) & set(app.screen.active_bindings)
        await until_choosing_a_destination(pilot, table)
        grid = table.query_one("#own-grid", GridWidget)
        # The cell the arrows take longest to reach, and its key as drawn on it.
        far = max(grid.targets, key=lambda cell: len(keys_to(grid.cursor, cell, grid.targets, grid.origin)))
        key = grid.tags[far]
        assert key in drawn_at(grid, far)
        assert all(app.screen.active_bindings[tag].node is grid for tag in grid.tags.values())
        footer = str(table.query_one("KeyBar").render())
        assert footer.count("Jump") == 1 and " abc Jump " in footer  # the verb once, not every key
        turn = app.controller.game.turn_number
        await pilot.press(key)
        await pilot.pause()
        assert grid.cursor == far
        assert app.controller.game.turn_number == turn and table.chooser is not None  # one key places nothing
        await pilot.press("enter")
        await settle(pilot, lambda: app.controller.game.turn_number > turn)
        assert app.controller.game.last_turn.moves[0].to == far
