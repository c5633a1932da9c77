"""Write screenshots/*.svg from the real app: seeded, speed instant, played by keys.

    python scripts/screenshots.py [OUT_DIR]

Every picture comes from `duckcover.app.create_app` exactly as `duckcover` builds it; the
README shows them.
"""
from __future__ import annotations

import asyncio
import shutil
import sys
import tempfile
from pathlib import Path

from duckcover.app import AppOptions, SeatSpec, create_app, quick_seats
from duckcover.app.passplay import pass_and_play_seats
from duckcover.app.screens.core import HelpScreen, RoundEndScreen, SetupScreen

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # playing by keys is test tooling: tests/autoplay.py
from autoplay import play_to_end, settle, step, table_of  # noqa: E402


async def choosing(pilot) -> None:
    for _ in range(60):
        await step(pilot)
        if table_of(pilot.app).chooser is not None:
            return


async def later_choice(pilot) -> None:
    """A few turns in, so grids have stacks and ducks outside the start."""
    for _ in range(14):
        await step(pilot)
    await choosing(pilot)


async def round_over(pilot) -> None:
    for _ in range(500):
        await step(pilot)
        await settle(pilot)
        if isinstance(pilot.app.screen, RoundEndScreen):
            return


async def hand_over(pilot) -> None:
    """Pass-and-play: the screen that hides the table while the keyboard changes hands."""
    from duckcover.app.screens.handover import HandoverScreen

    for _ in range(40):
        await settle(pilot)
        if isinstance(pilot.app.screen, HandoverScreen):
            return
        await step(pilot)


async def open_settings(pilot) -> None:
    from duckcover.app.screens.settings import SettingsScreen

    pilot.app.push_screen(SettingsScreen())


async def ask_hint(pilot) -> None:
    """A few turns in, the hint key: the expert's two best moves, in the log and a notice."""
    await later_choice(pilot)
    table = table_of(pilot.app)
    await pilot.press("t")
    for _ in range(500):
        await pilot.pause(0.02)
        if len(table.log_lines) and table.log_lines[-1].startswith("Hint:"):
            return


HISTORY = Path(tempfile.mkdtemp(prefix="duckcover-shots-"))  # two finished games for the history screens


def finished_games() -> Path:
    """Two seeded bot games, saved and counted, once: what the Games and Statistics screens list."""
    from datetime import datetime, timezone

    from duckcover.players.harness import play_game
    from duckcover.saves import stats, storage
    from duckcover.saves.record import to_record
    from duckcover_bots.greedy import GreedyBot

    if not (HISTORY / "stats.db").exists():
        for seed, day in ((1, 1), (4, 2)):
            names = ["Connie", "Jackson", "Gwen"]
            game = play_game([GreedyBot() for _ in names], seed=seed, names=names)
            record = to_record(game, bots=["greedy"] * 3)
            storage.save_finished(record, HISTORY, now=datetime(2026, 11, day, 20, 0, tzinfo=timezone.utc))
            stats.add_game(record, HISTORY / "stats.db")
    return HISTORY


async def open_games(pilot) -> None:
    from duckcover.app.screens.games import GamesScreen

    pilot.app.push_screen(GamesScreen(finished_games()))


async def open_statistics(pilot) -> None:
    from duckcover.app.screens.stats import StatsScreen

    pilot.app.push_screen(StatsScreen(finished_games() / "stats.db"))


async def open_replay(pilot) -> None:
    """The replay viewer a dozen turns into a golden game, as a referee sees it."""
    from duckcover.app.screens.replay import ReplayScreen, build_timeline
    from duckcover.saves.record import loads

    record = loads((ROOT / "tests" / "golden" / "g4_greedy_seed1.json").read_text(encoding="utf-8"))
    pilot.app.push_screen(ReplayScreen(build_timeline(record), "g4_greedy_seed1.json"))
    await pilot.pause()
    for _ in range(12):
        await pilot.press("right")


async def open_review(pilot) -> None:
    """The Review screen of a golden game, on the first marked decision of its first seat."""
    from duckcover.app.screens.review import ReviewScreen
    from duckcover.saves.record import loads, read_players, replay

    record = loads((ROOT / "tests" / "golden" / "g4_greedy_seed1.json").read_text(encoding="utf-8"))
    screen = ReviewScreen(replay(record), read_players(record)[1], "g4_greedy_seed1.json")
    pilot.app.push_screen(screen)
    for _ in range(6000):  # the review runs in a worker (a minute or two on a busy machine)
        await pilot.pause(0.05)
        if screen.result is not None:
            break
    await pilot.pause()


async def open_setup(pilot) -> None:
    pilot.app.push_screen(SetupScreen())


async def open_help(pilot) -> None:
    await settle(pilot)
    pilot.app.push_screen(HelpScreen())


SHOTS = [
    # name, seats, seed, size, what to do first
    ("title", None, 1, (100, 30), None),
    ("setup", None, 1, (100, 34), open_setup),
    ("table-2-players", lambda: quick_seats(1, "Connie"), 5, (120, 40), later_choice),
    ("table-4-players", lambda: quick_seats(3, "Connie"), 5, (120, 40), later_choice),
    ("table-7-players", lambda: quick_seats(6, "Connie"), 5, (120, 40), choosing),
    ("table-80x24", lambda: quick_seats(3, "Connie"), 5, (80, 24), later_choice),
    ("round-end", lambda: quick_seats(3, "Connie"), 5, (120, 40), round_over),
    ("game-end", lambda: [SeatSpec("Connie"), SeatSpec("Jackson", "medium"), SeatSpec("Gwen", "medium")], 5,
     (100, 30), play_to_end),
    ("help", lambda: quick_seats(2, "Connie"), 1, (100, 34), open_help),
    ("settings", None, 1, (100, 30), open_settings),
    ("hint", lambda: quick_seats(3, "Connie"), 5, (120, 40), ask_hint),
    ("table-german", lambda: quick_seats(3, "Connie"), 5, (120, 40), later_choice),
    ("handover", lambda: pass_and_play_seats(["Ann", "Ben"], 2), 3, (80, 24), hand_over),
    ("replay-viewer", None, 1, (120, 40), open_replay),
    ("games", None, 1, (100, 30), open_games),
    ("statistics", None, 1, (100, 30), open_statistics),
    ("review", None, 1, (120, 40), open_review),
]


LANGUAGE = {"table-german": "de"}  # every other picture in English
TOASTS = {"hint"}  # pictures that show notices (a test run hides them by default)


async def shoot(name, seats, seed, size, action, out: Path, data: Path) -> Path:
    lang = LANGUAGE.get(name, "en")
    app = create_app(AppOptions(seats=seats() if seats else None, seed=seed, speed="instant", lang=lang,
                                data_dir=data / name, save=False, stats=False))
    async with app.run_test(size=size, notifications=name in TOASTS) as pilot:
        if action is not None:
            await action(pilot)
        await pilot.pause()
        await pilot.wait_for_scheduled_animations()
        app.save_screenshot(filename=f"{name}.svg", path=str(out))
    return out / f"{name}.svg"


async def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    try:
        with tempfile.TemporaryDirectory() as data:
            for shot in SHOTS:
                path = await shoot(*shot, out=out, data=Path(data))
                print(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)
    finally:
        shutil.rmtree(HISTORY, ignore_errors=True)


if __name__ == "__main__":
    asyncio.run(main(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "screenshots"))
