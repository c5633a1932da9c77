"""Ratings (duckcover/saves/ratings.py): derived from the finished games in the statistics database,
in order, by OpenSkill's PlackettLuce; only the replayed moves count.

Regenerate the golden file deliberately (and review the diff):
    .venv/bin/python tests/test_ratings.py --regenerate
"""
from __future__ import annotations

import copy
import json
import sqlite3
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from duckcover.players.harness import play_game
from duckcover.saves import ratings, stats
from duckcover.saves.ratings import RatedGame, Rating, compute, ranks
from duckcover.saves.record import to_record
from duckcover_bots.greedy import GreedyBot
from duckcover_bots.random_bot import RandomBot

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_stats import mirrored_record  # noqa: E402

GOLDEN = Path(__file__).resolve().parent / "golden" / "ratings.json"
POOL = ["Ann", "Bob", "Cy", "Dee", "Eve", "Finn", "Gus"]


def seeded_record(seed: int, players: int, bots: tuple[str, ...] = ()) -> dict:
    """A finished game of `players` seats; seats named in `bots` (by position) are that bot."""
    kinds = [GreedyBot if (seed + seat) % 3 else RandomBot for seat in range(players)]
    names = [POOL[(seed + seat) % len(POOL)] for seat in range(players)]
    game = play_game([kind() for kind in kinds], seed=seed, names=names)
    labels = [bots[seat] if seat < len(bots) else None for seat in range(players)]
    record = to_record(game, bots=labels)
    for player in record["players"]:
        if "bot" in player:
            player["bot_version"] = "1"
    return record


def fixed_games() -> list[dict]:
    """Twelve games of 2-7 seats, humans by name and one bot: the golden file's input."""
    return [seeded_record(seed, 2 + seed % 6, bots=("greedy",) if seed % 4 == 0 else ()) for seed in range(12)]


def as_table(standings: dict) -> dict:
    return {key: {**s.rating.as_dict(), "games": s.games} for key, s in sorted(standings.items())}


@pytest.fixture
def db(tmp_path):
    return tmp_path / "stats.db"


def test_ratings_of_a_fixed_set_of_games_equal_the_golden_file(db):
    for record in fixed_games():
        assert stats.add_game(record, db)
    assert as_table(stats.ratings(db, use_cache=False)) == json.loads(GOLDEN.read_text())


def test_a_tie_moves_equal_players_to_equal_ratings(db):
    stats.add_game(mirrored_record(3), db)  # the same moves on the same layouts: a shared win
    game = stats.games(db)[0]
    assert game.winners == (0, 1)
    board = stats.ratings(db)
    ann, bob = board["name:Ann"].rating, board["name:Bob"].rating
    assert ann == bob
    assert ann.mu == pytest.approx(25.0) and ann.sigma < Rating().sigma  # a tie teaches, moves nobody


def test_two_player_game_winner_up_loser_down_by_the_same_amount(db):
    record = seeded_record(1, 2)
    stats.add_game(record, db)
    game = stats.games(db)[0]
    winner, loser = game.players[game.winners[0]], game.players[1 - game.winners[0]]
    board = stats.ratings(db)
    up, down = board[f"name:{winner}"].rating, board[f"name:{loser}"].rating
    assert up.mu > 25 > down.mu
    assert up.mu - 25 == pytest.approx(25 - down.mu)
    assert board[f"name:{winner}"].games == board[f"name:{loser}"].games == 1


def test_seven_player_game_rates_in_the_order_of_the_totals(db):
    stats.add_game(seeded_record(5, 7), db)
    game = stats.games(db)[0]
    board = stats.ratings(db)
    order = ranks(game.totals, game.winners)
    for a in range(7):
        for b in range(7):
            mu_a, mu_b = (board[f"name:{game.players[s]}"].rating.mu for s in (a, b))
            if order[a] < order[b]:
                assert mu_a > mu_b
            elif order[a] == order[b]:
                assert mu_a == pytest.approx(mu_b)


def test_ranks_put_winners_first_then_totals_with_ties():
    assert ranks([10, 3, 3, 20], [1, 2]) == (1, 0, 0, 2)
    assert ranks([5, 5, 7], [0]) == (0, 1, 2)  # a tie-break decided: the loser on 5 is second
    assert ranks([4, 4, 4], [0, 1, 2]) == (0, 0, 0)


