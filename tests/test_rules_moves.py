"""RULES.md "A turn", step 3: Cover and Duck, whole stacks, no pass, simultaneous moves."""
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from duckcover.engine import CARDS, IllegalMoveError, Move, Phase, duck_targets, neighbours
from helpers import STANDARD, card, examples, new_game, tops, turn


def _game(players=2):
    return new_game([STANDARD] * players)


def _legal_targets(game, seat, number):
    return {m.to for m in game.legal_moves(seat) if m.card.number == number}


def test_cover_goes_onto_an_orthogonally_adjacent_stack():
    game = _game()
    game.flip(6)  # card 6 sits at (1, 1), in the middle of the grid
    covers = {to for to in _legal_targets(game, 0, 6) if to in game.grid(0)}
    assert covers == {(1, 0), (0, 1), (2, 1), (1, 2)}


@pytest.mark.parametrize("diagonal", [(0, 0), (2, 0), (0, 2), (2, 2)])
def test_cover_is_never_diagonal(diagonal):
    game = _game()
    game.flip(6)
    assert diagonal not in _legal_targets(game, 0, 6)
    with pytest.raises(IllegalMoveError, match="cannot cover"):
        game.play([Move(card(0, 6), diagonal), Move(card(1, 6), (1, 0))])


def test_cover_onto_a_non_adjacent_stack_is_illegal():
    game = _game()
    game.flip(6)
    with pytest.raises(IllegalMoveError, match="cannot cover") as err:
        game.play([Move(card(0, 6), (1, 0)), Move(card(1, 6), (3, 1))])
    assert err.value.seat == 1


def test_cover_puts_the_moving_stack_on_top_of_the_stack_there():
    game = _game()
    turn(game, 6, {0: (6, (1, 0)), 1: (6, (1, 0))})
    assert game.grid(0)[(1, 0)] == (card(0, 2), card(0, 6))
    assert (1, 1) not in game.grid(0)


def test_duck_goes_to_an_empty_cell_touching_another_of_the_players_stacks():
    game = _game()
    game.flip(4)  # 4 sits in the corner (3, 0)
    ducks = {to for to in _legal_targets(game, 0, 4) if to not in game.grid(0)}
    # (3, -1) and (4, 0) touch only the 4 itself; (4, 1) touches the 8: legal
    assert (4, 1) in ducks and (2, -1) in ducks
    assert (3, -1) not in ducks and (4, 0) not in ducks


def test_duck_touching_only_its_own_origin_is_illegal():
    game = _game()
    game.flip(4)
    with pytest.raises(IllegalMoveError, match="cannot duck"):
        game.play([Move(card(0, 4), (4, 0)), Move(card(1, 4), (4, 1))])


@pytest.mark.parametrize("corner", [(-1, -1), (4, -1), (-1, 3), (4, 3)])
def test_duck_touching_a_stack_only_diagonally_is_illegal(corner):
    # Each corner outside the 4x3 grid touches one of its corner stacks, diagonally only;
    # the 6 moves from (1, 1), so the stack it would touch is another one.
    game = _game()
    game.flip(6)
    assert corner not in _legal_targets(game, 0, 6)
    with pytest.raises(IllegalMoveError, match="cannot duck"):
        game.play([Move(card(0, 6), corner), Move(card(1, 6), (1, -1))])
    assert game.view(0).is_legal(Move(card(0, 6), corner)) is False


def test_duck_far_from_every_stack_is_illegal():
    game = _game()
    game.flip(1)
    with pytest.raises(IllegalMoveError):
        game.play([Move(card(0, 1), (10, 10)), Move(card(1, 1), (0, -1))])


def test_duck_outside_the_starting_grid_with_negative_coordinates():
    game = _game()
    turn(game, 5, {0: (5, (-1, 0)), 1: (5, (0, 3))})  # beside the 1 / below the 9
    assert game.grid(0)[(-1, 0)] == (card(0, 5),)
    assert game.grid(1)[(0, 3)] == (card(1, 5),)
    assert (0, 1) not in game.grid(0)


def test_duck_may_fill_a_gap_in_the_grid():
    game = _game()
    turn(game, 6, {0: (6, (1, 0)), 1: (6, (1, 0))})  # (1, 1) is now a gap
    turn(game, 7, {0: (7, (1, 1)), 1: (7, (2, 0))})
    assert game.grid(0)[(1, 1)] == (card(0, 7),)


