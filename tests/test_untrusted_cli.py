"""Issue 10, the command line: hostile names in records reach `replay --summary`, `replay --json`,
`stats --add`, `stats`, `stats --games` (to a pipe and to a terminal) as text only, and
`play --name` refuses them. Run as a user runs them, in subprocesses."""
from __future__ import annotations

import json
import os
import pty
import re
import subprocess
import sys

import pytest

from duckcover.saves.record import dumps
from untrusted_payloads import (BIG, ESCAPES, MARKUPS, RAW_MARKERS, SURROGATE, assert_safe, finished_record,
                                read_terminal, tables, visible)

pytestmark = pytest.mark.keys  # the slow tier: duckcover run as a user runs it, in subprocesses

NAME_TABLES = tables(ESCAPES + MARKUPS + [SURROGATE])
SGR = re.compile(r"\x1b\[[0-9;]*m")  # the colours Rich itself writes to a terminal


def env(tmp_path) -> dict:
    return {**os.environ, "DUCKCOVER_DATA": str(tmp_path), "COLUMNS": "200", "LINES": "50",
            "TERM": "xterm-256color", "NO_COLOR": ""}


def run(tmp_path, *args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "duckcover", *args], capture_output=True, text=True,
                          errors="surrogateescape", env=env(tmp_path), timeout=60)


def run_in_pty(tmp_path, *args) -> tuple[int, str]:
    """The command with a terminal as its output: what the terminal receives, as text."""
    main, child = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "duckcover", *args], stdin=subprocess.DEVNULL,
                            stdout=child, stderr=child, env=env(tmp_path))
    os.close(child)
    data = read_terminal(main, None, 60)
    os.close(main)
    code = proc.wait(timeout=60)
    return code, data.decode("utf-8", "replace")


def write_records(tmp_path, people: bool = False) -> list:
    paths = []
    for index, names in enumerate(NAME_TABLES):
        path = tmp_path / f"game{index}.json"
        record = finished_record(names, people=people)
        path.write_text(json.dumps(record), encoding="utf-8")  # \\u escapes: surrogates stay
        paths.append(path)
    return paths


@pytest.fixture(scope="module")
def records(tmp_path_factory):
    return write_records(tmp_path_factory.mktemp("records"))


@pytest.mark.parametrize("index", range(len(NAME_TABLES)))
def test_replay_summary_shows_names_as_text_to_a_pipe_and_to_a_terminal(tmp_path, records, index):
    names = NAME_TABLES[index]
    piped = run(tmp_path, "replay", str(records[index]), "--summary")
    assert piped.returncode == 0 and piped.stderr == ""
    assert_safe(piped.stdout, names, "replay --summary | cat")
    assert not any(line.startswith("Winner: Eve") for line in piped.stdout.splitlines())
    code, screen = run_in_pty(tmp_path, "replay", str(records[index]), "--summary")
    assert code == 0
    assert_safe(SGR.sub("", screen), names, "replay --summary on a terminal")
    assert "\x1b]8;" not in screen  # no hyperlink was made of a [link=...]


def test_replay_json_escapes_what_it_quotes(tmp_path, records):
    out = run(tmp_path, "replay", str(records[0]), "--json")
    assert out.returncode == 0 and "\x1b" not in out.stdout
    json.loads(out.stdout)


def test_stats_add_then_stats_and_stats_games_show_names_as_text(tmp_path):
    # People by these names: the statistics list a bot by what it is, never by its seat's name.
    records = write_records(tmp_path, people=True)
    added = run(tmp_path, "stats", "--add", *map(str, records))
    assert added.returncode == 0, added.stderr
    every = [name for names in NAME_TABLES for name in names]
    for args in (("stats",), ("stats", "--games")):
        piped = run(tmp_path, *args)
        assert piped.returncode == 0 and piped.stderr == ""
        assert_safe(piped.stdout, every if args == ("stats",) else [], " ".join(args) + " | cat")
        code, screen = run_in_pty(tmp_path, *args)
        assert code == 0
        assert_safe(SGR.sub("", screen), every if args == ("stats",) else [], " ".join(args) + " on a terminal")
        assert "\x1b]8;" not in screen
    # The games list shows every name too (cut to fit its column, so looked up in the JSON).
    listing = json.loads(run(tmp_path, "stats", "--games", "--json").stdout)
    assert [row["players"] for row in listing] == [[visible(n) for n in names] for names in NAME_TABLES]
    players = json.loads(run(tmp_path, "stats", "--json").stdout)["players"]
    assert {p["name"] for p in players} == {visible(n) for n in every}


def test_stats_survives_a_name_that_closes_markup(tmp_path):
    """`[/]` once crashed `stats` for good: the database was valid, so --reset refused."""
    path = tmp_path / "g.json"
    path.write_text(dumps(finished_record(["[/]", "Ann"], people=True)), encoding="utf-8")
    assert run(tmp_path, "stats", "--add", str(path)).returncode == 0
    out = run(tmp_path, "stats")
    assert out.returncode == 0 and "[/]" in out.stdout


@pytest.mark.parametrize("where", ["name", "variant", "flip"])
def test_a_megabyte_string_in_a_record_is_one_short_line(tmp_path, where):
    data = finished_record(["Ann", "Ben"])
    if where == "name":
        data["players"][0]["name"] = BIG
    elif where == "variant":
        data["rules"]["variants"] = [BIG]
    else:
        data["rounds"][0]["turns"][0]["flip"] = BIG
    path = tmp_path / "big.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    for args in (("replay", str(path), "--summary"), ("stats", "--add", str(path))):
        out = run(tmp_path, *args)
        assert out.returncode == 2 and out.stdout == ""
        assert len(out.stderr.splitlines()) == 1 and len(out.stderr) < 400, out.stderr[:500]


@pytest.mark.parametrize("payload", ESCAPES + [SURROGATE, "", "x" * 17])
def test_play_refuses_a_typed_name_with_control_characters(tmp_path, payload):
    out = run(tmp_path, "play", "--bots", "1", "--name", payload)
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.startswith("duckcover: --name") and len(out.stderr.splitlines()) == 1
    assert "\x1b" not in out.stderr and "\u202e" not in out.stderr


def test_play_refuses_pass_and_play_names_with_control_characters(tmp_path):
    out = run(tmp_path, "play", "--humans", "Ann,\x1b[2JBob")
    assert out.returncode == 2 and out.stdout == "" and "\x1b[2J" not in out.stderr
    assert "control characters" in out.stderr


def test_the_replay_viewer_on_a_terminal_draws_no_escape_of_a_name(tmp_path, records):
    """`duckcover replay FILE` on a terminal opens the viewer: what it writes holds none of the
    names' escape sequences (the names show as text; the app's own codes are its own)."""
    main, child = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "duckcover", "replay", str(records[0]), "--lang", "en"],
                            stdin=child, stdout=child, stderr=child, env=env(tmp_path), start_new_session=True)
    os.close(child)
    try:
        seen = read_terminal(main, b"pwned", 60)
        os.write(main, b"q")
        seen += read_terminal(main, None, 30)
        code = proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(main)
    text = seen.decode("utf-8", "replace")
    assert code == 0 and b"pwned" in seen
    for marker in RAW_MARKERS:
        assert marker not in text, marker
    assert "Traceback" not in text