def test_a_new_bot_version_starts_fresh(db):
    for seed in range(4):
        stats.add_game(seeded_record(seed, 3, bots=("greedy",)), db)
    newer = seeded_record(10, 3, bots=("greedy",))
    newer["players"][0]["bot_version"] = "2"
    stats.add_game(newer, db)
    board = stats.ratings(db)
    assert board["bot:greedy@1"].games == 4
    assert board["bot:greedy@2"].games == 1
    played = stats._rated_games(db)
    earlier = compute(played[:-1])
    assert "bot:greedy@2" not in earlier  # unknown before: it enters at a newcomer's rating
    ratings.rate_game(ratings.model(), earlier, played[-1])
    assert earlier["bot:greedy@2"].rating == board["bot:greedy@2"].rating


def test_a_bot_is_its_difficulty_and_version_never_a_name(db):
    from duckcover.players.plugins import stamp_bot_versions

    record = seeded_record(2, 3, bots=("hard", None, "easy"))
    for player in record["players"]:
        player.pop("bot_version", None)
    stamp_bot_versions(record)  # what the app does when it saves a game
    del record["players"][2]["bot_version"], record["players"][2]["bot_name"]  # an older record
    stats.add_game(record, db)
    keys = set(stats.ratings(db))
    assert keys == {"bot:expert@1", "name:" + record["players"][1]["name"], "bot:easy@?"}


def test_reset_then_re_adding_the_same_files_gives_the_same_ratings(tmp_path):
    files = []
    for index, record in enumerate(fixed_games()[:8]):
        path = tmp_path / f"game{index}.json"
        path.write_text(json.dumps(record))
        files.append(str(path))
    db = tmp_path / "stats.db"
    before = _cli_ratings(db, files)
    db.write_bytes(b"this is not a database" * 100)  # damaged: --reset moves it aside
    assert _cli(["--db", str(db), "--reset"]) == 0
    assert not db.exists()
    assert _cli_ratings(db, files) == before


def _cli(args: list[str]) -> int:
    from duckcover.cli import main

    return main(["stats", *args])


def _cli_ratings(db: Path, files: list[str]) -> dict:
    assert _cli(["--db", str(db), "--add", *files]) == 0
    return as_table(stats.ratings(db))


