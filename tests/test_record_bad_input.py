"""RECORD.md "Bad input": every refusal through `duckcover replay FILE --json`: exit status 2,
exactly one line on stderr naming the file, round, turn and seat (0-based) and the reason,
nothing on stdout, no traceback, and the input file unchanged.

Each refusal runs the command's own entry point in process (`duckcover.cli.main`, the function
`python -m duckcover` calls: an exception it let out would fail the test here, as a traceback
would there); `test_the_real_command_refuses_in_one_line_with_status_2` runs it as a user does,
in a process of its own, once."""
import contextlib
import copy
import io
import json

import pytest

from duckcover import cli
from helpers import STANDARD, run_replay, write_json


def base_record(players=2):
    """A legal game in progress: turn 2 is the one where seat 0 must quack."""
    return {
        "format": "duckcover-record/1",
        "rules": {"max_by": "number", "variants": []},
        "players": [{"name": f"P{seat}"} for seat in range(players)],
        "rounds": [
            {
                "captain": 0,
                "layouts": [copy.deepcopy(STANDARD) for _ in range(players)],
                "turns": [
                    {"flip": "6", "moves": [{"card": 6, "to": [0, 1]}, {"card": 6, "to": [1, 0]}]},
                    {"flip": "5", "moves": [None, {"card": 5, "to": [0, 0]}]},
                    {"flip": "7", "moves": [{"card": 7, "to": [3, 1]}, {"card": 7, "to": [1, 1]}]},
                ],
            }
        ],
    }


def ended_round_record():
    """9 players: a first-flip Repeat and one quacked card reach the discard limit (2)."""
    data = base_record(9)
    data["rounds"][0]["turns"] = [
        {"flip": "repeat", "moves": [None] * 9},
        {"flip": "2", "moves": [{"card": 2, "to": [0, 0]}] * 9},
        {"flip": "1", "moves": [None] * 9},
    ]
    return data


def refuse(tmp_path, data, *, raw: bytes | None = None):
    """Run the replay on a bad file; check the common refusal contract; return the stderr line."""
    path = tmp_path / "game.json"
    if raw is None:
        write_json(path, data)
    else:
        path.write_bytes(raw)
    before = path.read_bytes()
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = cli.main(["replay", str(path), "--json"])
    assert status == 2, err.getvalue()
    assert out.getvalue() == ""
    lines = err.getvalue().splitlines()
    assert len(lines) == 1, err.getvalue()
    assert lines[0].startswith(f"{path}: ")
    assert path.read_bytes() == before
    return lines[0][len(f"{path}: "):]


def test_the_real_command_refuses_in_one_line_with_status_2(tmp_path):
    """The contract as a user meets it: `python -m duckcover replay FILE --json`, its own process."""
    path = write_json(tmp_path / "game.json", {**base_record(), "players": "two"})
    before = path.read_bytes()
    result = run_replay(path, "--json")
    assert result.returncode == 2, result.stderr
    assert result.stdout == "" and "Traceback" not in result.stderr
    assert len(result.stderr.splitlines()) == 1 and result.stderr.startswith(f"{path}: ")
    assert path.read_bytes() == before
    assert result.stderr.strip()[len(f"{path}: "):] == refuse(tmp_path, json.loads(before))  # the same line in process


def test_base_records_are_legal(tmp_path):
    for data in (base_record(), ended_round_record()):
        result = run_replay(write_json(tmp_path / "ok.json", data), "--json")
        assert result.returncode == 0 and result.stderr == ""


def test_malformed_json_is_refused(tmp_path):
    assert refuse(tmp_path, None, raw=b'{"format": "duckcover-record/1", "players": [').startswith("not JSON")


@pytest.mark.parametrize("raw", [b"", b"[1, 2, 3]", b"\xff\xfe\x00garbage"])
def test_unreadable_files_are_refused(tmp_path, raw):
    refuse(tmp_path, None, raw=raw)


def test_missing_file_is_refused_in_one_line(tmp_path):
    result = run_replay(tmp_path / "nope.json", "--json")
    assert result.returncode == 2 and len(result.stderr.splitlines()) == 1 and result.stdout == ""
    assert result.stderr.startswith(f"{tmp_path / 'nope.json'}: ")


def test_missing_field_players_is_refused(tmp_path):
    data = base_record()
    del data["players"]
    assert "missing field: players" in refuse(tmp_path, data)


def test_missing_field_flip_is_refused(tmp_path):
    data = base_record()
    del data["rounds"][0]["turns"][1]["flip"]
    assert refuse(tmp_path, data) == "round 1, turn 2: missing field: flip"


def test_missing_field_moves_is_refused(tmp_path):
    data = base_record()
    del data["rounds"][0]["turns"][0]["moves"]
    assert refuse(tmp_path, data) == "round 1, turn 1: missing field: moves"


def test_missing_field_layouts_is_refused(tmp_path):
    data = base_record()
    del data["rounds"][0]["layouts"]
    assert refuse(tmp_path, data).startswith("round 1: layouts")


