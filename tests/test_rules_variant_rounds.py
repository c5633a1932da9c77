"""RULES.md "Options and variants": each variant may apply to one, several or all rounds."""
import json

import pytest

from duckcover import cli
from duckcover.commands.play import build_options
from duckcover.engine import Game, RulesError
from duckcover.players.harness import play_game
from duckcover.saves import record
from duckcover.saves.record import RecordError
from duckcover.engine.rules import (
    COMPETITION, CONSTRAINTS, LOW_BLOWS, PRESSURE, SURPRISES, TWO_FLIPS, Rules, parse_variant, rules_with_variants,
)
from duckcover_bots.greedy import GreedyBot
from duckcover_bots.random_bot import RandomBot
from helpers import SPLASHES


def limited(**rounds) -> Rules:
    """Rules whose variants apply to the given rounds: limited(competition=[3])."""
    names = {name.replace("_", "-"): numbers for name, numbers in rounds.items()}
    return Rules(variants=frozenset(names), variant_rounds=names, splashes=SPLASHES)


def played(rule_set: Rules, players: int = 3, seed: int = 4) -> Game:
    return play_game([GreedyBot() for _ in range(players)], rule_set, seed=seed)


def end_values(game: Game, index: int) -> list[list[int]]:
    return [[stack[-1].number for stack in grid.values()] for grid in game.table(index)[0]]


def test_competition_in_round_3_only_scores_numbers_there_and_splashes_before():
    game = played(limited(competition=[3]))
    for index, result in enumerate(game.results):
        numbers = index == 2
        for tops, score in zip(end_values(game, index), result.scores):
            values = tops if numbers else [SPLASHES[n - 1] for n in tops]
            assert score == (-values[0] if len(values) == 1 else sum(values))


def test_a_limited_variant_is_in_force_only_in_its_rounds():
    game = Game(3, limited(surprises=[1, 2], constraints=[2]), seed=1)
    seen = []
    while True:
        seen.append((SURPRISES in game.round_rules.variants, CONSTRAINTS in game.round_rules.variants, len(game.round.deck)))
        assert game.view(0).rules == game.round_rules  # bots see the rules of the round they play
        while game.phase.value == "flip":
            game.flip()
            if game.awaiting:
                game.play([m[0] if (m := game.legal_moves(s)) else None for s in range(3)])
        if game.over:
            break
        game.start_round()
    # round 1: Surprises (26 - 2); round 2: both (20 - 2); round 3: neither (26)
    assert seen == [(True, False, 24), (True, True, 18), (False, False, 26)]
    assert [len(log.removed) for log in game.rounds] == [2, 2, 0]


def test_two_flips_in_one_round_and_low_blows_in_another_may_share_a_game():
    rule_set = limited(low_blows=[1, 3], two_flips=[2])
    game = played(rule_set, seed=9)
    assert game.over
    assert all(len(turn.flips) == 2 for turn in game.rounds[1].turns)
    assert all(len(turn.flips) == 1 for log in (game.rounds[0], game.rounds[2]) for turn in log.turns)
    assert any(turn.gifts for turn in game.rounds[0].turns + game.rounds[2].turns)


def test_pressure_limited_to_the_last_round_is_pressure():
    assert limited(pressure=[3]) == Rules(variants=frozenset([PRESSURE]), splashes=SPLASHES)


@pytest.mark.parametrize(
    "rounds, message",
    [
        ({"pressure": [1, 2]}, "pressure acts in the last round only"),
        ({"competition": [0]}, "rounds must be numbers from 1 to 3"),
        ({"competition": [4]}, "rounds must be numbers from 1 to 3"),
        ({"competition": []}, "rounds must be numbers from 1 to 3"),
        ({"competition": ["3"]}, "rounds must be numbers from 1 to 3"),
        ({"cooperative": [1]}, "applies to the whole game"),
        ({"low_blows": [1, 2], "two_flips": [2]}, "cannot be combined"),
    ],
)
def test_bad_rounds_are_refused(rounds, message):
    with pytest.raises(RulesError, match=message):
        limited(**rounds)


def test_rounds_for_a_variant_that_is_not_chosen_are_refused():
    with pytest.raises(RulesError, match="not among the variants"):
        Rules(variants=frozenset(), variant_rounds={COMPETITION: [1]})