def test_stats_json_gives_every_players_rating(db, capsys):
    for record in fixed_games()[:5]:
        stats.add_game(record, db)
    assert _cli(["--db", str(db), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    board = stats.ratings(db)
    for entry in data["players"]:
        expected = board[entry["key"]].rating.as_dict()
        assert entry["rating"] == expected and set(expected) == {"mu", "sigma", "ordinal"}
        assert entry["rated_games"] == board[entry["key"]].games
    ordinals = [item["rating"]["ordinal"] for item in data["ratings"]]
    assert ordinals == sorted(ordinals, reverse=True)
    assert {item["key"] for item in data["ratings"]} == set(board)


def test_stats_table_shows_ratings_and_the_change_over_the_last_ten(db, capsys):
    for seed in range(12):
        stats.add_game(seeded_record(seed, 2), db)  # Ann..Gus in pairs
    assert _cli(["--db", str(db)]) == 0
    out = capsys.readouterr().out
    board = stats.ratings(db)
    assert "Rating" in out and "Last 10" in out and "a cautious estimate of skill" in out
    busiest = max(board.values(), key=lambda s: s.games)
    assert busiest.games > 1
    line = next(line for line in out.splitlines() if f" {busiest.label} " in line and "." in line
                and f"{busiest.rating.ordinal:.1f}" in line)
    assert f"{busiest.change():+.1f}" in line


def test_change_over_the_last_ten_counts_from_the_eleventh_last_game():
    standing = ratings.Standing("name:x", history=[float(v) for v in range(15)])
    assert standing.change() == 14 - 4
    assert ratings.Standing("name:y", history=[3.0, 5.0]).change() == 5.0  # from a newcomer's 0


def test_a_record_cannot_set_a_rating(db, tmp_path):
    clean = seeded_record(4, 3)
    forged = copy.deepcopy(clean)
    forged["rating"] = {"Ann": {"mu": 99, "sigma": 0.1}}
    forged["ratings"] = [{"key": "name:Cy", "mu": 1000}]
    forged["totals"], forged["winners"], forged["rated"] = [0, 0, 0], [0, 1, 2], True
    for player in forged["players"]:
        player["rating"] = {"mu": 50, "sigma": 1, "ordinal": 47}
        player["account"] = ["root", "SHA256:forged"]  # only the server's own games are believed
    stats.add_game(forged, db)
    other = tmp_path / "clean.db"
    stats.add_game(clean, other)
    assert as_table(stats.ratings(db)) == as_table(stats.ratings(other))
    assert not any(key.startswith("ssh:") for key in stats.ratings(db))


def test_a_record_can_only_opt_out_of_the_ratings(db):
    unrated = seeded_record(6, 3)
    unrated["rated"] = False
    stats.add_game(unrated, db)
    assert stats.ratings(db) == {}
    assert len(stats.load(db)) == 3  # it still counts in the statistics


def test_names_stay_text_in_keys_and_tables(db, capsys):
    record = seeded_record(7, 2)
    record["players"][0]["name"] = "[red]x[/]\x1b[2J"
    record["players"][1]["bot"] = "[link=http://x]y[/link]\x07"
    stats.add_game(record, db)
    assert _cli(["--db", str(db)]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out
    assert out.count("[red]x[/]") >= 2  # figures and ratings: shown literally, never as markup
    for key in stats.ratings(db):
        assert key.isprintable()


def test_server_accounts_are_believed_only_from_the_servers_own_games(db):
    record = seeded_record(8, 2)
    record["players"][0]["account"] = ["ann", "SHA256:abc"]
    stats.add_game(record, db, accounts=True)
    board = stats.ratings(db)
    assert "ssh:ann SHA256:abc" in board and board["ssh:ann SHA256:abc"].label == "ann"


def test_the_cache_is_invalidated_by_a_new_game_and_a_damaged_cache_is_recomputed(db):
    for seed in range(3):
        stats.add_game(seeded_record(seed, 3), db)
    first = as_table(stats.ratings(db))
    cache = db.with_name(db.name + stats.CACHE_SUFFIX)
    assert cache.is_file()
    stats.add_game(seeded_record(9, 3), db)
    second = as_table(stats.ratings(db))
    assert second != first and second == as_table(stats.ratings(db, use_cache=False))
    cache.write_text("{not json")
    assert as_table(stats.ratings(db)) == second


def test_a_model_change_invalidates_the_cache(db, monkeypatch):
    stats.add_game(seeded_record(1, 3), db)
    stats.ratings(db)
    cache = db.with_name(db.name + stats.CACHE_SUFFIX)
    data = json.loads(cache.read_text())
    for values in data["standings"].values():
        values[0] = 99.0  # what a stale model would have said
    cache.write_text(json.dumps(data))
    assert all(s.rating.mu == 99.0 for s in stats.ratings(db).values())  # same model: cache trusted
    monkeypatch.setattr(ratings, "MODEL_VERSION", ratings.MODEL_VERSION + "-changed")
    assert all(s.rating.mu != 99.0 for s in stats.ratings(db).values())


def test_a_database_from_before_the_ratings_reads_keys_from_the_records(db, tmp_path):
    for record in fixed_games()[:6]:
        stats.add_game(record, db)
    expected = as_table(stats.ratings(db, use_cache=False))
    conn = sqlite3.connect(db)
    conn.execute("DROP TABLE rating_seats")
    conn.commit()
    conn.close()
    assert as_table(stats.ratings(db, use_cache=False)) == expected


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 3), min_size=2, max_size=7))
def test_one_game_from_equal_ratings_orders_players_by_rank(places):
    keys = tuple(f"name:p{i}" for i in range(len(places)))
    board = compute([RatedGame(1, keys, tuple(places))])
    for i, a in enumerate(places):
        for j, b in enumerate(places):
            mu_i, mu_j = board[keys[i]].rating.mu, board[keys[j]].rating.mu
            if a < b:
                assert mu_i > mu_j
            elif a == b:
                assert mu_i == pytest.approx(mu_j)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.permutations(range(4)), st.lists(st.integers(0, 2), min_size=4, max_size=4)),
                min_size=1, max_size=8))
def test_ratings_depend_only_on_the_games_in_order(games_):
    played = [RatedGame(i, tuple(f"name:{n}" for n in order), tuple(r)) for i, (order, r) in enumerate(games_)]
    once, twice = compute(played), compute(list(played))
    assert {k: v.rating for k, v in once.items()} == {k: v.rating for k, v in twice.items()}
    assert all(s.games == len(s.history) for s in once.values())


if __name__ == "__main__" and "--regenerate" in sys.argv:
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "stats.db"
        for item in fixed_games():
            stats.add_game(item, path)
        GOLDEN.write_text(json.dumps(as_table(stats.ratings(path, use_cache=False)), indent=1) + "\n")
    print(f"wrote {GOLDEN}")


