"""`duckcover replay FILE --json` (RECORD.md "Output"): run as a user would, in a subprocess."""
import json

from duckcover.players.harness import play_game
from duckcover.saves import record
from duckcover_bots.greedy import GreedyBot
from duckcover_bots.random_bot import RandomBot
from helpers import STANDARD, rules, run_replay


def _save(tmp_path, game, name="game.json"):
    path = tmp_path / name
    path.write_text(record.dumps(record.to_record(game, bots=["greedy"] * game.n)), encoding="utf-8")
    return path


def test_replay_json_of_a_finished_game(tmp_path):
    game = play_game([GreedyBot(), RandomBot(), GreedyBot(), RandomBot()], rules(), seed=11)
    path = _save(tmp_path, game)
    before = path.read_bytes()
    result = run_replay(path, "--json")
    assert result.returncode == 0 and result.stderr == ""
    out = json.loads(result.stdout)
    assert out == record.summary(game)
    assert out["winners"] == list(game.outcome().winners)
    assert out["totals"] == [sum(r["players"][s]["score"] for r in out["rounds"]) for s in range(4)]
    assert all(r["ended"] in ("single-stack", "discard-limit", "turn-cap") for r in out["rounds"])
    assert path.read_bytes() == before


def test_replay_json_types_match_record_md(tmp_path):
    game = play_game([GreedyBot() for _ in range(3)], rules(), seed=12)
    out = json.loads(run_replay(_save(tmp_path, game), "--json").stdout)
    assert set(out) == {"rounds", "totals", "winners"}
    for entry in out["rounds"]:
        assert set(entry) == {"round", "ended", "turns", "discard", "captain_pile_top", "players"}
        assert isinstance(entry["turns"], int) and all(isinstance(c, str) for c in entry["discard"])
        assert entry["captain_pile_top"] is None or isinstance(entry["captain_pile_top"], str)
        for player in entry["players"]:
            assert set(player) == {"stacks", "score"} and isinstance(player["score"], int)
            for x, y, cards in player["stacks"]:
                assert isinstance(x, int) and isinstance(y, int) and all(1 <= c <= 12 for c in cards)


def test_replay_json_of_a_game_in_progress_has_null_outcomes(tmp_path):
    game = play_game([GreedyBot() for _ in range(2)], rules(), seed=13)
    data = record.to_record(game)
    del data["rounds"][1:]
    data["rounds"][0]["turns"] = data["rounds"][0]["turns"][:5]
    path = tmp_path / "partial.json"
    path.write_text(record.dumps(data), encoding="utf-8")
    result = run_replay(path, "--json")
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["winners"] is None and out["totals"] == [0, 0]
    (only,) = out["rounds"]
    assert only["ended"] is None and only["turns"] == 5
    assert [p["score"] for p in only["players"]] == [None, None]


def test_replay_json_after_one_finished_round_totals_that_round(tmp_path):
    game = play_game([GreedyBot() for _ in range(2)], rules(), seed=14)
    data = record.to_record(game)
    data["rounds"][1]["turns"] = data["rounds"][1]["turns"][:3]
    del data["rounds"][2]
    path = tmp_path / "partial.json"
    path.write_text(record.dumps(data), encoding="utf-8")
    out = json.loads(run_replay(path, "--json").stdout)
    assert out["totals"] == list(game.results[0].scores)
    assert out["rounds"][0]["ended"] == game.results[0].reason and out["rounds"][1]["ended"] is None
    assert out["winners"] is None


def test_replay_of_a_round_with_no_turns(tmp_path):
    data = {"format": "duckcover-record/1", "players": [{"name": "A"}, {"name": "B"}],
            "rounds": [{"captain": 1, "layouts": [STANDARD, STANDARD], "turns": []}]}
    path = tmp_path / "empty.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    out = json.loads(run_replay(path, "--json").stdout)
    assert out["rounds"][0]["turns"] == 0 and out["rounds"][0]["captain_pile_top"] is None
    assert out["rounds"][0]["players"][1]["stacks"][0] == [0, 0, [1]]


def test_replay_without_json_prints_a_scorepad(tmp_path):
    game = play_game([GreedyBot() for _ in range(2)], rules(), seed=15)
    result = run_replay(_save(tmp_path, game))
    assert result.returncode == 0 and result.stdout.strip() and "Traceback" not in result.stderr
