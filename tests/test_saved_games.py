"""Never lose a game (issue 9) and one owner per game (issue 10): every unfinished game keeps its
own file; Resume and --resume offer them, most recent first; a second duckcover on the same data
directory is told a game is in use instead of writing it; SIGHUP and SIGTERM end like Ctrl+Q."""
from __future__ import annotations

import json
import os
import pty
import signal
import subprocess
import sys

import pytest

from duckcover.app import AppOptions, SeatSpec, create_app, quick_seats
from duckcover.app.app import DuckCoverApp
from duckcover.saves import stats, storage
from autoplay import settle, step
from duckcover.app.controller import TurnController
from duckcover.app.screens.core import TitleScreen
from duckcover.app.screens.games import GamesScreen
from duckcover.app.table.screen import TableScreen
from duckcover.cli import build_parser
from duckcover.commands import play
from duckcover.saves.record import replay
from untrusted_payloads import finished_record, read_terminal

pytestmark = pytest.mark.keys  # the slow tier: the app, and duckcover in subprocesses


def options(tmp_path, name, seed, **kw) -> AppOptions:
    return AppOptions(seats=quick_seats(1, name), seed=seed, speed="instant", lang="en", data_dir=tmp_path,
                      stats=False, **kw)


async def play_a_little(tmp_path, name, seed, steps=3):
    app = create_app(options(tmp_path, name, seed))
    async with app.run_test(size=(120, 40)) as pilot:
        for _ in range(steps):
            await step(pilot)
    app.flush_saves()
    return app.controller.game.turn_number


def resume_app(tmp_path, path=None):
    return create_app(AppOptions(resume=True, resume_path=path, speed="instant", lang="en", data_dir=tmp_path,
                                 stats=False))


async def test_starting_game_b_keeps_game_a_and_both_resume(tmp_path):
    turns_a = await play_a_little(tmp_path, "Ann", seed=4)
    os.utime(storage.unfinished_paths(tmp_path)[0], (1, 1))  # A was played first
    turns_b = await play_a_little(tmp_path, "Bea", seed=5, steps=2)
    newest, oldest = storage.unfinished_paths(tmp_path)
    for path, name, turns in ((None, "Bea", turns_b), (oldest, "Ann", turns_a)):  # None: the most recent
        app = resume_app(tmp_path, path)
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot, lambda: isinstance(app.screen, TableScreen))
            assert app.controller.game.names[0] == name and app.controller.game.turn_number == turns
            assert app.claim.path == (path or newest)
    assert len(storage.unfinished_paths(tmp_path)) == 2


async def test_title_resume_offers_every_unfinished_game_most_recent_first(tmp_path):
    await play_a_little(tmp_path, "Ann", seed=4, steps=1)
    os.utime(storage.unfinished_paths(tmp_path)[0], (1, 1))
    await play_a_little(tmp_path, "Bea", seed=5, steps=1)
    app = create_app(AppOptions(speed="instant", lang="en", data_dir=tmp_path, stats=False))
    async with app.run_test(size=(120, 40)) as pilot:
        assert isinstance(app.screen, TitleScreen)
        await pilot.press("down", "enter")  # Resume
        assert isinstance(app.screen, GamesScreen)
        assert [e.players_text() for e in app.screen.entries[:2]] == ["Bea, Jackson", "Ann, Jackson"]
        await pilot.press("down", "r")  # the older one
        await settle(pilot, lambda: isinstance(app.screen, TableScreen))
        assert app.controller.game.names[0] == "Ann"


def test_resume_list_numbers_the_unfinished_games(tmp_path, capsys):
    for index, names in enumerate((["Ann", "Ben"], ["Cat", "Dog"])):
        record = finished_record(names)
        record["rounds"] = record["rounds"][:1]
        path = storage.save_unfinished(record, storage.new_game_path(tmp_path))
        os.utime(path, (index + 1, index + 1))
    parsed = build_parser().parse_args(["play", "--resume", "list", "--data-dir", str(tmp_path)])
    assert play.run(parsed) == 0
    out = capsys.readouterr().out.splitlines()
    assert "Cat " in out[1] and ", Dog " in out[1] and "Ann " in out[2] and ", Ben " in out[2]
    parsed = build_parser().parse_args(["play", "--resume", "9", "--data-dir", str(tmp_path)])
    assert play.run(parsed) == 2
    assert "--resume takes a number" in capsys.readouterr().err


def test_a_record_with_no_round_is_refused_before_the_app_starts(tmp_path, capsys):
    record = finished_record(["Ann", "Ben"])
    record["rounds"] = []
    storage.save_unfinished(record, storage.new_game_path(tmp_path))
    assert play.run(build_parser().parse_args(["play", "--resume", "--data-dir", str(tmp_path)])) == 2
    err = capsys.readouterr().err
    assert "no round" in err and len(err.splitlines()) == 1


async def test_a_record_with_no_round_is_refused_in_the_app_too(tmp_path):
    record = finished_record(["Ann", "Ben"])
    record["rounds"] = []
    storage.save_unfinished(record, storage.new_game_path(tmp_path))
    app = resume_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, TitleScreen) and app.controller is None


def test_play_returns_the_apps_exit_code(tmp_path, monkeypatch):
    """`play` returned 0 even after the app crashed."""
    import duckcover.app as app_package

    made = []

    def crashing_app(options):
        app = DuckCoverApp(options)
        app.run = lambda **kw: setattr(app, "_return_code", 1)  # as Textual sets after an exception
        made.append(app)
        return app

    monkeypatch.setattr(app_package, "create_app", crashing_app)
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)  # play wants a terminal
    assert play.run(build_parser().parse_args(["play", "--bots", "1", "--data-dir", str(tmp_path)])) == 1
    assert made