def test_missing_destination_is_refused(tmp_path):
    data = base_record()
    del data["rounds"][0]["turns"][0]["moves"][1]["to"]
    assert refuse(tmp_path, data).startswith("round 1, turn 1, seat 1: ")


@pytest.mark.parametrize(
    "bad_layout",
    [
        [[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 13]],  # 13 is not a duck
        [[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 11]],  # 11 twice, 12 missing
        [[1, 2, 3, 4], [5, 6, 7, 8]],  # two rows
        [[1, 2, 3, 4, 5], [6, 7, 8], [9, 10, 11, 12]],
    ],
)
def test_layout_that_is_not_1_to_12_is_refused(tmp_path, bad_layout):
    data = base_record()
    data["rounds"][0]["layouts"][1] = bad_layout
    line = refuse(tmp_path, data)
    assert line.startswith("round 1, seat 1: ") and "layout" in line


def test_flip_not_in_the_draw_deck_is_refused(tmp_path):
    data = base_record()
    turns = data["rounds"][0]["turns"]
    turns[2] = {"flip": "6", "moves": [{"card": 6, "to": [0, 0]}, {"card": 6, "to": [0, 0]}]}
    turns.append({"flip": "6", "moves": [None, None]})  # a third 6: the deck has two
    assert refuse(tmp_path, data) == "round 1, turn 4: flip 6 is not in the draw deck now"


@pytest.mark.parametrize("flip", ["13", "joker", 5, None])
def test_flip_that_is_no_captain_card_is_refused(tmp_path, flip):
    data = base_record()
    data["rounds"][0]["turns"][0]["flip"] = flip
    assert refuse(tmp_path, data).startswith("round 1, turn 1: ")


def test_move_for_a_covered_card_is_refused(tmp_path):
    data = base_record()
    data["rounds"][0]["turns"][1]["moves"][0] = {"card": 5, "to": [1, 1]}
    assert refuse(tmp_path, data) == "round 1, turn 2, seat 0: card 5 is covered; this player must quack (null)"


def test_missing_move_for_a_visible_card_is_refused(tmp_path):
    data = base_record()
    data["rounds"][0]["turns"][1]["moves"][1] = None
    assert refuse(tmp_path, data) == "round 1, turn 2, seat 1: card 5 is visible and must move (no pass)"


def test_diagonal_cover_is_refused(tmp_path):
    data = base_record()
    data["rounds"][0]["turns"][0]["moves"][1] = {"card": 6, "to": [0, 0]}
    line = refuse(tmp_path, data)
    assert line.startswith("round 1, turn 1, seat 1: cannot cover (0, 0)")


def test_non_adjacent_cover_is_refused(tmp_path):
    data = base_record()
    data["rounds"][0]["turns"][0]["moves"][1] = {"card": 6, "to": [3, 0]}
    assert refuse(tmp_path, data).startswith("round 1, turn 1, seat 1: cannot cover (3, 0)")


def test_duck_that_touches_no_other_stack_is_refused(tmp_path):
    data = base_record()
    data["rounds"][0]["turns"][2]["moves"][0] = {"card": 7, "to": [5, 5]}
    assert refuse(tmp_path, data).startswith("round 1, turn 3, seat 0: cannot duck to (5, 5)")


def test_turns_after_the_round_has_ended_are_refused(tmp_path):
    data = ended_round_record()
    data["rounds"][0]["turns"].append({"flip": "3", "moves": [{"card": 3, "to": [3, 0]}] * 9})
    assert refuse(tmp_path, data) == "round 1, turn 4: the round has already ended"


def test_move_for_a_card_not_called_is_refused(tmp_path):
    data = base_record()
    data["rounds"][0]["turns"][0]["moves"][0] = {"card": 8, "to": [3, 0]}
    assert refuse(tmp_path, data).startswith("round 1, turn 1, seat 0: card 8 cannot move")


def test_move_on_a_dead_repeat_is_refused(tmp_path):
    data = ended_round_record()
    data["rounds"][0]["turns"][0]["moves"][4] = {"card": 1, "to": [0, -1]}
    line = refuse(tmp_path, data)
    assert line.startswith("round 1, turn 1, seat 4: ") and "Repeat" in line


