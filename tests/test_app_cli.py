"""`duckcover play` options: good ones build the app's options, bad ones are one line and exit 2."""
import pytest

from duckcover import cli
from duckcover.commands.play import build_options


def parse(*argv):
    return cli.build_parser().parse_args(["play", *argv])


@pytest.mark.parametrize(
    "argv, says",
    [
        (["--bots", "0"], "--bots 0 leaves nobody to play against"), (["--bots", "7"], "not 7"),
        (["--bots", "many"], "not 'many'"),
        (["--speed", "warp"], "invalid choice: 'warp'"), (["--lang", "xx"], "invalid choice: 'xx'"),
        (["--seed", "abc"], "--seed: takes a whole number"), (["--variant", "chaos"], "unknown variant 'chaos'"),
        (["--max-by", "colour"], "invalid choice: 'colour'"),
        (["--bots", "2", "--variant", "low-blows", "--variant", "two-flips"], "cannot be combined"),
        (["--bots", "6", "--variant", "cooperative"], "cooperative variant takes 2-5 players"),
        pytest.param(["--bots", "2", "--difficulty", "no-such-bot"], "unknown bot 'no-such-bot'",
                     marks=pytest.mark.keys),  # the slow tier: the unknown bot is probed in a process of its own
    ],
)
def test_bad_options_are_one_line_and_exit_2(argv, says, capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("DUCKCOVER_DATA", str(tmp_path))
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("duckcover: ") and err.count("\n") == 1 and "Traceback" not in err
    assert says in err


def test_resume_without_a_saved_game_is_refused(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("DUCKCOVER_DATA", str(tmp_path))
    assert cli.main(["--resume", "--lang", "en"]) == 2
    assert "no unfinished game" in capsys.readouterr().err


def test_a_broken_save_is_refused_in_one_line(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("DUCKCOVER_DATA", str(tmp_path))
    (tmp_path / "games").mkdir()
    (tmp_path / "games" / "current.json").write_text("{not json")
    assert cli.main(["--resume"]) == 2
    err = capsys.readouterr().err
    assert "cannot resume" in err and err.count("\n") == 1


def test_bots_start_a_table_against_medium_bots():
    options = build_options(parse("--bots", "3", "--seed", "7", "--name", "Gwen", "--speed", "fast", "--no-mouse"))
    assert [(s.name, s.bot) for s in options.seats] == [
        ("Gwen", None), ("Jackson", "medium"), ("Dan", "medium"), ("Connie", "medium")]
    assert options.seed == 7 and options.speed == "fast" and options.mouse is False


def test_watch_makes_every_seat_a_bot_and_plain_play_opens_the_title():
    watch = build_options(parse("--watch", "--bots", "4", "--difficulty", "easy"))
    assert len(watch.seats) == 4 and all(s.bot == "easy" for s in watch.seats) and watch.watch
    plain = build_options(parse("--lang", "de"))
    assert plain.seats is None and plain.lang == "de" and plain.speed == "normal"


def test_rules_options_reach_the_game():
    options = build_options(parse("--bots", "2", "--variant", "pressure", "--variant", "madness",
                                  "--max-by", "splashes", "--captain", "fixed"))
    rules = options.rules
    assert rules.max_by == "splashes" and rules.captain == "fixed"
    assert rules.variants == {"pressure", "madness"}


def test_humans_and_bots_make_a_pass_and_play_table():
    options = build_options(parse("--humans", "Ann, Ben", "--bots", "2", "--difficulty", "easy", "--no-handover"))
    assert [(s.name, s.bot) for s in options.seats] == [("Ann", None), ("Ben", None), ("Jackson", "easy"),
                                                      ("Gwen", "easy")]
    assert options.handover is False
    assert build_options(parse("--humans", "Ann,Gwen,Dan")).handover is True
    names = [s.name for s in build_options(parse("--humans", "Jackson,Gwen", "--bots", "2")).seats]
    assert len(set(names)) == 4


@pytest.mark.parametrize("argv, says", [
    (["--humans", "Ann"], "players, not 1"),
    (["--humans", "Ann,,Ben"], "names separated by commas"),
    (["--humans", "Ann,ann"], "every player needs a different name"),
    (["--humans", "A,B,C", "--bots", "5"], "not 8 (--humans plus --bots)"),
    (["--humans", "A,B", "--watch"], "--humans and --watch do not go together"),
    (["--humans", "A,B", "--name", "C"], "drop --name"),
])
def test_bad_humans_are_one_line_and_exit_2(argv, says, capsys, tmp_path, monkeypatch):
    # The message is checked, not only the status: under pytest standard output is no terminal,
    # so `play` would exit 2 for that reason alone.
    monkeypatch.setenv("DUCKCOVER_DATA", str(tmp_path))
    assert cli.main(["play", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("duckcover: ") and err.count("\n") == 1 and "Traceback" not in err
    assert says in err


def test_play_refuses_a_standard_output_that_is_not_a_terminal(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("DUCKCOVER_DATA", str(tmp_path))
    monkeypatch.setattr("sys.stdout.isatty", lambda: False)
    assert cli.main(["play", "--bots", "2", "--lang", "en"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""  # no escape codes
    assert captured.err.startswith("duckcover: the game needs a terminal") and captured.err.count("\n") == 1


async def test_resume_from_the_command_line_replays_the_record_once(tmp_path, monkeypatch):
    from duckcover.app import AppOptions, create_app, quick_seats
    from duckcover.saves import record, storage
    from autoplay import step
    from duckcover.app.table.screen import TableScreen
    from duckcover.commands import play

    first = create_app(AppOptions(seats=quick_seats(2, "Ann"), seed=4, speed="instant", lang="en",
                                  data_dir=tmp_path, stats=False))
    async with first.run_test(size=(120, 40)) as pilot:
        for _ in range(4):
            await step(pilot)
    first.flush_saves()
    turns = first.controller.game.turn_number

    replays = []
    real_replay = record.replay

    def counting(data, *args, **kw):
        replays.append(1)
        return real_replay(data, *args, **kw)

    monkeypatch.setattr(record, "replay", counting)
    monkeypatch.setattr(storage, "resume", counting)
    launched = []

    class Launched:  # stands in for the app the command would run in the terminal
        saver = type("Saver", (), {"shutdown": staticmethod(lambda wait: None)})()
        return_code = 0

        def run(self, mouse):
            pass

    monkeypatch.setattr("sys.stdout.isatty", lambda: True)
    monkeypatch.setattr("duckcover.app.create_app", lambda options: launched.append(options) or Launched())
    args = cli.build_parser().parse_args(["play", "--resume", "--lang", "en", "--data-dir", str(tmp_path)])
    assert play.run(args) == 0
    options = launched[0]
    app = create_app(options)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, TableScreen) and app.controller.game.turn_number == turns
    assert len(replays) == 1  # the command's check; the app plays on from that same game


def test_play_holds_the_garbage_collector_while_the_app_launches_and_not_after(tmp_path, monkeypatch):
    """Importing Textual and building the first table make objects the collector walked over
    and over (issue 33: launch): held while the command builds and runs the app, on after."""
    import gc

    from duckcover.commands import play

    seen = []

    class Launched:  # stands in for the app the command would run in the terminal
        saver = type("Saver", (), {"shutdown": staticmethod(lambda wait: None)})()
        return_code = 0

        def run(self, mouse):
            seen.append(gc.isenabled())

    def creating(options):
        seen.append(gc.isenabled())
        return Launched()

    monkeypatch.setattr("sys.stdout.isatty", lambda: True)
    monkeypatch.setattr("duckcover.app.create_app", creating)
    args = cli.build_parser().parse_args(["play", "--bots", "2", "--lang", "en", "--data-dir", str(tmp_path)])
    assert gc.isenabled()
    try:
        assert play.run(args) == 0
        assert seen == [False, False]
        assert gc.isenabled()
    finally:
        gc.enable()


LAUNCH_PROBE = """
import json, sys
import textual.app
textual.app.App.run = lambda self, *a, **k: print(json.dumps(sorted(sys.modules)))
sys.stdout.isatty = lambda: True
from duckcover import cli
cli.main(["play", "--bots", "3", "--seed", "1", "--lang", "en"])
"""


def test_play_loads_no_other_commands_modules_before_the_table(tmp_path):
    """`duckcover play` reaches the app without the statistics, arena, replay or plugin
    machinery (sqlite3, importlib.metadata, email, zipfile...): none of it is on the way
    to the first frame."""
    import json
    import os
    import subprocess
    import sys

    env = {**os.environ, "DUCKCOVER_DATA": str(tmp_path)}
    out = subprocess.run([sys.executable, "-c", LAUNCH_PROBE], capture_output=True, text=True, env=env, check=True)
    loaded = set(json.loads(out.stdout.strip().splitlines()[-1]))
    assert "duckcover.app.table.screen" in loaded  # the probe did reach the app
    heavy = {"sqlite3", "importlib.metadata", "email", "zipfile", "statistics", "duckcover.players.arena",
             "duckcover.saves.stats", "duckcover.players.plugins", "duckcover.saves.record", "duckcover.commands.arena",
             "duckcover.commands.stats", "duckcover.commands.replay"}
    assert not heavy & loaded, sorted(heavy & loaded)


async def test_an_app_launched_with_the_collector_held_turns_it_on_again_once_it_runs(tmp_path, monkeypatch):
    import gc

    from duckcover.app import AppOptions, create_app, quick_seats
    from duckcover.app import app as app_module

    monkeypatch.setattr(app_module, "COLLECT_DELAY", 0.05)
    gc.disable()  # as `duckcover play` does while it launches the app
    try:
        app = create_app(AppOptions(seats=quick_seats(2, None), seed=1, lang="en", data_dir=tmp_path,
                                    save=False, stats=False))
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            await pilot.pause(0.3)
            assert gc.isenabled()
    finally:
        gc.enable()
