"""The arena: duplicate deals, reproducible figures for any --jobs, the --json shape, bad options."""
import json
import sys

import pytest

from duckcover.cli import main
from duckcover.players.arena import ArenaConfig, deal_seed, play_deal, report, rows, run
from duckcover.players.harness import play_game
from duckcover.players.plugins import resolve_bot

HOSTILE = """
from duckcover.players.bot import Bot

class Crashing(Bot):
    description = "Raises on every decision."

    def choose(self, view):
        raise RuntimeError("nope")
"""


def without_timings(figures):
    figures = json.loads(json.dumps(figures))
    figures.pop("ran_on", None)  # where it ran: --jobs
    for row in figures["bots"]:
        row.pop("decision_ms")
    return figures


def arena_json(capsys, *argv):
    assert main(["arena", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_every_rotation_plays_the_same_deal():
    config = ArenaConfig(("greedy", "random", "random"), deals=1, seed=5)
    result = play_deal(config, 0)
    seed = deal_seed(5, 0)
    for rotation in range(3):
        # Rotation r seats bot i at seat (i + r) % 3.
        seating = [config.specs[(seat - rotation) % 3] for seat in range(3)]
        game = play_game([resolve_bot(spec) for spec in seating], seed=seed)
        assert [game.totals[(bot + rotation) % 3] for bot in range(3)] == result.totals[rotation]


def test_same_seed_same_numbers_and_different_seed_different_deals():
    config = ArenaConfig(("greedy", "random", "random", "random"), deals=3, seed=1)
    first = report(config, run(config))
    assert without_timings(first) == without_timings(report(config, run(config)))
    other = ArenaConfig(config.specs, deals=3, seed=2)
    assert without_timings(report(other, run(other))) != without_timings(first)


@pytest.mark.keys  # --jobs 2: worker processes, the slow tier
def test_two_jobs_give_exactly_the_numbers_of_one(capsys):
    argv = ["--bot", "greedy", "--bot", "random", "--bot", "random", "--games", "4", "--seed", "7"]
    one = arena_json(capsys, *argv, "--jobs", "1")
    two = arena_json(capsys, *argv, "--jobs", "2")
    assert without_timings(one) == without_timings(two)


def test_json_shape_and_its_invariants(capsys):
    figures = arena_json(capsys, "--bot", "greedy", "--bot", "random", "--bot", "random", "--games", "3", "--seed", "1")
    assert {"deals", "seatings", "games", "seed", "rules", "budget", "time_limit", "hard_limit", "bots"} <= set(figures)
    assert (figures["deals"], figures["seatings"], figures["games"]) == (3, 3, 9)
    greedy, random_row = figures["bots"]
    assert (greedy["bot"], greedy["seats"], greedy["games"]) == ("greedy", 1, 9)
    assert (random_row["bot"], random_row["seats"], random_row["games"]) == ("random", 2, 18)
    for row in figures["bots"]:
        assert set(row) == {"bot", "seats", "games", "mean_score", "win_rate", "diff_to_field", "decisions",
                            "decision_ms", "fallbacks", "fallback_reasons", "output", "hook_failures",
                            "refused_calls", "rating", "rated_as", "name"}
        assert set(row["rating"]) == {"mu", "sigma", "ordinal"}
        low, high = row["diff_to_field"]["ci95"]
        assert low <= row["diff_to_field"]["mean"] <= high
        assert row["decisions"] > 0 and 0 <= row["decision_ms"]["median"] <= row["decision_ms"]["max"]
        assert row["fallbacks"] == 0 and row["fallback_reasons"] == {} and row["output"] == ""
    # Every game has one unit of win to share, and paired differences cancel over the table.
    assert sum(row["win_rate"] * row["seats"] for row in figures["bots"]) == pytest.approx(1, abs=1e-3)
    assert sum(row["diff_to_field"]["mean"] * row["seats"] for row in figures["bots"]) == pytest.approx(0, abs=1e-3)


def test_identical_bots_are_one_row_with_no_edge():
    config = ArenaConfig(("random", "random"), deals=2, seed=3)
    (row,) = report(config, run(config))["bots"]
    assert row["seats"] == 2 and row["diff_to_field"]["mean"] == 0
    assert [r.seats for r in rows(["a", "b", "a", "c", "b"])] == [[0, 2], [1, 4], [3]]


def test_greedy_beats_random_on_duplicate_deals():
    config = ArenaConfig(("greedy", "random"), deals=6, seed=4)
    greedy, random_row = report(config, run(config))["bots"]
    assert greedy["diff_to_field"]["ci95"][1] < 0  # lower totals win
    assert greedy["rating"]["ordinal"] > random_row["rating"]["mu"]  # conservatively above its mean
    assert (greedy["rated_as"], random_row["rated_as"]) == ("greedy@1", "random@1")


@pytest.mark.keys  # a whole arena rated twice: the slow tier
def test_arena_ratings_are_the_ratings_the_statistics_give_the_same_games(tmp_path):
    from duckcover.players.plugins import stamp_bot_versions
    from duckcover.saves import stats
    from duckcover.saves.record import to_record

    config = ArenaConfig(("greedy", "random", "hard"), deals=2, seed=9, budget=8)
    figures = report(config, run(config))
    db = tmp_path / "stats.db"
    for deal in range(config.deals):
        for rotation in range(3):
            seating = [config.specs[(seat - rotation) % 3] for seat in range(3)]
            game = play_game([resolve_bot(spec, budget=8) for spec in seating], seed=deal_seed(9, deal),
                             names=[f"seat {seat}" for seat in range(3)])
            assert stats.add_game(stamp_bot_versions(to_record(game, bots=seating)), db)
    board = stats.ratings(db)
    for row in figures["bots"]:
        assert row["rating"] == board["bot:" + row["rated_as"]].rating.as_dict()
    assert {row["rated_as"] for row in figures["bots"]} == {"greedy@1", "random@1", "expert@1"}


@pytest.mark.keys  # the bot plays in a process of its own: the slow tier
def test_a_crashing_bot_is_played_by_fallbacks_and_counted(tmp_path, capsys):
    path = tmp_path / "crashing.py"
    path.write_text(HOSTILE)
    figures = arena_json(capsys, "--bot", str(path), "--bot", "random", "--games", "1")
    crashing, random_row = figures["bots"]
    assert crashing["fallbacks"] == crashing["decisions"] > 0
    assert random_row["fallbacks"] == 0


def test_the_table_names_every_bot(capsys):
    assert main(["arena", "--bot", "greedy", "--bot", "random", "--games", "1", "--seed", "0"]) == 0
    out = capsys.readouterr().out
    assert "1 deals x 2 seatings = 2 games (seed 0, standard rules)" in out
    assert "│ Medium (greedy)" in out and "│ Easy (random)" in out  # a difficulty's bot: its one name
    assert "a cautious estimate of skill" in " ".join(out.split())


def test_without_a_seed_the_arena_draws_128_random_bits_and_says_which(capsys):
    seeds = [arena_json(capsys, "--bot", "greedy", "--bot", "random", "--games", "1")["seed"] for _ in range(2)]
    assert seeds[0] != seeds[1] and max(seeds) >= 2**64  # not a small number a bot could search
    again = arena_json(capsys, "--bot", "greedy", "--bot", "random", "--games", "1", "--seed", str(seeds[0]))
    assert again["seed"] == seeds[0]


def test_deal_seeds_are_too_many_to_search():
    assert len({deal_seed(0, deal) for deal in range(50)}) == 50
    assert max(deal_seed(0, deal) for deal in range(50)) >= 2**100


def test_two_file_bots_with_the_same_file_name_get_two_labels():
    from duckcover.commands.arena import labels

    shown_as = labels(["mine/bot.py", "theirs/bot.py", "greedy", "a/x/bot.py:B"])
    assert shown_as == {"mine/bot.py": "mine/bot.py", "theirs/bot.py": "theirs/bot.py", "greedy": "greedy",
                        "a/x/bot.py:B": "bot.py:B"}
    assert labels(["/home/me/strong.py"]) == {"/home/me/strong.py": "strong.py"}


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--bot", "greedy"], "give at least two bots"),
        (["--bot", "greedy", "--bot", "random", "--games", "0"], "--games: takes 1-"),
        (["--bot", "greedy", "--bot", "random", "--jobs", "0"], "--jobs: takes 1-"),
        (["--bot", "greedy", "--bot", "random", "--jobs", "two"], "--jobs: takes a whole number"),
        (["--bot", "greedy", "--bot", "random", "--time-limit", "-1"], "--time-limit: takes more than 0"),
        (["--bot", "greedy", "--bot", "random", "--hard-limit", "-1"], "--hard-limit: takes 0-"),
        (["--bot", "greedy", "--bot", "random", "--budget", "0"], "--budget: takes 1-"),
        (["--bot", "greedy", "--bot", "random", "--variant", "nope"], "unknown variant 'nope'"),
        (["--bot", "greedy", "--bot", "random", "--variant", "competition:4"], "rounds must be numbers from 1 to 3"),
        # the slow tier: a bot the arena does not know is probed in a process of its own
        pytest.param(["--bot", "greedy", "--bot", "nope"], "unknown bot 'nope'", marks=pytest.mark.keys),
        pytest.param(["--bot", "greedy", "--bot", "missing.py:Bot"], "no such file missing.py", marks=pytest.mark.keys),
        (["--bot", "random"] * 10, "a table takes 2-9 players, not 10"),
    ],
)
def test_bad_options_are_one_line_and_exit_2(capsys, argv, message):
    assert main(["arena", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_progress_counts_every_deal_once():
    seen = []
    config = ArenaConfig(("greedy", "random"), deals=5, seed=1)
    results = run(config, progress=seen.append)
    assert sum(seen) == 5 and [r.deal for r in results] == [0, 1, 2, 3, 4]


LOUD = """\
import os, sys
from duckcover_bots.greedy import GreedyBot
print("{ at import")
class Loud(GreedyBot):
    def choose(self, view):
        print("} not json")
        sys.stdout.flush()
        os.write(1, b"\\x1b[2J{{{\\n")
        return super().choose(view)
"""


@pytest.mark.parametrize("trusted", [pytest.param(False, marks=pytest.mark.keys), True],  # own process: the slow tier
                         ids=["own-process", "trusted"])
def test_arena_json_stays_valid_whatever_a_bot_prints(tmp_path, capfd, trusted):
    path = tmp_path / "loud.py"
    path.write_text(LOUD)
    argv = ["arena", "--bot", str(path), "--bot", "greedy", "--games", "1", "--seed", "3", "--json"]
    assert main(argv + (["--trusted"] if trusted else [])) == 0
    out, err = capfd.readouterr()
    figures = json.loads(out)  # nothing but the figures on standard output
    loud = figures["bots"][0]
    assert loud["fallbacks"] == 0 and figures["trusted"] is trusted
    if not trusted:  # what it printed is kept, escaped, for the reader
        assert "not json" in loud["output"] and "\\x1b[2J" in loud["output"]
    assert "\x1b" not in out + err


@pytest.mark.keys  # the bot plays in a process of its own: the slow tier
def test_the_table_says_why_the_referee_played_for_a_bot(tmp_path, capsys):
    path = tmp_path / "crashing.py"
    path.write_text(HOSTILE)
    assert main(["arena", "--bot", str(path), "--bot", "random", "--games", "1", "--seed", "2"]) == 0
    out = capsys.readouterr().out
    assert "why the Referee played for a bot" in out
    assert "crashing.py" in out and "raised" in out


def test_cluster_without_dask_is_one_line_and_status_2(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "distributed", None)  # as if not installed: importing it fails
    status = main(["arena", "--bot", "greedy", "--bot", "random", "--games", "1", "--cluster", "tcp://127.0.0.1:8786"])
    err = capsys.readouterr().err
    assert status == 2 and err == "duckcover arena: --cluster needs Dask distributed: pip install 'duckcover[cluster]'\n"


def test_cluster_and_jobs_do_not_go_together(capsys):
    status = main(["arena", "--bot", "greedy", "--bot", "random", "--jobs", "2", "--cluster", "tcp://127.0.0.1:8786"])
    assert status == 2 and "--jobs is for a run on this machine" in capsys.readouterr().err


def test_the_json_says_where_it_ran(capsys):
    figures = arena_json(capsys, "--bot", "greedy", "--bot", "random", "--games", "1", "--seed", "1", "--jobs", "2")
    assert figures["ran_on"] == {"where": "local", "jobs": 2}