# --- two instances, one data directory -----------------------------------------------------------
def second_instance(tmp_path, code: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "DUCKCOVER_DATA": str(tmp_path)}
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)


async def test_two_instances_on_one_data_directory(tmp_path):
    app = create_app(options(tmp_path, "Ann", seed=4))
    async with app.run_test(size=(120, 40)) as pilot:
        await step(pilot)
        mine = app.claim.path
        before = mine.read_bytes()
        # Another duckcover, another process: resuming, naming the game, deleting it, all refused.
        other = second_instance(tmp_path, "import sys; from duckcover.cli import main; sys.exit(main(['play', '--resume']))")
        assert other.returncode == 2 and "open in another duckcover" in other.stderr
        other = second_instance(tmp_path, f"import sys; from duckcover.cli import main; sys.exit(main(['play', '--resume', '{mine.name}']))")
        assert other.returncode == 2 and "open in another duckcover" in other.stderr
        other = second_instance(tmp_path, f"from duckcover.saves import storage; from pathlib import Path; storage.delete_saved(Path({str(mine)!r}))")
        assert other.returncode == 1 and "GameInUse" in other.stderr
        assert mine.read_bytes() == before
        # A second app in this process is a second owner too (flock is per open file).
        second = resume_app(tmp_path)
        async with second.run_test(size=(120, 40)) as pilot2:
            await pilot2.pause()
            assert isinstance(second.screen, TitleScreen) and second.claim is None
        await step(pilot)  # the first instance plays on and saves
        assert mine.read_bytes() != before
    # Once the first has closed, the game is free.
    again = resume_app(tmp_path)
    async with again.run_test(size=(120, 40)) as pilot:
        await settle(pilot, lambda: isinstance(again.screen, TableScreen))
        assert again.claim.path == mine


async def test_a_finished_game_leaves_no_unfinished_file_or_lock(tmp_path):
    app = create_app(options(tmp_path, "Ann", seed=4))
    async with app.run_test(size=(120, 40)) as pilot:
        await step(pilot)
        playing = app.claim.path
        assert storage.unfinished_paths(tmp_path) == [playing]
        # The game ends (here: the record of a finished game takes its place) and is saved.
        finished = replay(finished_record(["Ann", "Jackson"]))
        app.controller = TurnController(finished, [SeatSpec("Ann"), SeatSpec("Jackson", "medium")])
        app.save_game()
        assert app.claim is None
    assert storage.unfinished_paths(tmp_path) == [] and len(storage.finished_paths(tmp_path)) == 1
    assert not list(storage.games_dir(tmp_path).glob(".*.lock"))


async def test_a_save_that_keeps_failing_is_told_once(tmp_path, monkeypatch):
    told = []

    def refuse(record, path):
        raise PermissionError(13, "Read-only file system")

    monkeypatch.setattr(storage, "save_unfinished", refuse)
    app = create_app(options(tmp_path, "Ann", seed=4))
    monkeypatch.setattr(app, "notify", lambda message, *a, **kw: told.append(message))
    async with app.run_test(size=(120, 40)) as pilot:
        for _ in range(6):
            await step(pilot)
    assert len(told) == 1 and "Read-only" in told[0]


async def test_finished_games_missing_from_the_statistics_are_added_at_start(tmp_path):
    """A kill between archiving a finished game and adding it to the statistics."""
    record = finished_record(["Ann", "Ben"])
    storage.save_finished(record, tmp_path)
    stale = storage.games_dir(tmp_path) / ".abc.json.x.tmp"
    stale.write_text("half")
    os.utime(stale, (1, 1))
    app = create_app(AppOptions(lang="en", data_dir=tmp_path))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
    app.flush_saves()
    assert [row.players for row in stats.games(tmp_path / stats.DB_NAME)] == [("Ann", "Ben")]
    assert not stale.exists()


# --- signals ----------------------------------------------------------------------------------------
RESTORE = ["\x1b[?1049l", "\x1b[?25h", "\x1b[?1000l"]  # alternate screen left, cursor shown, mouse off


@pytest.mark.parametrize("number", [signal.SIGTERM, signal.SIGHUP])
def test_a_signal_saves_and_restores_the_terminal_as_quitting_does(tmp_path, number):
    main, child = pty.openpty()
    env = {**os.environ, "DUCKCOVER_DATA": str(tmp_path), "TERM": "xterm-256color", "COLUMNS": "120", "LINES": "40"}
    proc = subprocess.Popen([sys.executable, "-m", "duckcover", "play", "--bots", "1", "--seed", "1", "--lang", "en"],
                            stdin=child, stdout=child, stderr=child, env=env, start_new_session=True)
    os.close(child)
    try:
        shown = read_terminal(main, b"Captain", 60)
        assert b"\x1b[?1049h" in shown, shown[-500:]
        proc.send_signal(number)
        rest = read_terminal(main, None, 30).decode("utf-8", "replace")
        code = proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(main)
    assert code == 128 + number
    for sequence in RESTORE:
        assert sequence in rest, (sequence, rest[-300:])
    (saved,) = storage.unfinished_paths(tmp_path)
    assert json.loads(saved.read_text())["players"][0]["name"] == "You"


def test_the_data_directory_and_a_save_are_this_users_only(tmp_path):
    """A save holds the round's deck and the seed: its folders are made 0700 and the file 0600."""
    import stat

    from duckcover.engine import Game
    from duckcover.saves.record import to_record
    from duckcover.saves.storage import claim, new_game_path, save_unfinished

    root = tmp_path / "fresh" / "data"
    path = new_game_path(root)
    owned = claim(path)
    try:
        save_unfinished(to_record(Game(2, seed=3)), path)
    finally:
        owned.release()
    for folder in (tmp_path / "fresh", root, path.parent):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700, folder
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
