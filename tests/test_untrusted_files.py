"""Issue 10, files: a record or settings file is read with a bound, only if it is a regular file,
whatever bytes it holds; error lines quote values as short excerpts; absurd values are refused."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from duckcover.common.files import FileRefused, read_bounded, remove_leftovers
from duckcover.saves import settings, stats
from duckcover.saves.record import RECORD_MAX, RecordError, read_file, replay
from untrusted_payloads import finished_record


def run(tmp_path, *args, timeout=30) -> subprocess.CompletedProcess:
    env = {**os.environ, "DUCKCOVER_DATA": str(tmp_path)}
    return subprocess.run([sys.executable, "-m", "duckcover", *args], capture_output=True, text=True,
                          env=env, timeout=timeout, stdin=subprocess.DEVNULL)


@pytest.fixture
def fifo(tmp_path):
    path = tmp_path / "pipe.json"
    os.mkfifo(path)
    return path


@pytest.mark.parametrize("target", ["/dev/zero", "/dev/urandom", "fifo", "directory"])
def test_replay_and_stats_add_refuse_what_is_not_a_regular_file(tmp_path, fifo, target):
    path = {"fifo": str(fifo), "directory": str(tmp_path)}.get(target, target)
    for args in (("replay", path, "--summary"), ("stats", "--add", path)):
        out = run(tmp_path, *args)  # the timeout is the hang guard
        assert out.returncode == 2 and out.stdout == ""
        assert "not a regular file" in out.stderr and len(out.stderr.splitlines()) == 1


def test_a_fifo_is_refused_without_waiting_for_a_writer(fifo):
    with pytest.raises(FileRefused):
        read_bounded(fifo, 100)


def test_a_record_larger_than_the_bound_is_refused_unread(tmp_path):
    path = tmp_path / "big.json"
    with open(path, "wb") as handle:
        handle.truncate(RECORD_MAX + 1)  # sparse: nothing to read, and nothing is
    with pytest.raises(RecordError, match="larger than"):
        read_file(path)
    out = run(tmp_path, "replay", str(path), "--summary")
    assert out.returncode == 2 and "larger than" in out.stderr and out.stdout == ""


@pytest.mark.parametrize("payload", [b"\xff\xfe{}", b'{"format": "duckcover-record/1", "players": [{"name": "Jos\xe9"}]}'])
def test_bytes_that_are_not_utf8_are_one_line(tmp_path, payload):
    path = tmp_path / "bad.json"
    path.write_bytes(payload)
    for args in (("replay", str(path), "--summary"), ("stats", "--add", str(path))):
        out = run(tmp_path, *args)
        assert out.returncode == 2 and "not UTF-8" in out.stderr and len(out.stderr.splitlines()) == 1


def test_lone_surrogates_in_a_record_are_no_crash(tmp_path):
    data = finished_record(["Ann", "Ben"], people=True)  # people: `stats` lists them by name
    data["players"][0]["name"] = "Jos\udce9"
    data["rules"]["variants"] = ["\ud800"]
    path = tmp_path / "s.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    for args in (("replay", str(path), "--summary"), ("stats", "--add", str(path))):
        out = run(tmp_path, *args)
        assert out.returncode == 2 and "\\ud800" in out.stderr and "Traceback" not in out.stderr
    data["rules"]["variants"] = []
    path.write_text(json.dumps(data), encoding="utf-8")
    for args in (("replay", str(path), "--summary"), ("stats", "--add", str(path)), ("stats",)):
        out = run(tmp_path, *args)
        assert out.returncode == 0 and out.stderr == ""
        assert "Jos\\xe9" in out.stdout or args[1] == "--add"


@pytest.mark.parametrize("table", [[2**63] * 12, [10**30] + [1] * 11, [100] * 12])
def test_absurd_splash_values_are_refused(tmp_path, table):
    data = finished_record(["Ann", "Ben"])
    data["rules"]["splashes"] = table
    with pytest.raises(RecordError, match="0-99"):
        replay(data)
    path = tmp_path / "r.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    out = run(tmp_path, "stats", "--add", str(path))
    assert out.returncode == 2 and len(out.stderr.splitlines()) == 1 and "Traceback" not in out.stderr


def test_statistics_use_the_published_splash_table(tmp_path):
    """Changing only rules.splashes neither adds the game again nor invents its totals."""
    db = tmp_path / "stats.db"
    data = finished_record(["Ann", "Ben"])
    assert stats.add_game(data, db)
    for table in ([0] * 12, [1] * 12, [5] * 12):
        assert not stats.add_game({**data, "rules": {**data["rules"], "splashes": table}}, db)
    (row,) = stats.games(db)
    assert list(row.totals) == list(replay(data).totals)
    cheat = finished_record(["Cat", "Dog"], seed=5)
    cheat["rules"]["splashes"] = [0] * 12
    assert stats.add_game(cheat, db)
    assert list(stats.games(db)[1].totals) == list(replay({**cheat, "rules": {}}).totals)


def test_reshuffles_are_checked(tmp_path):
    data = finished_record(["Ann", "Ben"], seed=7)
    stated = [entry for entry in data["rounds"] if entry.get("reshuffles")]
    target = stated[0] if stated else data["rounds"][0]
    target["reshuffles"] = [["max"] * 3]
    with pytest.raises(RecordError, match="reshuffles"):
        replay(data)
    target["reshuffles"] = "often"
    with pytest.raises(RecordError, match="reshuffles"):
        replay(data)


def test_error_lines_quote_values_as_short_excerpts(tmp_path):
    data = finished_record(["Ann", "Ben"])
    data["rules"]["max_by"] = "\x1b[2J" + "z" * 200
    with pytest.raises(RecordError) as caught:
        replay(data)
    message = str(caught.value)
    assert "\x1b" not in message and "\\x1b[2J" in message and len(message) < 160


@pytest.mark.parametrize("content", [b"\xff\xfe\x00{", b"[" * 100000, b'{"lang": "\x1b[2Jxx"}', b"{" + b" " * 70000 + b"}"])
def test_a_broken_settings_file_gives_the_defaults_and_one_printable_line(tmp_path, content):
    settings.settings_path(tmp_path).write_bytes(content)
    loaded, problem = settings.load(tmp_path)
    assert loaded == settings.Settings() and problem
    assert problem.isprintable() and len(problem) < len(str(tmp_path)) + 200


def test_the_app_starts_with_a_settings_file_that_is_not_utf8(tmp_path):
    from duckcover.app import AppOptions, create_app

    settings.settings_path(tmp_path).write_bytes(b'{"lang": "\xe9"}')
    app = create_app(AppOptions(data_dir=tmp_path, lang="en"))
    assert app.settings == settings.Settings() and "UTF-8" in app.settings_problem or "utf-8" in app.settings_problem


def test_saving_settings_leaves_no_temporary_file(tmp_path):
    settings.save(settings.Settings(lang="de"), tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["settings.json"]


def test_leftover_temporary_files_are_removed_once_old(tmp_path):
    old, young = tmp_path / ".settings.json.abc.tmp", tmp_path / ".x.json.def.tmp"
    old.write_text("")
    young.write_text("")
    os.utime(old, (0, 0))
    assert remove_leftovers(tmp_path) == 1
    assert not old.exists() and young.exists()  # a young one may be another instance's save in flight


def test_a_damaged_row_is_corrupt_for_stats_and_for_reset_alike(tmp_path):
    import sqlite3

    db = tmp_path / "stats.db"
    stats.add_game(finished_record(["Ann", "Ben"]), db)
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE games SET players = 'not json'")
    with pytest.raises(stats.StatsError) as caught:
        stats.games(db)
    assert caught.value.kind == stats.CORRUPT
    moved = stats.move_aside(db)  # --reset agrees: it moves the file aside
    assert moved is not None and not db.exists()
