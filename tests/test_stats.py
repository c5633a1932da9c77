"""History & statistics: finished games in SQLite, per-player figures, a corrupt or newer database."""
from __future__ import annotations

import copy
import functools
import json
import os
import random
import sqlite3
import subprocess
import sys

import pytest

from duckcover.engine import CARDS, Move
from duckcover.engine.game import CHOOSING, Game, Phase, random_layout
from duckcover.players.harness import play_game
from duckcover.saves import stats
from duckcover.saves.paths import ENV_VAR, data_dir
from duckcover.saves.record import dumps, loads, replay, to_record
from duckcover.saves.stats import CORRUPT, NEWER, RECORD, StatsError
from duckcover_bots.greedy import GreedyBot
from duckcover_bots.random_bot import RandomBot

NAMES = ["Ann", "Bob", "Cy"]


def finished_record(seed: int, names=NAMES, as_bots: bool = False) -> dict:
    """A finished game played by bots; its seats are people called `names` (the statistics then
    count them by name) unless `as_bots`, when the record says which bot sat where."""
    bots = [GreedyBot(), RandomBot(), GreedyBot()][: len(names)]
    game = play_game(bots, seed=seed, names=names)
    return to_record(game, bots=[bot.name for bot in bots] if as_bots else None)


def mirrored_record(seed: int) -> dict:
    """Two players with the same layouts making the same moves: the victory must be shared."""
    game = Game(["Ann", "Bob"], seed=seed, start=False)
    bot = GreedyBot()
    rng = random.Random(seed)
    while not game.over:
        layout = random_layout(rng)
        game.start_round([layout, copy.deepcopy(layout)])
        while game.phase is Phase.FLIP:
            game.flip()
            while game.phase in CHOOSING:
                move = bot.choose(game.view(0))
                twin = Move(CARDS[1][move.card.number], move.to) if move else None
                game.play([move, twin])
    return to_record(game)


def expected_figures(records: list[dict]) -> dict[str, dict]:
    """What the statistics should say, computed straight from the replayed games."""
    out: dict[str, dict] = {}
    for data in records:
        game = replay(data)
        outcome = game.outcome()
        for seat, name in enumerate(game.names):
            scores = [result.scores[seat] for result in game.results]
            row = out.setdefault(name, {"games": 0, "wins": 0, "totals": [], "rounds": [], "singles": 0})
            row["games"] += 1
            row["wins"] += seat in outcome.winners
            row["totals"].append(outcome.totals[seat])
            row["rounds"] += scores
            row["singles"] += sum(seat in result.single_stack for result in game.results)
    return out


@pytest.fixture
def db(tmp_path, monkeypatch):
    monkeypatch.setenv(ENV_VAR, str(tmp_path))
    return tmp_path / "stats.db"


def test_data_dir_and_default_database_follow_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv(ENV_VAR, str(tmp_path / "elsewhere"))
    assert data_dir() == tmp_path / "elsewhere"
    assert stats.default_path() == tmp_path / "elsewhere" / "stats.db"
    monkeypatch.delenv(ENV_VAR)
    assert data_dir().name.lower() == "duckcover"


def test_figures_after_two_finished_games(db):
    records = [finished_record(1), finished_record(2)]
    assert [stats.add_game(data) for data in records] == [True, True]
    assert db.exists()  # the default path, inside DUCKCOVER_DATA
    expected = expected_figures(records)
    players = stats.load()
    assert {p.name for p in players} == set(NAMES)
    for p in players:
        want = expected[p.name]
        assert (p.games, p.wins, p.rounds, p.single_stacks) == (2, want["wins"], 6, want["singles"])
        assert p.average == pytest.approx(sum(want["totals"]) / 2)
        assert (p.best_round, p.worst_round) == (min(want["rounds"]), max(want["rounds"]))
        assert p.win_rate == pytest.approx(want["wins"] / 2)
    assert sum(p.single_stacks for p in players) > 0  # the greedy games do end on single stacks


