"""RULES.md "A turn", steps 1, 4 and 5: where the flipped card goes, reshuffles, how a round ends."""
import pytest

from duckcover.engine import MAX, REPEAT, Game, Phase, game as game_module
from duckcover.engine.rules import TURN_CAP, Rules
from helpers import STANDARD, DuckBot, finish_round, new_game, rules, turn

# Pairs (k, k+1) side by side in the STANDARD layout: k+1 covers k, then both k's are quacked.
PAIRS = (1, 3, 5, 7, 9)


def _discard_until(game, limit):
    """Fill the Discard area one quacked card at a time; check the round runs until `limit`."""
    turn(game, REPEAT)  # first flip: straight to the Discard area
    for k in PAIRS:
        for _ in range(2):
            if len(game.discard) == limit:
                return
            assert game.phase is Phase.FLIP, f"round ended early at {len(game.discard)} discards"
            if k in game.discard:  # the second copy of k
                turn(game, k)
                continue
            start = [(x, y) for y, row in enumerate(STANDARD) for x, n in enumerate(row) if n == k][0]
            turn(game, k + 1, {s: (k + 1, start) for s in range(game.n)})
            turn(game, k)
    assert len(game.discard) == limit


@pytest.mark.parametrize("players,limit", [(2, 9), (3, 8), (4, 7), (5, 6), (6, 5), (7, 4), (8, 3), (9, 2)])
def test_discard_limit_is_11_minus_players(players, limit):
    game = new_game([STANDARD] * players)
    assert game.rules.discard_limit(players) == limit
    assert game.view(0).discard_limit == limit
    _discard_until(game, limit)
    assert game.results[-1].reason == "discard-limit"
    assert game.phase is Phase.ROUND_OVER


@pytest.mark.parametrize("players,limit", [(8, 3), (9, 2)])
def test_artists_pack_8_and_9_players_have_discard_limits_3_and_2(players, limit):
    game = Game(players, rules("artists-pack"), seed=1)
    assert game.view(0).discard_limit == limit
    assert len({stack[0].family for s in range(players) for stack in game.grid(s).values()}) == players


def test_the_view_tells_how_many_discards_are_left_before_the_round_ends():
    game = new_game([STANDARD] * 4)
    turn(game, REPEAT)
    view = game.view(2)
    assert len(view.discard) == 1 and view.discard_limit - len(view.discard) == 6


def test_card_goes_to_captain_pile_if_anyone_moved():
    game = new_game([STANDARD] * 3)
    turn(game, 6, {0: (6, (0, 1)), 1: (6, (0, 1)), 2: (6, (1, 0))})
    turn(game, 5, {2: (5, (0, 0))})  # seats 0 and 1 quack, seat 2 moves
    assert game.pile == (6, 5) and game.discard == ()
    assert game.view(1).captain_pile_top == 5


def test_card_goes_to_discard_area_if_everyone_quacked():
    game = new_game([STANDARD] * 2)
    turn(game, 6, {0: (6, (0, 1)), 1: (6, (0, 1))})
    turn(game, 5)
    assert game.discard == (5,) and game.pile == (6,)
    assert game.last_turn.discarded and game.last_turn.moves == (None, None)


def _play_until_draw_is_empty(game, bots):
    from duckcover.players.harness import decide, prepare

    prepare(bots)
    while game.draw_size:
        game.flip()
        while game.awaiting:
            game.play(decide(game, bots))
        assert game.phase is Phase.FLIP


def _draw_emptied_with_discards():
    """The first seeded 2-player round whose draw deck runs out with cards in the Discard area."""
    for seed in range(200):
        game = Game(2, rules(), seed=seed)
        _play_until_draw_is_empty(game, [DuckBot(), DuckBot()])
        if game.discard:
            return game
    raise AssertionError("no seed in 0-199 emptied the draw deck with a discarded card")


def test_empty_draw_deck_reshuffles_captain_pile_and_discard_stays():
    game = _draw_emptied_with_discards()
    pile, discard = game.pile, game.discard
    assert discard and len(pile) + len(discard) == 26
    game.flip()
    assert game.discard[: len(discard)] == discard  # still there, in order (the flip may add to it)
    assert len(game.round.reshuffles) == 1
    assert sorted(game.round.reshuffles[0]) == sorted(pile)  # the new deck is the pile alone
    assert game.draw_size == len(pile) - 1


def _single_stack_game():
    """The first seeded 3-player round that ends on a single stack (most do)."""
    for seed in range(50):
        game = Game(3, rules(), seed=seed)
        finish_round(game)
        if game.results[0].reason == "single-stack":
            return game
    raise AssertionError("no seed in 0-49 ended its first round on a single stack")


def test_round_ends_when_a_player_has_a_single_stack():
    game = _single_stack_game()
    outcome = game.results[0]
    assert outcome.reason == "single-stack"
    grids = game.table(0)[0]
    assert outcome.single_stack and all(len(grids[s]) == 1 for s in outcome.single_stack)
    assert outcome.stacks == tuple(len(g) for g in grids)
    assert all(len(grids[s]) > 1 for s in range(3) if s not in outcome.single_stack)


def test_single_stack_beats_discard_limit_when_both(monkeypatch):
    # In play both can never hold at once (discards only grow when nobody moves), so the
    # limit is forced to 0 just before the last turn of a round that ends on a single stack.
    played = _single_stack_game()
    turns = played.rounds[0].turns
    game = Game(3, rules(), seed=played.seed)
    for index, past in enumerate(turns):
        if index == len(turns) - 1:
            monkeypatch.setattr(Rules, "discard_limit", lambda self, players: 0)
        game.flip(past.flips[0])
        if game.awaiting:
            game.play(past.moves)
    assert game.results[0].reason == "single-stack"


def test_forced_discard_limit_alone_ends_the_round_by_discard_limit(monkeypatch):
    # The counterpart of the test above: the same forcing without a single stack.
    monkeypatch.setattr(Rules, "discard_limit", lambda self, players: 0)
    game = new_game([STANDARD] * 2)
    turn(game, 5, {0: (5, (0, 0)), 1: (5, (0, 0))})
    assert game.results[0].reason == "discard-limit"


def test_turn_cap_ends_a_round_after_1000_flips():
    assert TURN_CAP == 1000
    game = Game(2, rules(), seed=5)
    finish_round(game, DuckBot)  # nobody ever covers: no quack, no single stack
    assert game.results[0].reason == "turn-cap"
    assert len(game.rounds[0].turns) == 1000
    assert len(game.discard) < game.rules.discard_limit(2)


def test_turn_cap_is_read_by_the_engine(monkeypatch):
    monkeypatch.setattr(game_module, "TURN_CAP", 7)
    game = Game(2, rules(), seed=5)
    finish_round(game, DuckBot)
    assert game.results[0].reason == "turn-cap" and len(game.rounds[0].turns) == 7


def test_no_flip_after_the_round_ended():
    from duckcover.engine import IllegalMoveError

    game = _single_stack_game()
    with pytest.raises(IllegalMoveError):
        game.flip()
    game.start_round()
    assert game.round_index == 1 and game.phase is Phase.FLIP
    assert MAX in game.round.deck and game.draw_size == 26
