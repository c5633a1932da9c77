"""Playing the app by keys from a Textual Pilot: test tooling (the tests and scripts/screenshots.py).

Everything goes through key presses, as a person at the keyboard would play; a `Strategy`
only says which legal cell the human wants, and `keys_to` finds the arrow keys that take the
cursor there.
"""
from __future__ import annotations

import asyncio
import inspect
from collections import deque
from collections.abc import Callable

from textual import events

from duckcover.app.screens.core import GameOverScreen, RoundEndScreen
from duckcover.app.screens.handover import HandoverScreen
from duckcover.app.table.screen import SeatPanel, TableScreen
from duckcover.app.widgets.core import DIRECTIONS, step_from_card
from duckcover.engine import Cell

Strategy = Callable[[TableScreen, dict, Cell], Cell]  # (table, marks, first offer) -> wanted cell


def keys_to(cursor: Cell, target: Cell, targets: list[Cell], origin: Cell | None = None) -> list[str]:
    """The shortest arrow-key sequence that moves the cursor from `cursor` to `target`
    (`origin`: the moving card, where arrows go to its neighbours)."""
    seen, queue = {cursor: []}, deque([cursor])
    while queue:
        cell = queue.popleft()
        if cell == target:
            return seen[cell]
        for key, (dx, dy) in DIRECTIONS.items():
            nxt = step_from_card(cell, origin, targets, dx, dy)
            if nxt not in seen:
                seen[nxt] = seen[cell] + [key]
                queue.append(nxt)
    raise ValueError(f"cannot reach {target} from {cursor}")


def nearest(targets: list[Cell], origin: Cell) -> Cell:
    """The legal cell nearest to the moving card (ties: reading order)."""
    return min(targets, key=lambda c: (abs(c[0] - origin[0]) + abs(c[1] - origin[1]), c[1], c[0]))


def first_choice(table: TableScreen, marks: dict, cursor: Cell) -> Cell:
    """Take the first offer: the cell under the cursor, or the legal cell nearest to the card."""
    return cursor


def table_of(app) -> TableScreen | None:
    for screen in reversed(app.screen_stack):
        if isinstance(screen, TableScreen):
            return screen
    return None


def needs_human(app) -> bool:
    """True when the app waits for the keyboard (or the game is over)."""
    screen = app.screen
    if isinstance(screen, (RoundEndScreen, GameOverScreen, HandoverScreen)):
        return True
    if isinstance(screen, TableScreen):
        return screen.state == "await-flip" or screen.chooser is not None
    return False


KEY_CHARS = {"enter": "\r", "space": " ", "escape": "\x1b"}

# --- the two private Textual calls this module needs, and nothing else uses ------------------
# `pilot.press` waits for the CPU to idle after every key (~80 ms a key: a whole game by keys
# would take minutes), and Textual has no public "deliver this key and wait for the screen".
# test_autoplay_textual_internals.py fails loudly if an upgrade removes or renames them.


async def deliver(app, event) -> None:
    """Hand `event` to the app's message queue and wait until it is queued."""
    await app._post_message(event)


async def wait_for_screen(pilot) -> None:
    """Wait until the current screen and its children have processed every pending message."""
    await pilot._wait_for_screen()


async def press(pilot, *keys: str) -> None:
    """Press keys like `pilot.press`, without its wait for the CPU to idle after each one
    (that wait costs ~80 ms a key; a whole game by keys would take minutes)."""
    app = pilot.app
    for key in keys:
        event = events.Key(key, KEY_CHARS.get(key, key if len(key) == 1 else None))
        event.set_sender(app)
        await deliver(app, event)
        # The app forwards the key to the focused widget: two hops, so wait twice.
        await wait_for_screen(pilot)
        await wait_for_screen(pilot)


def progress(app) -> tuple:
    """Changes whenever the game or the human's task moves on (even through transient states)."""
    table = table_of(app)
    if table is None:
        return (id(app.screen),)
    game = table.ctl.game
    return (id(app.screen), game.round_index, game.turn_number, game.phase, table.flow.number, table.chooser, table.stage)


def _described(condition: Callable[[], bool]) -> str:
    """The condition's own source line (a lambda says what it waits for), or its name."""
    try:
        return inspect.getsource(condition).strip()
    except (OSError, TypeError):
        return getattr(condition, "__qualname__", repr(condition))


class NeverSettled(AssertionError):
    """`settle` waited its whole limit and the condition never held."""


async def settle(pilot, until: Callable[[], bool] | None = None, limit: int = 2000) -> bool:
    """Let messages, timers and bot workers run until `until()` holds; raise if it never does.

    Raising (not returning False) means no caller can forget to check: a test that waited for a
    screen that never came fails there, naming what it waited for and what it found.
    """
    condition = until or (lambda: needs_human(pilot.app))
    for _ in range(limit):
        # Cheap polling: a full pilot.pause() waits for the CPU to idle, costly per check.
        await asyncio.sleep(0.002)
        if condition():
            await wait_for_screen(pilot)
            if condition():
                return True
    if condition():
        return True
    waited = _described(until) if until else "a human's turn"
    raise NeverSettled(f"settle: {limit} polls and still waiting for {waited}; "
                       f"the screen is {type(pilot.app.screen).__name__}")


async def step(pilot, strategy: Strategy = first_choice) -> str:
    """Do the one thing the human must do now: flip, choose, continue. Returns what was done."""
    app = pilot.app
    await settle(pilot)
    screen = app.screen
    if isinstance(screen, GameOverScreen):
        return "game-over"
    before = progress(app)
    if isinstance(screen, RoundEndScreen):
        await press(pilot, "enter")
        await settle(pilot, lambda: progress(app) != before)
        return "round-end"
    if isinstance(screen, HandoverScreen):
        await press(pilot, "enter")
        await settle(pilot, lambda: progress(app) != before)
        return "handover"
    if not isinstance(screen, TableScreen):
        return "other"
    if screen.state == "await-flip":
        await press(pilot, "space")
        await settle(pilot, lambda: progress(app) != before)
        return "flip"
    grid = screen.query_one("#own-panel", SeatPanel).grid
    marks, cursor, stage = dict(grid.marks), grid.cursor, screen.stage
    offer = cursor if cursor in grid.targets else nearest(grid.targets, grid.origin)  # the card is no destination
    wanted = strategy(screen, marks, offer)
    await press(pilot, *keys_to(cursor, wanted, grid.targets, grid.origin), "enter")
    # The choice lands through a message: wait for it, so no key of ours reaches a later screen.
    await settle(pilot, lambda: progress(app) != before)
    return f"choose-{stage}"


async def play_to_end(pilot, strategy: Strategy = first_choice, limit: int = 3000) -> list[str]:
    """Play until the game-over screen; returns the actions taken."""
    done = []
    for _ in range(limit):
        action = await step(pilot, strategy)
        if action == "game-over":
            return done
        done.append(action)
    raise AssertionError("the game did not end")