def test_players_sorted_by_wins_then_lowest_average(db):
    for seed in range(1, 5):
        stats.add_game(finished_record(seed))
    players = stats.load()
    keys = [(-p.wins, p.average) for p in players]
    assert keys == sorted(keys)


def test_games_keep_outcome_and_the_record_itself(db):
    data = finished_record(3)
    stats.add_game(data)
    (row,) = stats.games()
    game = replay(data)
    outcome = game.outcome()
    assert row.players == tuple(NAMES)
    assert row.totals == outcome.totals and row.winners == outcome.winners
    assert row.winner_names == tuple(NAMES[seat] for seat in outcome.winners)
    assert row.variants == () and row.rounds == 3 and row.decided_by == outcome.decided_by
    assert row.date.endswith("+00:00")
    assert stats.record(row.id) == data
    with pytest.raises(StatsError):
        stats.record(row.id + 1)


def test_variants_are_stored(db):
    from duckcover.engine import Rules

    game = play_game([GreedyBot(), GreedyBot()], rules=Rules(variants=frozenset({"competition", "pressure"})), seed=4)
    stats.add_game(to_record(game))
    assert stats.games()[0].variants == ("competition", "pressure")


def test_the_same_game_twice_counts_once(db):
    data = finished_record(5)
    assert stats.add_game(data) is True
    assert stats.add_game(data) is False
    # Re-saved: pretty-printed, keys reordered, an app's timestamp added. Still the same game.
    resaved = loads(dumps({"saved_at": "2026-01-01T00:00:00Z", **dict(reversed(list(data.items())))}))
    assert stats.add_game(resaved) is False
    assert len(stats.games()) == 1
    assert all(p.games == 1 for p in stats.load())
    assert stats.add_game(finished_record(6)) is True


def test_shared_victory_is_a_win_for_each_winner(db):
    data = mirrored_record(7)
    outcome = replay(data).outcome()
    assert outcome.decided_by == "shared" and outcome.winners == (0, 1)
    stats.add_game(data)
    assert {(p.name, p.games, p.wins) for p in stats.load()} == {("Ann", 1, 1), ("Bob", 1, 1)}


def test_unfinished_record_is_refused_and_nothing_is_written(db):
    data = finished_record(8)
    data["rounds"] = data["rounds"][:2]
    with pytest.raises(StatsError, match="not finished") as caught:
        stats.add_game(data)
    assert caught.value.kind == RECORD
    data["rounds"][-1]["turns"] = data["rounds"][-1]["turns"][:3]  # mid-round
    with pytest.raises(StatsError, match="not finished"):
        stats.add_game(data)
    assert not db.exists()


@pytest.mark.parametrize("damage", ["illegal move", "not a record", "wrong format"])
def test_invalid_record_is_refused(db, damage):
    data = finished_record(9)
    if damage == "illegal move":
        turn = next(t for t in data["rounds"][0]["turns"] if t.get("moves") and t["moves"][0])
        turn["moves"][0]["to"] = [40, 40]
    elif damage == "not a record":
        data = ["a", "list"]
    else:
        data["format"] = "something-else/2"
    with pytest.raises(StatsError) as caught:
        stats.add_game(data)
    assert caught.value.kind == RECORD and "\n" not in str(caught.value)
    assert not db.exists()


def write_garbage(path) -> bytes:
    content = random.Random(11).randbytes(5000)
    path.write_bytes(content)
    return content


def test_corrupt_database_is_reported_and_left_byte_identical(db):
    content = write_garbage(db)
    for call in (lambda: stats.add_game(finished_record(1)), stats.load, stats.games, stats.check):
        with pytest.raises(StatsError) as caught:
            call()
        assert caught.value.kind == CORRUPT and "corrupt" in str(caught.value) and "\n" not in str(caught.value)
    assert db.read_bytes() == content


def foreign_database(path, user_version: int, tables: str) -> bytes:
    conn = sqlite3.connect(path)
    conn.executescript(tables)
    conn.execute(f"PRAGMA user_version = {user_version}")
    conn.commit()
    conn.close()
    return path.read_bytes()


