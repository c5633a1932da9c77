"""RULES.md "Components" and "Setup": the grid, the decks, the splash table, the captain."""
from collections import Counter

import pytest

from duckcover.engine import Rules, RulesError
from duckcover.engine.cards import CARDS, FAMILIES, MAX, REPEAT, packaged_splashes
from duckcover.engine.game import Game, Phase, check_layout
from helpers import SPLASHES, STANDARD, finish_round, layout, new_game, rules


def test_splash_table_is_the_rulebook_table():
    assert packaged_splashes() == SPLASHES
    assert [rules().value(n) for n in range(1, 13)] == list(SPLASHES)


def test_splash_table_can_be_overridden_per_game():
    custom = Rules(splashes=tuple(range(12)))
    assert custom.value(12) == 11


@pytest.mark.parametrize("players", range(2, 10))
def test_each_player_starts_with_a_4x3_grid_of_their_own_family(players):
    game = Game(players, rules(), seed=players)
    for seat in range(players):
        grid = game.grid(seat)
        assert set(grid) == {(x, y) for x in range(4) for y in range(3)}
        assert sorted(stack[0].number for stack in grid.values()) == list(range(1, 13))
        assert all(len(stack) == 1 and stack[0].family == seat for stack in grid.values())


def test_layout_cell_x_y_holds_layouts_row_y_column_x():
    lay = layout({(3, 0): 1, (0, 2): 12})
    game = new_game([lay, STANDARD])
    assert game.grid(0)[(3, 0)] == (CARDS[0][1],)
    assert game.grid(0)[(0, 2)] == (CARDS[0][12],)
    assert game.grid(1)[(1, 2)] == (CARDS[1][10],)


@pytest.mark.parametrize("bad", [[[1, 2, 3, 4]] * 3, STANDARD[:2], [[1, 2, 3, 4, 5], [6, 7, 8], [9, 10, 11, 12]],
                                 [[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 13]]])
def test_a_layout_must_be_a_permutation_of_1_to_12_in_3_rows_of_4(bad):
    with pytest.raises(ValueError):
        check_layout(bad)


def test_captain_deck_has_two_series_max_and_repeat_26_cards():
    deck = rules().deck()
    assert len(deck) == 26
    assert Counter(deck) == Counter({**{n: 2 for n in range(1, 13)}, MAX: 1, REPEAT: 1})


def test_round_starts_with_the_full_shuffled_deck_and_empty_piles():
    game = Game(4, rules(), seed=3)
    assert game.draw_size == 26
    assert sorted(game.round.deck) == sorted(rules().deck())
    assert game.pile == () and game.discard == ()
    assert game.phase is Phase.FLIP


def test_the_deck_order_depends_on_the_seed():
    orders = {tuple(Game(2, rules(), seed=s).round.deck) for s in range(5)}
    assert len(orders) > 1
    assert Game(2, rules(), seed=7).round.deck == Game(2, rules(), seed=7).round.deck


def test_a_dealt_layout_is_the_shuffle_of_1_to_12_in_rows():
    """random_layout sorts the numbers by their own random keys, a shortcut of the general
    shuffle: it must deal the same layouts (seeded games depend on it) and draw as many keys."""
    import random

    from duckcover.engine import NUMBERS
    from duckcover.engine.game import random_layout, shuffled

    for seed in range(300):
        dealt, general = random.Random(seed), random.Random(seed)
        assert [n for row in random_layout(dealt) for n in row] == shuffled(NUMBERS, general)
        assert dealt.random() == general.random()


def test_nine_families_exist_seven_in_the_box_two_in_the_artists_pack():
    assert FAMILIES == 9
    assert len(CARDS) == 9 and all(CARDS[f][n].family == f for f in range(9) for n in range(1, 13))


@pytest.mark.parametrize("players", [0, 1, 10])
def test_a_table_takes_2_to_9_players(players):
    with pytest.raises(RulesError):
        Game(players, rules())


def _captains(rule_set, players, first=0):
    game = Game(players, rule_set, seed=1, first_captain=first, start=False)
    found = []
    for _ in range(rule_set.rounds()):
        game.start_round()
        found.append(game.captain)
        finish_round(game)
    return found


def test_captain_rotates_to_the_next_seat_each_round():
    assert _captains(rules(), 4) == [0, 1, 2]
    assert _captains(rules(), 3, first=2) == [2, 0, 1]


def test_captain_option_fixed_keeps_the_same_captain():
    assert _captains(rules(captain="fixed"), 4, first=1) == [1, 1, 1]


def test_unknown_options_are_refused():
    with pytest.raises(RulesError):
        Rules(max_by="colour")
    with pytest.raises(RulesError):
        Rules(captain="vote")
    with pytest.raises(RulesError):
        Rules(variants=frozenset({"chaos"}))


def test_a_box_owner_can_override_the_splash_table(tmp_path):
    import json
    import os
    import subprocess
    import sys

    table = tmp_path / "splashes.json"
    table.write_text(json.dumps({"splashes": [0, 1, 1, 2, 2, 3, 3, 3, 4, 4, 4, 6]}), encoding="utf-8")
    code = "from duckcover.engine.rules import Rules; print(list(Rules().splashes))"
    env = {**os.environ, "DUCKCOVER_SPLASHES": str(table)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert out.stdout.strip() == "[0, 1, 1, 2, 2, 3, 3, 3, 4, 4, 4, 6]"