def test_all_rounds_is_the_same_as_no_rounds():
    assert limited(competition=[1, 2, 3]) == Rules(variants=frozenset([COMPETITION]), splashes=SPLASHES)
    assert limited(competition=[3, 3]).variant_rounds == ((COMPETITION, (3,)),)


# --- the record ---------------------------------------------------------------------------------
def test_the_record_keeps_the_rounds_and_replays_the_same_game(tmp_path):
    rule_set = limited(competition=[3], two_flips=[2], surprises=[1])
    game = played(rule_set, seed=5)
    data = record.to_record(game)
    assert data["rules"]["variant_rounds"] == {"competition": [3], "surprises": [1], "two-flips": [2]}
    assert data["rules"]["variants"] == ["competition", "surprises", "two-flips"]
    assert "flips" in data["rounds"][1]["turns"][0] and "flip" in data["rounds"][0]["turns"][0]
    again = record.replay(json.loads(json.dumps(data)))
    assert again.rules == rule_set and again.totals == game.totals


def test_a_plain_variants_list_still_means_every_round():
    game = play_game([RandomBot() for _ in range(3)], Rules(variants=frozenset([COMPETITION]), splashes=SPLASHES), seed=2)
    data = record.to_record(game)
    assert "variant_rounds" not in data["rules"]  # records without limits are written as before
    again = record.replay(data)
    assert all(COMPETITION in again.rules.for_round(index).variants for index in range(3))


@pytest.mark.parametrize("bad", [{"competition": 3}, ["competition"], {"competition": [9]}, {"chaos\x1b[2J": [1]}])
def test_a_broken_variant_rounds_field_is_a_record_error(bad):
    data = record.to_record(played(limited(competition=[3])))
    data["rules"]["variant_rounds"] = bad
    with pytest.raises(RecordError):
        record.replay(data)


# --- the command line ---------------------------------------------------------------------------
def test_parse_variant_reads_name_and_rounds():
    assert parse_variant("competition") == ("competition", None)
    assert parse_variant("surprises:1,2") == ("surprises", (1, 2))
    with pytest.raises(ValueError, match="rounds are numbers"):
        parse_variant("surprises:one")
    with pytest.raises(ValueError, match="unknown variant"):
        parse_variant("chaos:1")


def test_a_variant_named_twice_joins_its_rounds_and_a_bare_name_means_all():
    assert rules_with_variants(["competition:1", "competition:3"]).variant_rounds == ((COMPETITION, (1, 3)),)
    assert rules_with_variants(["competition:1", "competition"]).variant_rounds == ()


def test_play_takes_variant_name_colon_rounds():
    args = cli.build_parser().parse_args(["play", "--bots", "2", "--variant", "competition:3", "--variant", "surprises:1,2"])
    rule_set = build_options(args).rules
    assert rule_set.variant_rounds == ((COMPETITION, (3,)), (SURPRISES, (1, 2)))


@pytest.mark.parametrize("spec, says", [
    ("competition:4", "rounds must be numbers from 1 to 3"), ("competition:x", "rounds are numbers separated"),
    ("pressure:1", "its rounds must include 3"), ("low-blows", "cannot be combined"),
    ("artists-pack", "the artists-pack variant is for 8-9 players"),
])
def test_play_refuses_bad_variant_rounds_in_one_line(spec, says, capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("DUCKCOVER_DATA", str(tmp_path))
    extra = ["--variant", "two-flips"] if spec == "low-blows" else []
    assert cli.main(["play", "--bots", "2", "--variant", spec, *extra]) == 2
    err = capsys.readouterr().err
    assert err.startswith("duckcover: ") and err.count("\n") == 1
    assert says in err


def test_low_blows_and_two_flips_in_different_rounds_are_accepted_on_the_command_line():
    args = cli.build_parser().parse_args(["play", "--bots", "2", "--variant", "low-blows:1", "--variant", "two-flips:2,3"])
    rule_set = build_options(args).rules
    assert LOW_BLOWS in rule_set.for_round(0).variants and TWO_FLIPS in rule_set.for_round(1).variants
