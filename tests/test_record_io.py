"""Writing and reading `duckcover-record/1` (RECORD.md and docs/record.md extensions)."""
import json
from pathlib import Path

import pytest

from duckcover.engine import CHOOSING, Game, Phase
from duckcover.players.harness import decide, play_game, prepare
from duckcover.saves import record
from duckcover_bots.greedy import GreedyBot
from duckcover_bots.random_bot import RandomBot
from helpers import STANDARD, rules

DOCS = Path(__file__).resolve().parent.parent / "docs"


def record_md_example() -> dict:
    """The example record of docs/record.md, read from the document itself."""
    text = (DOCS / "record.md").read_text(encoding="utf-8")
    return json.loads(text.split("```json", 1)[1].split("```", 1)[0])


def test_record_md_example_replays_to_the_end():
    game = record.replay(record_md_example())
    assert game.phase is Phase.FLIP and game.turn_number == 3
    assert [c.number for c in game.grid(0)[(0, 0)]] == [7, 5]  # covered the 7, then ducked with it
    assert (1, 0) not in game.grid(0)
    assert [c.number for c in game.grid(0)[(2, 0)]] == [1, 9]  # the 9 covers the 1 above it
    assert (2, 1) not in game.grid(0)
    assert [c.number for c in game.grid(1)[(1, 2)]] == [10, 9, 5]  # Jackson's 9 went under with the 5
    assert game.pile == (5, 14, 9)


def test_record_md_example_moving_a_card_onto_its_own_cell_is_refused():
    data = record_md_example()
    data["rounds"][0]["turns"][2]["moves"][0]["to"] = [2, 1]  # where Connie's 9 already is
    with pytest.raises(record.RecordError) as err:
        record.replay(data)
    assert str(err.value) == "round 1, turn 3, seat 0: a called card must move; it cannot stay where it is"


def _finished(players=3, rule_set=None, seed=1):
    return play_game([GreedyBot() for _ in range(players)], rule_set or rules(), seed=seed)


def test_to_record_writes_the_base_format_and_extensions():
    game = _finished()
    data = record.to_record(game, bots=["greedy"] * 3)
    assert data["format"] == "duckcover-record/1"
    assert data["seed"] == 1 and data["rules"]["max_by"] == "number" and data["rules"]["variants"] == []
    assert data["players"][0] == {"name": game.names[0], "bot": "greedy"}
    assert len(data["rounds"]) == 3
    for index, entry in enumerate(data["rounds"]):
        assert entry["captain"] == index  # rotating captain
        assert len(entry["layouts"]) == 3 and entry["layouts"][0] == game.rounds[index].layouts[0]
        assert len(entry["deck"]) == 26
        assert len(entry["turns"]) == len(game.rounds[index].turns)
        for turn in entry["turns"]:
            assert turn["flip"] in {str(n) for n in range(1, 13)} | {"max", "repeat"}
            assert len(turn["moves"]) == 3
            for move in turn["moves"]:
                assert move is None or (set(move) == {"card", "to"} and len(move["to"]) == 2)


def test_dumps_then_loads_gives_the_same_record():
    data = record.to_record(_finished(), bots=["greedy"] * 3)
    text = record.dumps(data)
    assert text.endswith("\n")
    assert record.loads(text) == json.loads(json.dumps(data))


def test_a_record_without_extensions_replays():
    game = _finished(seed=2)
    data = record.to_record(game)
    del data["seed"]
    data["rules"] = {"max_by": "number", "variants": []}
    for entry in data["rounds"]:
        entry.pop("deck"), entry.pop("reshuffles", None)
    again = record.replay(data)
    assert record.summary(again) == record.summary(game)


def test_a_record_without_rules_uses_the_rulebook_defaults():
    data = {"format": "duckcover-record/1", "players": [{"name": "A"}, {"name": "B"}],
            "rounds": [{"captain": 0, "layouts": [STANDARD, STANDARD], "turns": []}]}
    game = record.replay(data)
    assert game.rules.max_by == "number" and game.rules.captain == "rotate" and not game.rules.variants
    assert game.draw_size == 26


def test_a_recorded_splash_table_is_the_one_scored_with():
    game = _finished(seed=4)
    data = record.to_record(game)
    data["rules"]["splashes"] = [7] * 12
    again = record.replay(data)
    for result in again.results:
        assert all(score % 7 == 0 for score in result.scores)


@pytest.mark.parametrize("variants,key", [(("two-flips",), "flips"), (("low-blows",), "gifts")])
def test_variant_turns_are_written_with_their_extension_fields(variants, key):
    game = play_game([RandomBot() for _ in range(3)], rules(*variants), seed=6)
    data = record.to_record(game)
    turns = [t for entry in data["rounds"] for t in entry["turns"]]
    assert any(key in t for t in turns)
    assert record.summary(record.replay(record.loads(record.dumps(data)))) == record.summary(game)