@pytest.mark.parametrize(
    "version, tables",
    [(0, "CREATE TABLE notes (text TEXT);"), (1, "CREATE TABLE games (id INTEGER);"), (-3, "")],
    ids=["another-programs-tables", "our-version-wrong-tables", "negative-version"],
)
def test_wrong_schema_counts_as_corrupt(db, version, tables):
    content = foreign_database(db, version, tables)
    with pytest.raises(StatsError) as caught:
        stats.add_game(finished_record(1))
    assert caught.value.kind == CORRUPT
    with pytest.raises(StatsError):
        stats.load()
    assert db.read_bytes() == content


def damaged_copies(good: bytes, count: int, seed: int):
    """Flipped bytes, truncations and zeroed pages: what a crash or a bad disk leaves behind."""
    rng = random.Random(seed)
    for _ in range(count):
        data = bytearray(good)
        how = rng.choice(["flip", "truncate", "zero"])
        if how == "flip":
            for _ in range(rng.randint(1, 20)):
                data[rng.randrange(len(data))] = rng.randrange(256)
        elif how == "truncate":
            data = data[: rng.randrange(len(data))]
        else:
            at = rng.randrange(len(data))
            data[at : at + 512] = bytes(len(data[at : at + 512]))
        yield bytes(data)


def test_damaged_database_never_crashes_and_is_never_written_after_a_refusal(db):
    for seed in range(3):
        stats.add_game(finished_record(seed, ["Ann", "Bob"]))
    good, extra = db.read_bytes(), finished_record(50, ["Ann", "Bob"])
    refused = 0
    for damaged in damaged_copies(good, 40, seed=3):
        for call in (stats.load, stats.games, lambda: stats.add_game(extra)):
            db.write_bytes(damaged)
            try:
                call()
            except StatsError as err:  # anything else escaping is a crash
                refused += 1
                assert err.kind == CORRUPT and "\n" not in str(err)
                assert db.read_bytes() == damaged
    assert refused > 0


def test_newer_database_is_refused_untouched(db):
    stats.add_game(finished_record(1))
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA user_version = 2")
    conn.commit()
    conn.close()
    content = db.read_bytes()
    for call in (lambda: stats.add_game(finished_record(2)), stats.load, stats.games, stats.move_aside):
        with pytest.raises(StatsError, match="newer duckcover") as caught:
            call()
        assert caught.value.kind == NEWER
    assert db.read_bytes() == content


def test_move_aside_keeps_the_corrupt_file_and_starts_afresh(db):
    content = write_garbage(db)
    target = stats.move_aside()
    assert target.name.startswith("stats.db.corrupt-") and target.read_bytes() == content
    assert not db.exists()
    assert stats.add_game(finished_record(1)) is True
    assert stats.move_aside() is None  # healthy: nothing to move
    assert len(stats.games()) == 1


def test_reading_never_creates_the_database(db):
    assert stats.load() == [] and stats.games() == []
    assert not db.exists()


# --- the command -----------------------------------------------------------------------------
def cli(tmp_path, *args):
    env = {**os.environ, ENV_VAR: str(tmp_path), "NO_COLOR": "1", "COLUMNS": "120"}
    return subprocess.run(
        [sys.executable, "-m", "duckcover", "stats", *args], capture_output=True, text=True, env=env, timeout=60
    )


def test_cli_empty_database(tmp_path):
    out = cli(tmp_path)
    assert (out.returncode, out.stdout.strip(), out.stderr) == (0, "No finished games yet.", "")
    data = json.loads(cli(tmp_path, "--json").stdout)
    assert data.pop("rating_explained").startswith("Rating: a cautious estimate")
    assert data == {"games": 0, "players": [], "ratings": []}


