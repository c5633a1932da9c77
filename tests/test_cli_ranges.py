"""Issue 30, finding 1 (and the command-line part of 6): every numeric option of every command
has a range; a value outside it, or no finite number, is one line and exit status 2 from the
real `duckcover` (a subprocess, as a user runs it), never a traceback. Options before the
command are the command's. `--humans ... --bots 0` is a table."""
from __future__ import annotations

import argparse
import os
import subprocess
import sys

import pytest

from duckcover import cli
from duckcover.commands import numbers

pytestmark = pytest.mark.keys  # duckcover run in subprocesses


def duckcover(tmp_path, *argv) -> subprocess.CompletedProcess:
    env = {**os.environ, "DUCKCOVER_DATA": str(tmp_path)}
    return subprocess.run([sys.executable, "-m", "duckcover", *argv], capture_output=True, text=True,
                          env=env, timeout=60, stdin=subprocess.DEVNULL)


def assert_one_line_refusal(result, says: str) -> None:
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr and result.stdout == ""
    assert result.stderr.startswith("duckcover") and result.stderr.count("\n") == 1, result.stderr
    assert says in result.stderr


TWO_BOTS = ("--bot", "random", "--bot", "random")


@pytest.mark.parametrize("command, argv, says", [
    ("serve", ["--port", "99999"], "--port: takes 0-65535"),
    ("serve", ["--port", "-5"], "not -5"),
    ("serve", ["--max-connections", "0"], "--max-connections: takes 1-10000"),
    ("serve", ["--turn-seconds", "nan"], "--turn-seconds: takes a number of seconds 1-86400"),
    ("serve", ["--turn-seconds", "1e999"], "not '1e999'"),
    ("serve", ["--abandoned-after", "0.5"], "--abandoned-after: takes 1-31536000 seconds"),
    ("play", ["--bots", "7"], "--bots: takes 0-6"),
    ("play", ["--bots", "-1"], "not -1"),
    ("play", ["--seed", "1.5"], "--seed: takes a whole number, not '1.5'"),
    ("arena", [*TWO_BOTS, "--games", "0"], "--games: takes 1-10000000"),
    ("arena", [*TWO_BOTS, "--jobs", "100000"], "--jobs: takes 1-1024"),
    ("arena", [*TWO_BOTS, "--budget", "0"], "--budget: takes 1-100000"),
    ("arena", [*TWO_BOTS, "--time-limit", "0"], "--time-limit: takes more than 0 and at most 3600 seconds"),
    ("arena", [*TWO_BOTS, "--hard-limit", "inf"], "--hard-limit: takes a number of seconds 0-3600"),
    ("arena", [*TWO_BOTS, "--seed", "x"], "--seed: takes a whole number, not 'x'"),
    ("review", ["game.json", "--budget", "100001"], "--budget: takes 1-100000"),
    ("review", ["game.json", "--jobs", "0"], "--jobs: takes 1-1024"),
])
def test_a_number_out_of_range_is_one_line_and_exit_2(tmp_path, command, argv, says):
    assert_one_line_refusal(duckcover(tmp_path, command, *argv), says)


def every_option():
    parser = cli.build_parser()
    commands = next(action for action in parser._actions if isinstance(action, argparse._SubParsersAction))
    for name, command in commands.choices.items():
        for action in command._actions:
            yield name, action


def test_every_numeric_option_has_a_range():
    """A new numeric option cannot slip in as a bare int or float (no upper bound, `inf`)."""
    bare = [f"{name} {action.option_strings}" for name, action in every_option() if action.type in (int, float)]
    assert bare == []
    ranged = {(name, action.dest) for name, action in every_option()
              if getattr(action.type, "__qualname__", "").startswith(("whole.", "seconds."))}
    assert ranged >= {("play", "bots"), ("play", "seed"), ("serve", "port"), ("serve", "max_connections"),
                      ("serve", "turn_seconds"), ("serve", "abandoned_after"), ("arena", "games"),
                      ("arena", "jobs"), ("arena", "budget"), ("arena", "time_limit"), ("arena", "hard_limit"),
                      ("review", "budget"), ("review", "jobs")}


@pytest.mark.parametrize("parse, good", [
    (numbers.whole(0, 65535), ["0", "65535"]),
    (numbers.seconds(1, 86400), ["1", "86400", "2.5"]),
    (numbers.seconds(0, 3600, above=True), ["0.001", "3600"]),
])
def test_the_ends_of_a_range_are_in_it(parse, good):
    assert [parse(text) for text in good] == [float(text) for text in good]


@pytest.mark.parametrize("argv", [
    ["--lang", "fr", "play", "--bots", "9"],
    ["--bots", "9", "play"],
    ["--lang", "fr", "--bots", "9"],
])
def test_options_before_the_command_are_the_commands(tmp_path, argv):
    # --bots 9 is refused by play's parser: the options reached it, the command word did not
    # become an "unrecognized argument".
    assert_one_line_refusal(duckcover(tmp_path, *argv), "--bots: takes 0-6")


def test_lang_before_play_starts_the_game_in_that_language(tmp_path):
    # Refused only because standard output is no terminal here, and said in French: --lang fr
    # reached play, and play was not taken for an unknown argument.
    result = duckcover(tmp_path, "--lang", "fr", "play", "--bots", "2")
    assert_one_line_refusal(result, "le jeu a besoin d'un terminal")


def test_options_before_any_command_reach_it(tmp_path):
    replay = duckcover(tmp_path, "--lang", "fr", "replay", "missing.json")
    assert replay.returncode == 2 and replay.stderr.startswith("missing.json: illisible")  # in French
    stats = duckcover(tmp_path, "--lang", "de", "stats")
    assert stats.returncode == 0 and stats.stdout == "Noch keine beendeten Partien.\n"


def test_a_word_after_an_option_that_takes_it_is_its_value():
    assert cli.command_first(["--name", "stats", "--bots", "2"]) == ["--name", "stats", "--bots", "2"]
    assert cli.command_first(["--lang", "fr", "play"]) == ["play", "--lang", "fr"]
    assert cli.command_first(["--resume", "play"]) == ["play", "--resume"]
    assert cli.command_first(["review", "play", "--lang", "fr"]) == ["review", "play", "--lang", "fr"]


def test_pass_and_play_takes_zero_bots(tmp_path):
    from duckcover.commands.play import build_options

    options = build_options(cli.build_parser().parse_args(["play", "--humans", "Ann,Ben", "--bots", "0"]))
    assert [(seat.name, seat.bot) for seat in options.seats] == [("Ann", None), ("Ben", None)]
    # Through the real command: refused only because the output is no terminal, not for --bots 0.
    result = duckcover(tmp_path, "--lang", "en", "play", "--humans", "Ann,Ben", "--bots", "0")
    assert_one_line_refusal(result, "needs a terminal")


def test_zero_bots_without_humans_says_why(tmp_path):
    assert_one_line_refusal(duckcover(tmp_path, "play", "--bots", "0"), "--bots 0 leaves nobody to play against")