def test_low_blows_moves_of_received_cards_name_their_family():
    game = play_game([RandomBot() for _ in range(3)], rules("low-blows"), seed=6)
    data = record.to_record(game)
    families = [m["family"] for entry in data["rounds"] for t in entry["turns"] for seat, m in enumerate(t["moves"])
                if m and "family" in m]
    assert families and all(0 <= f < 3 for f in families)
    for entry in data["rounds"]:
        for t in entry["turns"]:
            for seat, m in enumerate(t["moves"]):
                assert m is None or m.get("family") != seat  # own cards need no family


def test_surprises_removed_cards_are_recorded_and_replayed():
    game = _finished(rule_set=rules("surprises"), seed=3)
    data = record.to_record(game)
    assert [entry["removed"] for entry in data["rounds"]] == [
        [{13: "max", 14: "repeat"}.get(c, str(c)) for c in log.removed] for log in game.rounds
    ]
    again = record.replay(data)
    assert [log.removed for log in again.rounds] == [log.removed for log in game.rounds]
    assert again.rounds[0].deck == game.rounds[0].deck


def test_an_unfinished_record_summary_has_null_outcomes():
    data = {"format": "duckcover-record/1", "players": [{"name": "A"}, {"name": "B"}],
            "rounds": [{"captain": 0, "layouts": [STANDARD, STANDARD],
                        "turns": [{"flip": "max", "moves": [{"card": 12, "to": [2, 2]}, {"card": 12, "to": [3, 1]}]}]}]}
    out = record.summary(record.replay(data))
    assert out == {
        "rounds": [{
            "round": 1, "ended": None, "turns": 1, "discard": [], "captain_pile_top": "max",
            "players": [
                {"stacks": [[0, 0, [1]], [1, 0, [2]], [2, 0, [3]], [3, 0, [4]], [0, 1, [5]], [1, 1, [6]],
                            [2, 1, [7]], [3, 1, [8]], [0, 2, [9]], [1, 2, [10]], [2, 2, [11, 12]]], "score": None},
                {"stacks": [[0, 0, [1]], [1, 0, [2]], [2, 0, [3]], [3, 0, [4]], [0, 1, [5]], [1, 1, [6]],
                            [2, 1, [7]], [3, 1, [8, 12]], [0, 2, [9]], [1, 2, [10]], [2, 2, [11]]], "score": None},
            ],
        }],
        "totals": [0, 0],
        "winners": None,
    }


def test_summary_of_a_finished_game():
    game = _finished(players=4, seed=5)
    out = record.summary(game)
    assert list(out) == ["rounds", "totals", "winners"]
    assert out["totals"] == list(game.totals) and out["winners"] == list(game.outcome().winners)
    for index, entry in enumerate(out["rounds"]):
        assert list(entry) == ["round", "ended", "turns", "discard", "captain_pile_top", "players"]
        assert entry["round"] == index + 1 and entry["ended"] == game.results[index].reason
        assert entry["turns"] == len(game.rounds[index].turns)
        assert [p["score"] for p in entry["players"]] == list(game.results[index].scores)
        for player in entry["players"]:
            cells = [(y, x) for x, y, _ in player["stacks"]]
            assert cells == sorted(cells)  # sorted by y, then x
            assert sum(len(cards) for _, _, cards in player["stacks"]) == 12


# --- resuming: a replayed game must hold the draw deck exactly as it was --------------------------
def _seed_with_a_doubled_top_card():
    for seed in range(50):
        game = Game(2, rules(), seed=seed)
        if game.round.deck.count(game.round.deck[0]) == 2:
            return seed
    raise AssertionError("no seed in 0-49 starts with a numbered card on top")


def _resolve(game):
    while game.phase in CHOOSING:
        game.play([game.legal_moves(s)[0] if s in game.awaiting else None for s in range(game.n)])


def test_forced_flip_takes_the_top_copy_of_the_card():
    game = Game(2, rules(), seed=_seed_with_a_doubled_top_card())
    deck = list(game.round.deck)
    game.flip(deck[0])  # what a replay does with the record's first flip
    _resolve(game)
    game.flip()
    assert game.flips == (deck[1],)  # the next card down, as in the uninterrupted game


def test_a_resumed_game_plays_on_as_the_uninterrupted_one():
    bots = lambda: [RandomBot(), GreedyBot(), RandomBot()]  # noqa: E731
    names = [f"{bot.name} {i + 1}" for i, bot in enumerate(bots())]
    whole = play_game(bots(), rules(), seed=0)
    partial = Game(names, rules(), seed=0)
    driven = bots()
    prepare(driven)
    for _ in range(10):
        partial.flip()
        while partial.phase in CHOOSING:
            partial.play(decide(partial, driven))
    resumed = record.replay(record.loads(record.dumps(record.to_record(partial))))
    driven = bots()
    prepare(driven)
    while not resumed.over:
        if resumed.phase is Phase.ROUND_OVER:
            resumed.start_round()
        resumed.flip()
        while resumed.phase in CHOOSING:
            resumed.play(decide(resumed, driven))
    assert record.to_record(resumed)["rounds"] == record.to_record(whole)["rounds"]