def test_cli_table_chart_and_json(tmp_path, db):
    for seed in (1, 2):
        stats.add_game(finished_record(seed))
    out = cli(tmp_path)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    for p in stats.load():
        row = next(line for line in lines if f" {p.name} " in line and f"{p.average:.1f}" in line)
        assert f"{p.win_rate * 100:.0f}%" in row and f"{p.best_round:+d}" in row
    leader = stats.load()[0]
    bar = next(line for line in lines if "#" in line)
    assert leader.name in bar and "#" * 30 in bar and bar.isascii()
    assert "\x1b[" not in out.stdout  # NO_COLOR / not a terminal: plain text
    data = json.loads(cli(tmp_path, "--json").stdout)
    assert data["games"] == 2
    assert [p["name"] for p in data["players"]] == [p.name for p in stats.load()]
    assert data["players"][0]["wins"] == leader.wins


def test_cli_add_and_games(tmp_path, db):
    path = tmp_path / "game.json"
    path.write_text(dumps(finished_record(4)), encoding="utf-8")
    first, again = cli(tmp_path, "--add", str(path)), cli(tmp_path, "--add", str(path))
    assert first.returncode == again.returncode == 0
    assert "added" in first.stdout and "already" in again.stdout
    listing = json.loads(cli(tmp_path, "--games", "--json").stdout)
    assert [row["players"] for row in listing] == [NAMES]


def test_cli_refuses_an_unfinished_record(tmp_path, db):
    data = finished_record(4)
    data["rounds"] = data["rounds"][:1]
    path = tmp_path / "half.json"
    path.write_text(dumps(data), encoding="utf-8")
    out = cli(tmp_path, "--add", str(path))
    assert out.returncode == 2 and out.stderr.count("\n") == 1 and "not finished" in out.stderr
    assert "Traceback" not in out.stderr and not db.exists()


@pytest.mark.parametrize("kind", ["corrupt", "newer"])
def test_cli_unusable_database_is_one_line_and_exit_2(tmp_path, db, kind):
    if kind == "corrupt":
        content = write_garbage(db)
    else:
        content = foreign_database(db, 7, "")
    for args in ((), ("--json",), ("--games",)):
        out = cli(tmp_path, *args)
        assert out.returncode == 2 and out.stdout == ""
        assert out.stderr.count("\n") == 1 and kind in out.stderr and "Traceback" not in out.stderr
    assert db.read_bytes() == content


def test_cli_db_option_and_reset(tmp_path):
    other = tmp_path / "sub" / "mine.db"
    other.parent.mkdir()
    content = write_garbage(other)
    assert cli(tmp_path, "--db", str(other)).returncode == 2
    out = cli(tmp_path, "--db", str(other), "--reset")
    assert out.returncode == 0 and "mine.db.corrupt-" in out.stdout
    (moved,) = other.parent.glob("mine.db.corrupt-*")
    assert moved.read_bytes() == content
    assert cli(tmp_path, "--db", str(other)).returncode == 2  # moved aside: no database there now


@pytest.mark.parametrize("args", [(), ("--json",), ("--games",)])
def test_cli_db_that_does_not_exist_is_one_line_and_status_2(tmp_path, args):
    missing = tmp_path / "missing" / "dir" / "x.db"
    out = cli(tmp_path, "--db", str(missing), *args)
    assert (out.returncode, out.stdout) == (2, "")
    assert out.stderr == f"duckcover stats: {missing}: no such database file\n"
    assert not missing.parent.exists()  # nothing created on the way


