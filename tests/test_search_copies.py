"""Game.clone() and Game.determinized(view, rng): the copies a search bot plays its look-ahead on."""
import random

import pytest

from duckcover.engine import CHOOSING, Game, IllegalMoveError, Move, Phase, RulesError
from duckcover.engine.rules import LOW_BLOWS, Rules
from duckcover.players.harness import decide, prepare
from duckcover_bots.greedy import GreedyBot
from helpers import rules

PUBLIC = [name for name in Game(2, seed=0).view(0)._fields if name not in ("grids", "history")]


def same_view(a, b) -> None:
    for name in PUBLIC:
        if name == "candidates":  # under low blows two cards may share a number: order may differ
            assert set(a.candidates) == set(b.candidates)
        else:
            assert getattr(a, name) == getattr(b, name), name
    assert [dict(g.cells) for g in a.grids] == [dict(g.cells) for g in b.grids]
    assert a.history == b.history


def positions(rule_set: Rules, seed: int, players: int = 3):
    """Every position where seat 0 chooses (or the Captain is about to flip) in one greedy game."""
    bots = [GreedyBot() for _ in range(players)]
    prepare(bots)
    game = Game(players, rule_set, seed=seed)
    while not game.over:
        if game.phase is Phase.ROUND_OVER:
            game.start_round()
        yield game
        game.flip()
        while game.phase in CHOOSING:
            if game.phase is not Phase.PLACE:
                yield game
            game.play(decide(game, bots))


@pytest.mark.parametrize("variants", [(), ("surprises",), ("two-flips",), ("low-blows",), ("constraints", "competition")])
def test_a_determinized_game_shows_the_seat_exactly_its_view(variants):
    checked = 0
    for game in positions(rules(*variants), seed=3):
        view = game.view(0)
        copy = Game.determinized(view, random.Random(checked))
        same_view(copy.view(0), view)
        assert copy.awaiting == game.awaiting
        checked += 1
    assert checked > 40


def test_a_determinized_game_plays_on_with_the_engine_to_the_round_end():
    for index, game in enumerate(positions(rules("low-blows"), seed=6)):
        if game.phase is not Phase.MOVE:
            continue
        copy = Game.determinized(game.view(0), random.Random(index))
        bots = [GreedyBot() for _ in range(game.n)]
        prepare(bots)
        while copy.phase in CHOOSING or copy.phase is Phase.FLIP:
            if copy.phase is Phase.FLIP:
                copy.flip()
            else:
                copy.play(decide(copy, bots))
        assert copy.phase in (Phase.ROUND_OVER, Phase.GAME_OVER)
        assert len(copy.results) == game.round_index + 1


def test_the_hidden_deck_order_never_reaches_a_determinized_game():
    """Two tables that differ only in the draw deck's order give the same copy for the same rng."""
    deck = sorted(Rules().deck())
    futures = []
    for order in (deck, list(reversed(deck))):
        game = Game(2, rules(), seed=1, start=False)
        game.start_round(deck=order)
        game.flip(12)
        copy = Game.determinized(game.view(0), random.Random(7))
        copy.play([moves[0] if (moves := copy.legal_moves(s)) else None for s in range(2)])
        futures.append([copy.flip() for _ in range(3) if copy.phase is Phase.FLIP])
    assert futures[0] == futures[1]


def test_the_copy_deals_the_unseen_cards_only():
    game = Game(3, rules("surprises"), seed=2)
    game.flip()
    view = game.view(0)
    seen = set()
    for seed in range(30):
        copy = Game.determinized(view, random.Random(seed))
        assert copy.draw_size == game.draw_size
        hidden = sorted(copy._draw)
        real = sorted(game._draw + game.round.removed)
        assert all(hidden.count(code) <= real.count(code) for code in hidden)  # only cards the seat has not seen
        seen.add(tuple(copy._draw))
    assert len(seen) > 1  # the order is dealt, not copied


def test_a_place_phase_view_cannot_be_determinized():
    for game in positions(rules(LOW_BLOWS), seed=2):
        if game.phase is Phase.GIFT:
            bots = [GreedyBot() for _ in range(game.n)]
            prepare(bots)
            game.play(decide(game, bots))
            assert game.phase is Phase.PLACE
            with pytest.raises(RulesError):
                Game.determinized(game.view(0), random.Random(0))
            return
    raise AssertionError("no low-blows gift in this game")


def test_a_clone_is_independent_of_its_original():
    game = Game(3, rules(), seed=4)
    bots = [GreedyBot() for _ in range(3)]
    prepare(bots)
    for _ in range(5):
        game.flip()
        while game.phase in CHOOSING:
            game.play(decide(game, bots))
    before = game.view(0)
    turns, draw, pile = list(game.round.turns), game.draw_size, game.pile
    copy = game.clone()
    same_view(copy.view(0), before)
    while copy.phase is Phase.FLIP:  # play the copy to the end of its round
        copy.flip()
        while copy.phase in CHOOSING:
            copy.play(decide(copy, bots))
    assert copy.phase is not Phase.FLIP
    same_view(game.view(0), before)  # the original did not move
    assert (game.round.turns, game.draw_size, game.pile) == (turns, draw, pile)
    assert not game.results and copy.results


@pytest.mark.parametrize("variants", [(), ("two-flips",), ("low-blows",), ("constraints", "competition")])
def test_a_trusted_play_applies_the_same_turn_as_a_checked_one(variants):
    """play(trusted=True) only leaves out the re-check: same turn, same position after it."""
    played = 0
    for index, game in enumerate(positions(rules(*variants), seed=5)):
        if game.phase not in CHOOSING:
            continue
        rng = random.Random(index)
        moves = [rng.choice(game.legal_moves(seat)) if seat in game.awaiting else None for seat in range(game.n)]
        checked, trusted = game.clone(), game.clone()
        assert checked.play(moves) == trusted.play(moves, trusted=True)
        assert checked.phase is trusted.phase
        same_view(checked.view(0), trusted.view(0))
        played += 1
    assert played > 30


def test_an_untrusted_play_still_refuses_an_illegal_move():
    game = Game(2, rules(), seed=1)
    game.flip(12)
    seat = game.awaiting[0]
    card, origin = game.candidates(seat)[0]
    moves = [None] * game.n
    moves[seat] = Move(card, origin)  # staying put is never legal
    with pytest.raises(IllegalMoveError):
        game.clone().play(moves)
