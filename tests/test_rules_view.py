"""RULES.md "Information": a view shows what a player sees, never the deck order, and is immutable."""
import random

import pytest

from duckcover.engine import CARDS, Game, Move, Phase
from helpers import STANDARD, canonical, card, new_game, rules, turn, walk

def _midgame(seed=3):
    game = Game(4, rules(), seed=seed)
    for _ in range(5):
        game.flip()
        if game.awaiting:
            game.play([game.legal_moves(s)[0] if s in game.awaiting else None for s in range(4)])
    assert game.phase is Phase.FLIP and game.draw_size > 15
    return game


def test_view_contains_no_deck_order():
    game = _midgame()
    draw = tuple(game._draw)  # the engine's draw pile (white box: the secret we look for)
    secrets = {draw, draw[::-1], tuple(game.round.deck)}
    for seat in range(4):
        reached = list(walk(game.view(seat)))
        assert len({c for c in reached if type(c).__name__ == "Card"}) == 48  # the walk sees every grid
        for obj in reached:
            assert not isinstance(obj, Game)
            if isinstance(obj, (tuple, list)):
                assert tuple(obj) not in secrets


def test_view_does_not_change_when_the_deck_is_reordered():
    game = _midgame()
    before = [canonical(game.view(seat)) for seat in range(4)]
    random.Random(1).shuffle(game._draw)
    game._version += 1  # force the views to be rebuilt from the reordered deck
    assert [canonical(game.view(seat)) for seat in range(4)] == before
    assert game.view(0).draw_size == len(game._draw)


def test_view_holds_no_mutable_container():
    game = _midgame()
    for obj in walk(game.view(1)):
        assert not isinstance(obj, (list, dict, set)), f"mutable {type(obj).__name__} in a view"


def test_view_fields_cannot_be_reassigned():
    view = new_game([STANDARD] * 2).view(0)
    with pytest.raises(AttributeError):
        view.discard = (5,)
    with pytest.raises(AttributeError):
        view.grid.foo = 1


def test_view_grid_cannot_be_mutated_and_attempts_change_nothing_in_the_game():
    game = new_game([STANDARD] * 2)
    view = game.view(0)
    with pytest.raises(TypeError):
        view.grid.cells[(0, 0)] = (card(0, 12),)
    with pytest.raises(TypeError):
        del view.grids[1].cells[(0, 0)]
    with pytest.raises(TypeError):
        game.grid(0)[(9, 9)] = (card(0, 1),)
    with pytest.raises(AttributeError):
        view.grid.cells[(0, 0)].append(card(0, 12))  # stacks are tuples
    assert game.grid(0)[(0, 0)] == (CARDS[0][1],) and len(game.grid(0)) == 12
    assert game.view(0).grid.top((0, 0)) == card(0, 1)


def test_a_view_is_a_snapshot_later_moves_do_not_show_in_it():
    game = new_game([STANDARD] * 2)
    view = game.view(0)
    turn(game, 5, {0: (5, (0, 0)), 1: (5, (0, 0))})
    assert view.grid.top((0, 1)) == card(0, 5) and view.phase is Phase.FLIP and view.history == ()
    assert game.view(0).grid.height((0, 0)) == 2


def test_view_shows_all_grids_piles_and_public_history():
    game = new_game([STANDARD] * 3)
    turn(game, 5, {s: (5, (0, 0)) for s in range(3)})
    view = game.view(2)
    assert view.seat == 2 and len(view.grids) == 3
    assert view.captain_pile_top == 5 and view.discard == () and view.draw_size == 25
    assert view.history[-1].moves[0] == Move(card(0, 5), (0, 0))
    assert view.grids[1].where(card(1, 5)) == (0, 0)
    assert view.grids[1].where(card(1, 1)) is None  # covered: not visible


def test_view_candidates_are_the_seats_own_choices_only():
    game = new_game([STANDARD] * 2)
    game.flip(5)
    assert game.view(0).candidates == ((card(0, 5), (0, 1)),)
    assert set(game.view(0).legal_moves()) == set(game.legal_moves(0))
    assert all(game.view(0).is_legal(m) for m in game.legal_moves(0))
    assert not game.view(0).is_legal(Move(card(0, 5), (2, 2)))


def test_a_bot_cannot_swap_what_other_seats_see():
    game = new_game([STANDARD] * 2)
    game.flip(5)
    mine, theirs = game.view(0), game.view(1)
    with pytest.raises(AttributeError):
        mine.grids[1].cells = {}  # the GridView objects are shared by every seat's view
    with pytest.raises(AttributeError):
        del mine.grids[1].cells
    assert len(theirs.grid) == 12 and theirs.grid.top((0, 1)) == card(1, 5)