def test_stats_modules_never_import_textual():
    code = (
        "import sys, duckcover.saves.stats, duckcover.saves.paths, duckcover.commands.stats\n"
        "print(','.join(sorted(m for m in sys.modules if m.split('.')[0] == 'textual')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_unwritable_data_directory_is_a_stats_error(tmp_path, monkeypatch):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    monkeypatch.setenv(ENV_VAR, str(blocker))
    assert stats.load() == []
    with pytest.raises(StatsError) as caught:
        stats.add_game(finished_record(1))
    assert caught.value.kind == stats.IO
    assert blocker.read_text() == "not a directory"
    out = cli(blocker, "--add", str(tmp_path / "missing.json"))
    assert out.returncode == 2 and out.stderr.count("\n") == 1


# --- rows by who played, not by the seat's name (issue 30, finding 5) ---------------------------
def game_against(level: str, seed: int, human: str = "You") -> dict:
    """`human` against a difficulty's bot seated as "Jackson", recorded as the app records it
    (a copy: the same seeds make the same game, played once per process; "hard" is the expert)."""
    return copy.deepcopy(_game_against(level, seed, human))


@functools.lru_cache(maxsize=None)
def _game_against(level: str, seed: int, human: str) -> dict:
    from duckcover.players.plugins import resolve_bot, stamp_bot_versions

    game = play_game([resolve_bot("greedy"), resolve_bot(level, seed=seed)], seed=seed, names=[human, "Jackson"])
    return stamp_bot_versions(to_record(game, bots=[None, level]))


def seats_by_row(players) -> int:
    return sum(p.games for p in players)


@pytest.mark.keys  # the expert plays a game: the slow tier's
def test_a_seat_name_two_levels_sat_under_is_two_players(db):
    for seed, level in ((1, "medium"), (2, "hard"), (3, "medium")):
        stats.add_game(game_against(level, seed))
    players = {p.key: p for p in stats.load()}
    assert set(players) == {"name:You", "bot:greedy@1", "bot:expert@1"}
    assert (players["bot:greedy@1"].games, players["bot:expert@1"].games, players["name:You"].games) == (2, 1, 3)
    assert players["bot:greedy@1"].kind == "bot" and players["name:You"].kind == "human"
    assert "Jackson" not in {p.name for p in players.values()}


def test_a_person_called_like_a_bots_seat_is_not_the_bot(db):
    stats.add_game(game_against("medium", 1, human="Jackson"))
    rows = stats.load()
    assert sorted(p.key for p in rows) == ["bot:greedy@1", "name:Jackson"]


def test_the_nameless_player_is_one_row_and_one_rating_in_every_language(db):
    stats.add_game(game_against("medium", 1, human="You"))
    stats.add_game(game_against("medium", 2, human="Du"))
    stats.add_game(game_against("medium", 3, human="Vous"))
    rows = {p.key: p for p in stats.load()}
    assert rows["name:You"].games == 3
    assert stats.ratings(db)["name:You"].games == 3


@pytest.mark.keys  # the expert plays a game: the slow tier's
@pytest.mark.parametrize("era", ["before-ratings", "seats-in-any-language"])
def test_an_older_database_reads_by_player_with_every_row_kept_and_the_file_untouched(db, era):
    """Databases written before this change: without the rating seats at all (keys come from the
    records), or with the nameless player stored as "Du" in one game. Nothing is rewritten: the
    identity is read, and every result row counts in exactly one player's figures."""
    for seed, level in ((1, "medium"), (2, "hard"), (3, "easy")):
        stats.add_game(game_against(level, seed))
    with sqlite3.connect(db) as conn:
        if era == "before-ratings":
            conn.execute("DROP TABLE rating_seats")
        else:
            keys = json.loads(conn.execute("SELECT keys FROM rating_seats WHERE game_id = 1").fetchone()[0])
            conn.execute("UPDATE rating_seats SET keys = ? WHERE game_id = 1",
                         (json.dumps(["name:Du", *keys[1:]]),))
        result_rows = conn.execute("SELECT COUNT(*) FROM results").fetchone()[0]
    conn.close()
    before = db.read_bytes()
    players = {p.key: p for p in stats.load()}
    assert set(players) == {"name:You", "bot:greedy@1", "bot:expert@1", "bot:random@1"}
    assert seats_by_row(players.values()) == result_rows == 6
    assert stats.ratings(db, use_cache=False)["name:You"].games == 3
    assert db.read_bytes() == before  # read, never migrated in place: an older duckcover still reads it
    stats.add_game(game_against("medium", 4))  # and it takes new games as before
    assert {p.key: p.games for p in stats.load()}["bot:greedy@1"] == 2