@pytest.mark.parametrize(
    "mutate",
    [
        lambda d: d.update(format="chess-pgn"),
        lambda d: d.update(players=[]),
        lambda d: d.update(players=[{"name": str(i)} for i in range(10)]),
        lambda d: d.update(rounds="many"),
        lambda d: d.update(rules={"variants": ["chaos"]}),
        lambda d: d.update(rules={"max_by": "colour"}),
        lambda d: d.update(rules=[]),
        lambda d: d["players"].__setitem__(0, "Connie"),
        lambda d: d["rounds"].__setitem__(0, []),
        lambda d: d["rounds"][0].update(captain=7),
        lambda d: d["rounds"][0].update(turns={}),
        lambda d: d["rounds"][0].update(removed=["joker"]),
        lambda d: d["rounds"][0].update(deck=["1"]),
        lambda d: d["rounds"][0]["turns"].__setitem__(0, "6"),
        lambda d: d["rounds"][0]["turns"][0].update(moves=[None]),
        lambda d: d["rounds"][0]["turns"][0]["moves"].__setitem__(0, {"card": "6", "to": [0, 1]}),
        lambda d: d["rounds"][0]["turns"][0]["moves"].__setitem__(0, {"card": 6, "to": [0.0, 1]}),
        lambda d: d["rounds"][0]["turns"][0]["moves"].__setitem__(0, {"card": 6, "to": [0, 1, 2]}),
        lambda d: d["rounds"][0]["turns"][0]["moves"].__setitem__(0, {"card": 6, "to": [0, 1], "family": 5}),
        lambda d: d["rounds"].extend([d["rounds"][0]] * 3),
    ],
    ids=[
        "format", "no-players", "ten-players", "rounds-not-list", "unknown-variant", "bad-max-by", "rules-not-object",
        "player-not-object", "round-not-object", "captain-out-of-range", "turns-not-list", "removed-unknown",
        "deck-wrong-cards", "turn-not-object", "moves-wrong-length", "card-not-int", "cell-not-int",
        "cell-three-coordinates", "family-out-of-range", "round-before-previous-ended",
    ],
)
def test_other_malformed_records_are_refused_in_one_line(tmp_path, mutate):
    data = base_record()
    mutate(data)
    refuse(tmp_path, data)


def test_refusal_message_is_the_record_md_shape(tmp_path):
    """`game.json: round 1, turn 7, seat 3: card 5 is covered; this player must quack (null)`."""
    data = base_record()
    data["rounds"][0]["turns"][1]["moves"][0] = {"card": 5, "to": [1, 1]}
    path = write_json(tmp_path / "game.json", data)
    result = run_replay(path, "--json")
    assert result.stderr == f"{path}: round 1, turn 2, seat 0: card 5 is covered; this player must quack (null)\n"
    assert json.loads(path.read_text()) == data


def test_captain_out_of_range_names_its_round(tmp_path):
    data = base_record()
    data["rounds"][0]["captain"] = 7
    assert refuse(tmp_path, data).startswith("round 1: ")


@pytest.mark.parametrize("field", ["rounds", "turns", "captain"])
def test_missing_required_field_is_refused(tmp_path, field):
    data = base_record()
    if field == "rounds":
        del data["rounds"]
    else:
        del data["rounds"][0][field]
    assert "missing field" in refuse(tmp_path, data)


def _finished_record():
    from duckcover.players.harness import play_game
    from duckcover.saves import record
    from duckcover_bots.greedy import GreedyBot
    from helpers import rules

    game = play_game([GreedyBot(), GreedyBot()], rules(), seed=21)
    return record.to_record(game)


def test_turns_after_the_last_round_has_ended_are_refused(tmp_path):
    data = _finished_record()
    last = data["rounds"][-1]["turns"]
    last.append({"flip": "5", "moves": [None, None]})
    assert refuse(tmp_path, data) == f"round 3, turn {len(last)}: the round has already ended"


def test_a_round_after_the_last_one_is_refused(tmp_path):
    data = _finished_record()
    data["rounds"].append(copy.deepcopy(data["rounds"][0]))
    assert refuse(tmp_path, data).startswith("round 4: ")


def _golden(name):
    from pathlib import Path

    return json.loads((Path(__file__).parent / "golden" / f"{name}.json").read_text(encoding="utf-8"))


def _first_gift_turn(data):
    for r, entry in enumerate(data["rounds"]):
        for t, turn in enumerate(entry["turns"]):
            if "gifts" in turn:
                return r, t, turn
    raise AssertionError("no gift turn in the golden low-blows game")


def test_low_blows_gift_turn_without_gifts_is_refused(tmp_path):
    data = _golden("g4_lowblows_seed2")
    r, t, turn = _first_gift_turn(data)
    del turn["gifts"]
    assert refuse(tmp_path, data) == f"round {r + 1}, turn {t + 1}: missing field: gifts"


def test_low_blows_gift_of_a_high_card_is_refused(tmp_path):
    data = _golden("g4_lowblows_seed2")
    r, t, turn = _first_gift_turn(data)
    turn["gifts"][0] = {"card": 12}
    line = refuse(tmp_path, data)
    assert line.startswith(f"round {r + 1}, turn {t + 1}, seat 0: ")


def test_two_flips_turn_with_one_flip_is_refused(tmp_path):
    data = _golden("g3_twoflips_seed4")
    data["rounds"][0]["turns"][0]["flips"] = data["rounds"][0]["turns"][0]["flips"][:1]
    assert refuse(tmp_path, data).startswith("round 1, turn 1: ")


def test_deeply_nested_json_is_refused_in_one_line(tmp_path):
    refuse(tmp_path, None, raw=b"[" * 100_000 + b"]" * 100_000)