def test_the_app_stamps_who_each_bot_seat_is_into_its_record(db):
    from helpers import finished_controller

    record = finished_controller().record()
    assert [(p.get("bot_name"), p.get("bot_version")) for p in record["players"]] == [
        (None, None), ("greedy", "1"), ("greedy", "1")]
    stats.add_game(record, db)
    assert set(stats.ratings(db)) == {"name:Ann", "bot:greedy@1"}


def test_a_file_bots_version_is_its_source_hash_and_the_file_never_runs_here(tmp_path):
    from duckcover.players.plugins import bot_version

    marker = tmp_path / "ran"
    path = tmp_path / "mine.py"
    path.write_text(f"open({str(marker)!r}, 'w').close()\nfrom duckcover.players.bot import Bot\n"
                    "class Mine(Bot):\n    def choose(self, view):\n        return None\n")
    first = bot_version(f"{path}:Mine")
    assert first.startswith("sha256:") and not marker.exists()
    path.write_text(path.read_text() + "# changed\n")
    assert bot_version(f"{path}:Mine") not in (first, None)  # a changed bot is a new entry
    assert bot_version("hard") == bot_version("expert") == "1"


# --- one bot, one name, one number (issue 30, finding 5) ---------------------------------------
def test_a_measured_bot_starts_from_its_published_rating_and_nothing_else_does():
    from duckcover.common.measured import MEASURED_BOTS

    version, mu, sigma = MEASURED_BOTS["greedy"]
    assert ratings.starting_rating(f"bot:greedy@{version}") == Rating(mu, sigma)
    assert ratings.starting_rating("bot:greedy@2") == Rating()  # another version: not measured
    assert ratings.starting_rating("bot:greedy@?") == Rating() == ratings.starting_rating("name:greedy")
    assert ratings.starting_rating(f"bot:greedy@{version}", published=False) == Rating()
    game = RatedGame(1, ("name:Ann", f"bot:greedy@{version}"), (0, 1))  # Ann beats Medium
    learned = compute([game])[f"bot:greedy@{version}"]
    assert learned.rating.mu < mu and abs(learned.rating.mu - mu) < 3  # moved from its start, a little
    assert learned.change() == pytest.approx(learned.history[-1] - (mu - 3 * sigma))
    assert compute([game], published=False)[f"bot:greedy@{version}"].rating.mu < 25  # measuring: from scratch
    assert ratings.current_rating("bot:expert@1", {}) == Rating(*MEASURED_BOTS["expert"][1:])
    assert ratings.current_rating("name:Nobody", {}) is None


def test_easy_is_on_the_ladders_scale_below_it():
    from duckcover.players.difficulty import LADDER, LEVEL_RATINGS

    assert LEVEL_RATINGS["easy"][0] < min(LEVEL_RATINGS[level][0] for level in LADDER)


def test_new_published_figures_make_a_new_model_version():
    from duckcover.common.measured import MEASURED_BOTS

    assert ratings.MODEL_VERSION == ratings.model_version(MEASURED_BOTS)
    assert ratings.model_version({**MEASURED_BOTS, "greedy": ("1", 40.0, 2.0)}) != ratings.MODEL_VERSION
    # ... and a new model version recomputes every cache: test_a_model_change_invalidates_the_cache


def played_against(level: str, seed: int, data_dir: Path) -> dict:
    """A finished game of "You" against a difficulty's bot, recorded as the app records it (the
    bot a label stands for and its version stamped: TurnController), added to the statistics."""
    from duckcover.players.plugins import resolve_bot, stamp_bot_versions

    game = play_game([resolve_bot("greedy"), resolve_bot(level, seed=seed)], seed=seed, names=["You", "Jackson"])
    record = stamp_bot_versions(to_record(game, bots=[None, level]))
    assert stats.add_game(record, data_dir / stats.DB_NAME)
    return record


def lines_of(widget) -> list[str]:
    return [widget.render_line(y).text.rstrip() for y in range(widget.size.height)]


