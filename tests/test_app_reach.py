"""Reaching a cell (issue 19): every legal cell is reached by arrows from where the cursor
starts, over many seeded positions; Enter on the moving card says what to do; the help lists
Tab and scrolls by keys at 80x24."""
from __future__ import annotations

import random
from collections import deque

from autoplay import settle, step, table_of
from duckcover.app import AppOptions, create_app, quick_seats
from duckcover.app.screens import HelpScreen
from duckcover.app.widgets import DIRECTIONS, GridWidget, step_from_card
from duckcover.game import CHOOSING, Game, Phase
from duckcover.rules import Rules

MAX_PRESSES = 8  # the most arrow presses any legal cell took over these positions (most take 1-3)


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


def test_the_cell_once_reached_by_no_arrow_is_reached_now():
    # A position from issue 19's kind: (4, -2) sat diagonal to its neighbours and was nobody's
    # nearest cell in any direction.
    origin = (6, -3)
    targets = [(0, -2), (1, -3), (1, -1), (2, -3), (2, 0), (3, -3), (3, -1), (4, -2), (4, 2), (5, 0), (5, 1),
               (5, 3), (6, -1), (6, 1), (6, 4), (7, 0), (7, 2), (7, 3)]
    assert (4, -2) in presses(origin, targets)


async def test_enter_on_the_moving_card_says_what_to_do(tmp_path):
    app = create_app(AppOptions(seats=quick_seats(3, "Ann"), seed=7, speed="instant", lang="en",
                                data_dir=tmp_path, stats=False))
    async with app.run_test(size=(80, 24)) as pilot:
        table = table_of(app)
        for _ in range(60):
            if table.chooser is not None and table.stage == "dest":
                break
            await step(pilot)
            await settle(pilot)
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
        scroll = app.screen.query_one("#help")
        assert scroll.max_scroll_y > 0  # longer than the screen: it must scroll
        await pilot.press("pagedown")
        await pilot.pause()
        assert scroll.scroll_y > 0
        await pilot.press("end")
        await pilot.pause()
        assert scroll.scroll_y == scroll.max_scroll_y
