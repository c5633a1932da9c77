"""RULES.md "A turn", step 2: what a flip calls (number, Max, Repeat) and who quacks."""
import pytest

from duckcover.engine import MAX, REPEAT, IllegalMoveError, Move, Phase
from helpers import STANDARD, card, new_game, rules, turn


def _standard(players=2, rule_set=None):
    return new_game([STANDARD] * players, rule_set)


def test_number_call_moves_every_players_visible_card_with_that_number():
    game = _standard(3)
    call = game.flip(5)
    assert call.kind == "move" and call.options == (5,)
    assert game.awaiting == (0, 1, 2)
    for seat in range(3):
        assert game.candidates(seat) == ((card(seat, 5), (0, 1)),)
        assert {m.card for m in game.legal_moves(seat)} == {card(seat, 5)}


def test_a_player_whose_called_card_is_covered_says_quack_and_does_nothing():
    game = _standard()
    turn(game, 6, {0: (6, (0, 1)), 1: (6, (1, 0))})  # seat 0 covers its 5 with its 6
    game.flip(5)
    assert game.awaiting == (1,)
    assert game.view(0).must_quack and game.legal_moves(0) == []
    with pytest.raises(IllegalMoveError) as err:
        game.play([Move(card(0, 5), (1, 1)), Move(card(1, 5), (0, 0))])
    assert err.value.seat == 0 and "quack" in err.value.reason
    game.play([None, Move(card(1, 5), (0, 0))])
    assert game.last_turn.moves[0] is None


def test_max_moves_the_visible_card_with_the_highest_number():
    game = _standard()
    turn(game, 8, {0: (8, (3, 2)), 1: (8, (4, 0))})  # seat 0 covers its 12
    call = game.flip(MAX)
    assert call.options == (MAX,)
    assert [c.number for c, _ in game.candidates(0)] == [11]
    assert [c.number for c, _ in game.candidates(1)] == [12]


def test_max_by_splashes_moves_the_visible_card_with_most_splashes():
    game = _standard(2, rules(max_by="splashes"))
    game.flip(MAX)
    assert [c.number for c, _ in game.candidates(0)] == [12]  # 12 alone has 5 splashes


def test_max_by_splashes_tie_is_the_players_choice():
    game = _standard(2, rules(max_by="splashes"))
    turn(game, 8, {0: (8, (3, 2)), 1: (8, (4, 0))})  # 12 covered: 10 and 11 both have 4 splashes
    game.flip(MAX)
    assert sorted(c.number for c, _ in game.candidates(0)) == [10, 11]
    legal = game.legal_moves(0)
    assert {m.card.number for m in legal} == {10, 11}
    game.play([Move(card(0, 10), (1, 1)), Move(card(1, 12), (2, 2))])  # choosing 10 is accepted
    assert game.grid(0)[(1, 1)][-1] == card(0, 10)


def test_max_by_number_never_offers_a_choice():
    game = _standard(2, rules(max_by="number"))
    turn(game, 8, {0: (8, (3, 2)), 1: (8, (4, 0))})
    game.flip(MAX)
    assert [c.number for c, _ in game.candidates(0)] == [11]


def test_nobody_quacks_on_max():
    game = _standard(4)
    turn(game, 12, {s: (12, (2, 2)) for s in range(4)})
    turn(game, 11, {s: (11, (1, 2)) for s in range(4)})
    game.flip(MAX)
    assert game.awaiting == (0, 1, 2, 3)
    assert not any(game.view(s).must_quack for s in range(4))


def test_repeat_repeats_the_previous_number():
    game = _standard()
    turn(game, 5, {0: (5, (0, 0)), 1: (5, (1, 1))})
    call = game.flip(REPEAT)
    assert call.kind == "move" and call.options == (5,)
    assert game.candidates(0) == ((card(0, 5), (0, 0)),)


def test_repeat_repeats_the_latest_flip_not_an_earlier_one():
    game = _standard()
    turn(game, 5, {0: (5, (0, 0)), 1: (5, (1, 1))})
    turn(game, 7, {0: (7, (3, 1)), 1: (7, (2, 0))})
    call = game.flip(REPEAT)
    assert call.options == (7,)
    assert game.candidates(0) == ((card(0, 7), (3, 1)),)


def test_repeat_after_max_is_max_again():
    game = _standard()
    turn(game, MAX, {0: (12, (2, 2)), 1: (12, (3, 1))})
    call = game.flip(REPEAT)
    assert call.options == (MAX,)
    assert [c.number for c, _ in game.candidates(0)] == [12]


def test_repeat_first_flip_of_round_goes_to_discard():
    game = _standard()
    call = game.flip(REPEAT)
    assert call.kind == "dead"
    assert game.phase is Phase.FLIP and game.awaiting == ()
    assert game.discard == (REPEAT,) and game.pile == ()
    assert game.last_turn.discarded and game.last_turn.moves == (None, None)
    assert game.view(0).discard == (REPEAT,)  # it counts as a discarded card


def test_repeat_after_a_discarded_card_goes_to_discard():
    game = _standard()
    turn(game, 6, {0: (6, (0, 1)), 1: (6, (0, 1))})  # both 5s covered
    game.flip(5)  # everybody quacks: the 5 is discarded
    assert game.discard == (5,)
    call = game.flip(REPEAT)
    assert call.kind == "dead"
    assert game.discard == (5, REPEAT)
    assert game.pile == (6,)


def test_repeat_after_a_played_card_that_everybody_could_move_is_not_discarded():
    game = _standard()
    turn(game, 3, {0: (3, (2, 1)), 1: (3, (2, 1))})
    turn(game, REPEAT, {0: (3, (2, 2)), 1: (3, (1, 1))})
    assert game.discard == () and game.pile == (3, REPEAT)