def test_a_moving_card_carries_the_whole_stack_beneath_it():
    game = _game()
    turn(game, 6, {0: (6, (1, 0)), 1: (6, (1, 0))})  # 6 on 2
    turn(game, 6, {0: (6, (2, 0)), 1: (6, (0, 0))})  # the stack 2, 6 onto the 3
    assert game.grid(0)[(2, 0)] == (card(0, 3), card(0, 2), card(0, 6))
    assert (1, 0) not in game.grid(0)
    assert game.view(1).grids[0].height((2, 0)) == 3


def test_no_pass_a_visible_called_card_must_move():
    game = _game()
    game.flip(5)
    with pytest.raises(IllegalMoveError, match="must move") as err:
        game.play([Move(card(0, 5), (0, 0)), None])
    assert err.value.seat == 1


def test_a_called_card_cannot_stay_where_it_is():
    game = _game()
    game.flip(5)
    with pytest.raises(IllegalMoveError):
        game.play([Move(card(0, 5), (0, 1)), Move(card(1, 5), (0, 0))])


@pytest.mark.parametrize("to", [(0.0, 0.0), (True, 0), ("0", "0"), (0, 0, 0), [0, 0]])
def test_a_destination_must_be_a_cell_of_two_whole_numbers(to):
    game = _game()
    game.flip(5)  # STANDARD has 5 at (0, 1): (0, 0) would be a legal cover
    with pytest.raises(IllegalMoveError, match="is not a cell"):
        game.play([Move(card(0, 5), to), Move(card(1, 5), (0, 0))])
    assert game.phase is Phase.MOVE


def test_only_the_called_card_may_move():
    game = _game()
    game.flip(5)
    with pytest.raises(IllegalMoveError, match="cannot move on this call"):
        game.play([Move(card(0, 6), (1, 0)), Move(card(1, 5), (0, 0))])


def test_an_illegal_joint_move_changes_nothing():
    game = _game()
    game.flip(5)
    before = [dict(game.grid(s)) for s in range(2)]
    with pytest.raises(IllegalMoveError):
        game.play([Move(card(0, 5), (0, 0)), Move(card(1, 5), (2, 2))])  # seat 1 diagonal/far
    assert [dict(game.grid(s)) for s in range(2)] == before
    assert game.phase is Phase.MOVE and game.pile == ()
    game.play([Move(card(0, 5), (0, 0)), Move(card(1, 5), (0, 0))])  # the turn can still be played


def test_moves_are_simultaneous_each_checked_against_the_position_before_the_turn():
    game = _game()
    turn(game, 5, {0: (5, (0, 0)), 1: (5, (0, 2))})
    view_before = game.view(1)
    turn(game, 7, {0: (7, (3, 1)), 1: (7, (2, 0))})
    assert view_before.grids[0].top((2, 1)).number == 7  # a view is a snapshot of its moment
    assert tops(game, 0)[(3, 1)] == 7


def test_cards_need_not_stay_connected():
    game = _game()
    turn(game, 4, {0: (4, (4, 1)), 1: (4, (4, 1))})  # 4 ducks beside the 8
    turn(game, 8, {0: (8, (2, 1)), 1: (8, (3, 2))})  # the 8 leaves: the 4 is now alone
    grid = game.grid(0)
    assert (4, 1) in grid
    assert not any(near in grid for near in neighbours((4, 1)))


def test_a_covered_card_never_becomes_visible_again():
    game = _game()
    turn(game, 6, {0: (6, (0, 1)), 1: (6, (1, 0))})  # seat 0's 5 under its 6
    turn(game, 6, {0: (6, (-1, 0)), 1: (6, (0, 0))})  # the 6 ducks away carrying the 5
    assert game.grid(0)[(-1, 0)] == (card(0, 5), card(0, 6))
    assert (0, 1) not in game.grid(0)
    game.flip(5)
    assert 0 not in game.awaiting  # still covered, wherever its stack went


# --- a legal duck always exists while a player has two or more stacks -----------------------
cells = st.tuples(st.integers(-4, 4), st.integers(-4, 4))


@settings(max_examples=examples(200), deadline=None)
@given(st.sets(cells, min_size=2, max_size=14))
def test_a_legal_duck_always_exists_with_two_or_more_stacks(occupied):
    grid = {cell: (CARDS[0][1 + i % 12],) for i, cell in enumerate(sorted(occupied))}
    for origin in grid:
        assert duck_targets(grid, origin), f"no duck for {origin} in {sorted(grid)}"
