"""UI responsiveness: launch time to the first interactive table, and key press -> updated screen.

Usage: python benchmarks/ui.py [--runs N] [--presses N]

Launch: a fresh Python process is started and timed until the app shows a table waiting for
the human (the Captain's flip), headless at 120x40; compared with a bare Textual app that
shows one Static, measured the same way. Target: <= 1.3x the bare app.
Key -> screen: during the human's choice, arrow keys move the cursor; each press is timed
from the key event until the screen has been composited again (median over many presses),
next to the same measure for the bare app updating its Static. Target: <= 50 ms median.
The last line is `name=value`.
"""
from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time

LAUNCH_OURS = """
import asyncio, tempfile, pathlib
from duckcover.app import AppOptions, create_app, quick_seats
from duckcover.app.table import TableScreen
async def main():
    app = create_app(AppOptions(seats=quick_seats(3, "You"), seed=1, speed="instant", lang="en",
                                data_dir=pathlib.Path(tempfile.mkdtemp()), save=False, stats=False))
    async with app.run_test(size=(120, 40)) as pilot:
        while not (isinstance(app.screen, TableScreen) and app.screen.state == "await-flip"):
            await asyncio.sleep(0.001)  # the human is asked to flip: the table is interactive
        app.screen._on_timer_update()  # and that frame is composited
        print("READY", flush=True)
asyncio.run(main())
"""

LAUNCH_BARE = """
import asyncio
from textual.app import App
from textual.widgets import Static
class Bare(App):
    def compose(self):
        yield Static("Duck & Cover")
async def main():
    app = Bare()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot._wait_for_screen()
        app.screen._on_timer_update()
        print("READY", flush=True)
asyncio.run(main())
"""


def bytecode_env(cache_dir: str) -> dict[str, str]:
    """Launches are measured as a player's machine runs them: with compiled bytecode cached,
    which pip writes at install time and Python after a first run. An environment that
    forbids writing bytecode (PYTHONDONTWRITEBYTECODE, as some sandboxes set) would make
    every launch of ours recompile our modules while Textual's stay precompiled; so both apps
    get the same private bytecode cache, warmed by one unmeasured launch each."""
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = cache_dir
    return env


def launch_time(code: str, env: dict[str, str] | None = None) -> float:
    """Seconds from spawning the interpreter until it reports its first interactive frame."""
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True, env=env)
    for line in proc.stdout:
        if line.startswith("READY"):
            elapsed = time.perf_counter() - start
            break
    else:
        raise RuntimeError("the app never became ready")
    proc.wait()
    return elapsed


async def frame_time(app, pilot, key: str, changed) -> float:
    """One key press until the screen is composited again (not the pilot's idle waits)."""
    from textual import events

    before = changed()
    start = time.perf_counter()
    event = events.Key(key, None)
    event.set_sender(app)
    await app._post_message(event)
    while changed() == before:
        await asyncio.sleep(0)
    app.screen._on_timer_update()  # composite and write the frame now
    return time.perf_counter() - start


async def key_times_ours(presses: int) -> list[float]:
    from pathlib import Path

    from duckcover.app import AppOptions, create_app, quick_seats
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
    from autoplay import settle, step, table_of  # test tooling: plays the app by keys

    app = create_app(AppOptions(seats=quick_seats(3, "You"), seed=1, speed="instant", lang="en",
                                data_dir=Path(tempfile.mkdtemp()), save=False, stats=False))
    times = []
    async with app.run_test(size=(120, 40)) as pilot:
        while table_of(app) is None or table_of(app).chooser is None:
            await step(pilot)
        grid = app.screen.query_one("#own-grid")
        await settle(pilot, lambda: grid.cursor is not None)
        for i in range(presses):
            times.append(await frame_time(app, pilot, "right" if i % 2 == 0 else "left", lambda: grid.cursor))
            await pilot._wait_for_screen()
    return times


async def key_times_bare(presses: int) -> list[float]:
    from textual.app import App
    from textual.widgets import Static

    class Bare(App):
        BINDINGS = [("right", "bump(1)"), ("left", "bump(-1)")]
        count = 0

        def compose(self):
            yield Static("0", id="n")

        def action_bump(self, step: int) -> None:
            self.count += step
            self.query_one("#n", Static).update(str(self.count))

    app = Bare()
    times = []
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot._wait_for_screen()
        for i in range(presses):
            times.append(await frame_time(app, pilot, "right" if i % 2 == 0 else "left", lambda: app.count))
            await pilot._wait_for_screen()
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="launches of each app (median taken)")
    parser.add_argument("--presses", type=int, default=200, help="key presses timed")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="duckcover-bench-pycache-") as cache:
        env = bytecode_env(cache)
        launch_time(LAUNCH_OURS, env), launch_time(LAUNCH_BARE, env)  # warm the bytecode cache
        ours = statistics.median(launch_time(LAUNCH_OURS, env) for _ in range(args.runs))
        bare = statistics.median(launch_time(LAUNCH_BARE, env) for _ in range(args.runs))
    print(f"launch to first interactive table: {ours * 1000:.0f} ms (bare Textual app: {bare * 1000:.0f} ms, "
          f"ratio {ours / bare:.2f}, target <= 1.3)")
    key_ours = statistics.median(asyncio.run(key_times_ours(args.presses))) * 1000
    key_bare = statistics.median(asyncio.run(key_times_bare(args.presses))) * 1000
    print(f"key press -> updated screen, median of {args.presses}: {key_ours:.1f} ms "
          f"(bare Textual app: {key_bare:.1f} ms, target <= 50 ms)")
    print(f"launch_ratio={ours / bare:.2f}")
    print(f"key_to_screen_ms={key_ours:.1f}")


if __name__ == "__main__":
    main()