@pytest.mark.keys  # an app, a whole game and a real server: the slow tier's
async def test_the_numbers_a_newcomer_sees_for_one_bot_are_the_same_everywhere(tmp_path, capsys, monkeypatch):
    """One game against Medium, then: the set-up screen, Statistics (80x24 and 120x40),
    `stats --json` and a server's lobby all call that bot "Medium (greedy)" with one number."""
    from textual.widgets import Select

    from duckcover.app import AppOptions, create_app
    from duckcover.app.options import AppOptions as Options
    from duckcover.app.remote import LobbyScreen, RemoteApp
    from duckcover.app.screens.core import SetupScreen
    from duckcover.app.screens.stats import StatsScreen
    from duckcover.common import i18n
    from duckcover.common.measured import MEASURED_BOTS
    from duckcover.net.server import TableServer
    from duckcover.net.sessions import Identity

    monkeypatch.setenv("DUCKCOVER_DATA", str(tmp_path))
    i18n.set_language("en")
    played_against("medium", 3, tmp_path)
    board = stats.ratings(tmp_path / stats.DB_NAME)
    medium = board["bot:greedy@1"]
    number = f"{medium.rating.ordinal:.1f}"
    name = "Medium (greedy)"
    published = MEASURED_BOTS["greedy"]
    # It started from its published rating: one game moved it a little, not from 0 to 14.
    assert abs(medium.rating.ordinal - (published[1] - 3 * published[2])) < 3

    # The set-up screen offers it with that number.
    app = create_app(AppOptions(speed="instant", lang="en", data_dir=tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        app.push_screen(SetupScreen())
        await pilot.pause()
        labels = {value: str(prompt) for prompt, value in app.screen.query_one("#kind-1", Select)._options}
        assert labels["medium"] == f"{name} {number}"
        assert labels["easy"].startswith("Easy (random) -")  # Easy is on the scale too, below the ladder
        assert "cautious estimate" in str(app.screen.query_one("#ratings-explained").render())

    # Statistics: a row of its own by that name (not the seat's "Jackson"), the same number.
    for size in ((80, 24), (120, 40)):
        app = create_app(AppOptions(speed="instant", lang="en", data_dir=tmp_path))
        async with app.run_test(size=size) as pilot:
            app.push_screen(StatsScreen(tmp_path / stats.DB_NAME))
            await pilot.pause()
            table = lines_of(app.screen.query_one("#stats-table"))
            charts = lines_of(app.screen.query_one("#stats-charts"))
            shown = "\n".join(table + charts)
            assert any(line.startswith(name) for line in table)
            ratings_part = charts[charts.index("Ratings"):]
            row = next(line for line in ratings_part if line.startswith(name))
            assert row.endswith(f" {number}")
            assert "cautious estimate" in " ".join(ratings_part)
            assert "Jackson" not in shown and "greedy@1" not in shown and "ordinal" not in shown.lower()
            await pilot.press("p")  # the bot's own chart: the same name and number
            rating = str(app.screen.query_one("#stats-rating").render())
            assert f"Rating of {name} over 1 rated game" in rating and f"rating now {number}" in rating

    # `duckcover stats --json`: one entry with that name and number, who it is beside it.
    assert _cli(["--db", str(tmp_path / stats.DB_NAME), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    entry = next(item for item in data["players"] if item["key"] == "bot:greedy@1")
    assert (entry["name"], entry["level"], entry["kind"]) == (name, "medium", "bot")
    assert f"{entry['rating']['ordinal']:.1f}" == number
    assert [item["player"] for item in data["ratings"] if item["key"] == "bot:greedy@1"] == [name]
    assert "cautious estimate" in data["rating_explained"]

    # The arena calls it the same (its rating is of the arena's own games, on the same scale).
    from duckcover.cli import main

    assert main(["arena", "--bot", "medium", "--bot", "random", "--games", "1", "--seed", "2", "--json"]) == 0
    arena = json.loads(capsys.readouterr().out)
    assert [row["name"] for row in arena["bots"]] == [name, "Easy (random)"]

    # A server keeping its statistics in the same place: its lobby says the same.
    server = TableServer(tmp_path, grace=30, pace=0)
    server.sock = tmp_path / "tables.sock"
    await server.start(server.sock)
    try:
        guest = RemoteApp(Options(data_dir=tmp_path, speed="instant"), str(server.sock),
                          server.issue_token(Identity("newcomer")))
        async with guest.run_test(size=(80, 24)) as pilot:
            text = ""
            for _ in range(300):
                if isinstance(guest.screen, LobbyScreen) and guest.screen.is_mounted:
                    text = str(guest.screen.query_one("#top-ten").render())
                    if name in text:
                        break
                await pilot.pause(0.02)
            assert f"{name} {number}\n" in text and "cautious estimate" in text
            await pilot.press("c")  # a new table offers the level with the same number
            await pilot.pause()
            kinds = guest.screen.query_one("#kind-2", Select)
            assert {value: str(prompt) for prompt, value in kinds._options}["medium"] == f"{name} {number}"
    finally:
        await server.close()
